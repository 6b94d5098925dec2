import { InvalidOptionsError } from './errors';

/** How a seed that is not a safe integer is named in the error: NaN, 1.5 and "5" each say why they fail. */
function describeSeed(seed: unknown): string {
  if (typeof seed === 'number') return String(seed);
  if (typeof seed === 'string') return `the string ${JSON.stringify(seed)}`;
  if (seed === null) return 'null';
  if (Array.isArray(seed)) return 'an array';
  return typeof seed === 'bigint' ? `the bigint ${seed}n` : typeof seed;
}

/**
 * An episode seed as TurnGym takes it: any integer within ±(2^53 − 1), negative ones included (seeds are mixed, not
 * used as indices). Past 2^53 neighbouring integers are one double, so two seeds a caller told apart would replay as
 * one episode; a fraction, NaN or a string would be truncated or hashed into some other seed's episode. Anything
 * else is the options error naming the field `seed` (exit 2 in the CLI, a validation error on the wire), raised
 * before the caller changes any state.
 */
export function checkSeed(seed: unknown, subject: string): number {
  if (typeof seed === 'number' && Number.isSafeInteger(seed)) return seed;
  throw new InvalidOptionsError(subject, [`seed must be an integer within ±(2^53 − 1), got ${describeSeed(seed)}`]);
}
