import { TurnGymError } from '@turngym/core';
import { AlphaZeroError } from './alphazero-error';

/**
 * Whether an env's error voids the episode rather than the run: an `EnvFaultError` (an LLM role, browser or
 * sandbox that failed after its retries) or the seller's `RoleUnusableError` (a role that answered, never usably).
 * The seller's docs ask runners to record such an episode as errored, leave it out of scores and count it. At
 * temperature 0 (and through the role cache) the same requests fail the same way, so a run that stopped on one
 * stopped again at the same episode on every resume. Any other error (an env bug, a NaN reward) still stops it.
 */
export function isVoidEpisode(error: unknown): boolean {
  return TurnGymError.isInstance(error) && (error.code === 'ENV_FAULT' || error.code === 'ROLE_UNUSABLE');
}

/**
 * The error of an iteration none of whose episodes finished: nothing to learn from, and most likely a role that
 * cannot work at all (a server that is down, a model that never answers usably), which the run should say rather
 * than go on training on nothing. `last` is the last episode's error.
 */
export function allVoid(what: string, iteration: number, episodes: number, last: unknown): AlphaZeroError {
  return new AlphaZeroError(
    'ALPHAZERO_ENV',
    `every ${what} episode of iteration ${iteration + 1} was void (${episodes} of ${episodes}: an LLM role failed ` +
      `or never answered usably), so there is nothing to train on; the last: ${(last as Error).message}`,
    { cause: last },
  );
}
