import { TurnGymError } from '@turngym/core';

/**
 * A loss asked to average over zero action tokens. A token-mean over nothing is 0/0; returning 0 or NaN
 * would hide the bug that caused it (a record with no action segment, or a mask built for another
 * sequence), so the loss functions refuse. Length mismatches are `RangeError`s instead: they are plain
 * argument errors, like a typed array's.
 */
export class EmptyLossMaskError extends TurnGymError {
  constructor(readonly what: string) {
    super(
      'EMPTY_LOSS_MASK',
      `${what}: the loss mask selects no tokens (every entry is 0), so there is nothing to average. ` +
        'Only action tokens carry loss; check that the token record has an action segment.',
    );
  }
}

/**
 * An update sample with no action token (or, with per-role weights, none of any role that trains). A builder
 * that passes one has lost track of what it trains on: its advantage would vanish without a trace, so the
 * update refuses instead of dropping it. Builders keep such a rollout's reward in its group's statistics and
 * leave it out of the samples (`hasActionTokens`).
 */
export class EmptyUpdateSampleError extends TurnGymError {
  constructor(
    readonly trajectoryId: string | undefined,
    message: string,
  ) {
    super('EMPTY_UPDATE_SAMPLE', message);
  }
}

/**
 * A run directory that cannot be used as asked: `create` on a directory that already holds a run,
 * `open` on one that holds none, a resume whose run.json names another run, a metrics file that lost
 * rows a checkpoint counts on, or metrics appended out of order.
 */
export class RunDirectoryError extends TurnGymError {
  constructor(
    readonly path: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super('RUN_DIRECTORY', `${path}: ${message}`, options);
  }
}

/**
 * A distribution over a discrete action set asked for on a row where no action is legal (an all-zero legal
 * mask). Softmax over nothing is 0/0, the same bug as an empty loss mask one level down: a mask built for
 * another state, or a state the search should have treated as terminal.
 */
export class EmptyActionSetError extends TurnGymError {
  constructor(
    readonly what: string,
    readonly row: number,
  ) {
    super(
      'EMPTY_ACTION_SET',
      `${what}: row ${row} has no legal action (its legal mask is all 0), so its policy is undefined. ` +
        'A state with no legal action is terminal; leave it out of the batch.',
    );
  }
}

/**
 * A training checkpoint asked to save or resume something it cannot: an iteration that is not a
 * non-negative integer, a model or adapter that is not the trainer's, two trainers training the same
 * weights, a store or trainer name that is not a plain file name, state JSON cannot hold, or a resume
 * given other trainers or stores than the checkpoint holds. (A checkpoint on disk that is unreadable or
 * incomplete is lm's `CheckpointError`.)
 */
export class TrainingCheckpointError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('TRAINING_CHECKPOINT', message, options);
  }
}

/**
 * A trajectory record that does not match `turngym.trajectory/v2` (a field missing or of the wrong type, a line
 * that is not JSON, tokens and logprobs or segments of different lengths); the message names the line and field.
 */
export class InvalidTrajectoryError extends TurnGymError {
  constructor(message: string) {
    super('INVALID_TRAJECTORY', message);
  }
}

/**
 * Whether `error` is the file system's (a full disk, a read-only or vanished directory), whose message names no path.
 * Duck-typed: an error of another realm (a vm context, a test runner's) is no `instanceof Error` here.
 */
export function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | null)?.syscall === 'string';
}
