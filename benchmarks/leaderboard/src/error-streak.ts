import { describeError } from '@turngym/core';
import { RunAbortedError } from './leaderboard-errors';

/** How many episodes in a row may fail before a run stops (`turngym bench` and `turngym run`). */
export const DEFAULT_MAX_CONSECUTIVE_ERRORS = 10;

/**
 * Counts episodes that failed in a row. One failure is an episode's bad luck; `limit` in a row means the
 * endpoint or the env is down, and every further episode would only fail the same way.
 */
export class ErrorStreak {
  private count = 0;

  constructor(readonly limit: number = DEFAULT_MAX_CONSECUTIVE_ERRORS) {}

  /**
   * Notes how one episode ended. Past the limit, returns the error that stops the run: `kept` says what the
   * run saved so far and how to go on.
   */
  note(
    outcome: { status: 'ok' } | { status: 'errored'; error: unknown },
    kept: () => string,
  ): RunAbortedError | undefined {
    if (outcome.status === 'ok') {
      this.count = 0;
      return undefined;
    }
    this.count += 1;
    if (this.count < this.limit) return undefined;
    const last = describeError(outcome.error).message.replace(/\s*\n\s*/g, ' ');
    return new RunAbortedError(`${this.count} episodes in a row failed (last: ${last}). ${kept()}`, {
      cause: outcome.error,
    });
  }
}
