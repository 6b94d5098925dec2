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
