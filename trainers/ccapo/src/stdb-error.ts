import { TurnGymError } from '@turngym/core';

/**
 * | code         | meaning                                                                 |
 * |--------------|-------------------------------------------------------------------------|
 * | STDB_INVALID | a file given as a history store is not one (another SQLite file, a newer schema, not SQLite) |
 * | STDB_MISSING | a history store to read or warm-start from does not exist               |
 */
export class StdbError extends TurnGymError {
  constructor(
    code: 'STDB_INVALID' | 'STDB_MISSING',
    readonly path: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}
