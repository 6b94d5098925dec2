import { readFileSync } from 'node:fs';
import type { ClientOptionsWidening } from '@turngym/server';
import { InvalidArgumentError } from 'commander';
import { UsageError } from './cli-errors';

/** Where `turngym serve` reads its bearer token when neither `--token` nor `--token-file` is given. */
export const SERVER_TOKEN_VARIABLE = 'TURNGYM_SERVER_TOKEN';

const OPTION_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function widening(parsed: unknown, origin: string): ClientOptionsWidening {
  if (
    Array.isArray(parsed) &&
    parsed.every((name) => typeof name === 'string' && (name === '*' || OPTION_NAME.test(name)))
  )
    return parsed as string[];
  if (
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    typeof (parsed as { properties?: unknown }).properties === 'object' &&
    (parsed as { properties?: unknown }).properties !== null
  )
    return parsed as { properties: Record<string, unknown> };
  throw new InvalidArgumentError(
    `${origin} must be a JSON Schema with "properties" ({"properties": {"articles": {"maximum": 20000}}}) or an array of option names.`,
  );
}

function parseJson(text: string, origin: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`${origin} is not valid JSON (${(error as Error).message}).`);
  }
}

/**
 * `--client-options`: env options clients may set beyond what each env declares safe. Four forms:
 * - `source,articles`: a comma list of option names (each with the env's own schema);
 * - `*`: every option (trusted clients only);
 * - `{"properties": {"articles": {"maximum": 20000}}}`: a JSON Schema whose properties add or replace options;
 * - `clients.json`: a path ending in `.json`, holding a schema or an array of names.
 */
export function parseClientOptions(text: string): ClientOptionsWidening {
  const value = text.trim();
  if (value.startsWith('{') || value.startsWith('[')) return widening(parseJson(value, 'The value'), 'The value');
  if (value.endsWith('.json')) {
    let content: string;
    try {
      content = readFileSync(value, 'utf8');
    } catch (error) {
      throw new InvalidArgumentError(`Cannot read ${value} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
    return widening(parseJson(content, value), value);
  }
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const bad = names.find((name) => name !== '*' && !OPTION_NAME.test(name));
  if (names.length === 0 || bad !== undefined)
    throw new InvalidArgumentError(
      `Expected option names separated by commas (source,articles), *, a JSON Schema or a .json file${bad ? `; "${bad}" is not an option name` : ''}.`,
    );
  return names;
}

/**
 * The bounds `serveEnvs` puts on the numeric settings `turngym serve` has flags for (`serveSettingsSchema`'s;
 * a test holds the two together). Checked when the flag is parsed, so a bad value is an error naming the flag
 * rather than the option it becomes (`options.heartbeatMs must be <= 3600000`).
 */
export const SERVE_FLAG_BOUNDS = {
  maxSessions: { minimum: 1, maximum: 1000000 },
  maxConnections: { minimum: 1, maximum: 1000000 },
  heartbeatMs: { minimum: 0, maximum: 3600000 },
  headersTimeoutMs: { minimum: 1, maximum: 3600000 },
  requestTimeoutMs: { minimum: 1, maximum: 3600000 },
} as const;

/** A parser of an integer flag within `SERVE_FLAG_BOUNDS[setting]` (commander names the flag in its error). */
export function integerFlag(setting: keyof typeof SERVE_FLAG_BOUNDS): (text: string) => number {
  const { minimum, maximum } = SERVE_FLAG_BOUNDS[setting];
  return (text) => {
    const value = Number(text.trim());
    if (text.trim() === '' || !Number.isSafeInteger(value) || value < minimum || value > maximum)
      throw new InvalidArgumentError(`Expected an integer from ${minimum} to ${maximum}.`);
    return value;
  };
}

/**
 * The bearer token of `turngym serve`: `--token` (visible to every local user in the process list, so the
 * other two are preferred), `--token-file` (its first line), or the `TURNGYM_SERVER_TOKEN` variable.
 */
export function resolveServeToken(
  options: { token?: string; tokenFile?: string },
  environment: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (options.token !== undefined && options.tokenFile !== undefined)
    throw new UsageError('Give the token once: --token or --token-file, not both.');
  if (options.token !== undefined) return options.token;
  if (options.tokenFile !== undefined) {
    let content: string;
    try {
      content = readFileSync(options.tokenFile, 'utf8');
    } catch (error) {
      throw new UsageError(
        `Cannot read the token file ${options.tokenFile} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      );
    }
    const token = content.split(/\r?\n/)[0]?.trim() ?? '';
    if (token === '') throw new UsageError(`The token file ${options.tokenFile} is empty.`);
    return token;
  }
  const fromEnvironment = environment[SERVER_TOKEN_VARIABLE]?.trim();
  return fromEnvironment ? fromEnvironment : undefined;
}
