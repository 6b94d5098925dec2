import { TurnGymError } from '@turngym/core';

/**
 * A task file that cannot be read or holds a malformed task (or check). The message names the file and the
 * line or task, so a user can fix the data. Code `INVALID_TASK_FILE`, as the math env's task files.
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
