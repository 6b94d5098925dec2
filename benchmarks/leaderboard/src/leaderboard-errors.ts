import { TurnGymError } from '@turngym/core';

/**
 * The leaderboard's errors, in core's tree.
 *
 * | code          | class             | meaning                                                                  |
 * |---------------|-------------------|--------------------------------------------------------------------------|
 * | INVALID_SUITE | InvalidSuiteError | a suite file is missing, not JSON, or fails the suite schema             |
 * | PREFLIGHT     | PreflightError    | the run cannot start: unknown agent, unreachable endpoint, bad env options |
 * | INVALID_RESULT| InvalidResultError| a result or submission file fails its schema or does not add up          |
 * | RUN_MISMATCH  | RunMismatchError  | a run directory holds a run of another suite, agent or env version, a    |
 * |               |                   | run.json that is no manifest, or is in use by another live bench run     |
 * | RUN_ABORTED   | RunAbortedError   | too many episodes in a row failed (the endpoint died), or the run's      |
 * |               |                   | signal stopped it (Ctrl-C, the cause its reason); resumable              |
 * | FOREIGN_OUTPUT| ForeignOutputError| an output directory holds a file of that name that the leaderboard did not write |
 */
export class InvalidSuiteError extends TurnGymError {
  constructor(message: string) {
    super('INVALID_SUITE', message);
  }
}

/** Found before any episode runs; the message is one line a user can act on. */
export class PreflightError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('PREFLIGHT', message, options);
  }
}

export class InvalidResultError extends TurnGymError {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super('INVALID_RESULT', `${file}: ${problems.join('; ')}`);
  }
}

export class RunMismatchError extends TurnGymError {
  constructor(message: string) {
    super('RUN_MISMATCH', message);
  }
}

export class RunAbortedError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('RUN_ABORTED', message, { ...options, isRetryable: true });
  }
}

/** Refused before anything is written: the file is the user's. Core's class, shared with the report. */
export { ForeignOutputError } from '@turngym/core';
