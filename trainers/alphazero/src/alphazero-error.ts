import { TurnGymError } from '@turngym/core';

/**
 * Errors of the AlphaZero trainer, one class with a code (core's error tree):
 *
 * | code                  | meaning                                                                   |
 * |-----------------------|---------------------------------------------------------------------------|
 * | ALPHAZERO_ENV         | the env cannot be searched: not a discrete action space, a non-finite reward |
 * | ALPHAZERO_CHECKPOINT  | a checkpoint that does not fit this run (other network shape, torn files) |
 */
export class AlphaZeroError extends TurnGymError {
  constructor(code: 'ALPHAZERO_ENV' | 'ALPHAZERO_CHECKPOINT', message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
  }
}
