import { InvalidArgumentError } from 'commander';

/**
 * Parsers for option values. They throw commander's `InvalidArgumentError`, so a bad value is reported as
 * `error: option '--seed <n>' argument 'x' is invalid. …` and exits with 2 before any env is built.
 */

/** `--options '<json>'`: a JSON object (env options are always an object). */
export function parseJsonObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`Not valid JSON (${(error as Error).message}).`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('Expected a JSON object, e.g. \'{"maxTurns": 5}\'.');
  }
  return parsed as Record<string, unknown>;
}

/** Any integer, e.g. a seed (seeds may be negative; they are mixed, not used as indices). */
export function parseInteger(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value)) throw new InvalidArgumentError('Expected an integer.');
  // Past 2^53 neighbouring integers are one double: seed 2^53 + 1 would silently play seed 2^53.
  if (!Number.isSafeInteger(value))
    throw new InvalidArgumentError('Expected an integer within ±9007199254740991 (2^53 − 1).');
  // "-0" is seed 0: a -0 would print as 0 and compare unequal under Object.is.
  return value === 0 ? 0 : value;
}

/** A count that must be at least 1 (episodes, concurrency, sessions). */
export function parsePositiveInteger(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < 1)
    throw new InvalidArgumentError('Expected an integer ≥ 1.');
  return value;
}

/** A duration or count where 0 means "off" (`--idle-timeout 0`). */
export function parseNonNegativeInteger(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < 0)
    throw new InvalidArgumentError('Expected an integer ≥ 0.');
  return value;
}

/** A chat model's sampling temperature, as OpenAI's API takes it. */
export function parseTemperature(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 2)
    throw new InvalidArgumentError('Expected a number in [0, 2].');
  return value;
}

/** A TCP port; 0 asks the OS for a free one. */
export function parsePort(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value) || value < 0 || value > 65535)
    throw new InvalidArgumentError('Expected a port number 0–65535.');
  return value;
}

/** Commander's accumulator for a repeatable option (`--plugin a --plugin b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
