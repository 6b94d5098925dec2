import { TurnGymError } from '@turngym/core';

/**
 * | code         | meaning                                                                 |
 * |--------------|-------------------------------------------------------------------------|
 * | STDB_INVALID | a file given as a history store is not one (another SQLite file, a newer schema, not SQLite, a directory), is damaged (a table or the globals row gone; for a warm start, `quick_check` fails), holds another env's history, or is the run's own store named as its warm start |
 * | STDB_MISSING | a history store to read or warm-start from does not exist               |
 */
export type StdbErrorCode = 'STDB_INVALID' | 'STDB_MISSING';

export class StdbError extends TurnGymError {
  constructor(
    code: StdbErrorCode,
    readonly path: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}
