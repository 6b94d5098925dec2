import { TurnGymError } from '@turngym/core';

/**
 * A task file that cannot be read or has a malformed record. The message names the file and the line,
 * so a user can fix the data. (Code `INVALID_TASK_FILE`; a candidate for core's error table.)
 */
export class TaskFileError extends TurnGymError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    reason: string,
    cause?: unknown,
  ) {
    super('INVALID_TASK_FILE', `${file}${line === undefined ? '' : ` line ${line}`}: ${reason}`, { cause });
  }
}
