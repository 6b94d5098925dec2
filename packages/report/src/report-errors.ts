import { TurnGymError } from '@turngym/core';

/**
 * A run directory the report cannot read: missing, without `run.json` or `metrics.jsonl`, or with a line
 * that is not what the trainers write. The message names the file and, for JSONL, the line, so the one
 * line the CLI prints is enough to find the fault (the CLI exits with 2, like other bad input).
 *
 * | code           | class              | meaning                                                         |
 * |----------------|--------------------|-----------------------------------------------------------------|
 * | INVALID_RUN    | InvalidRunError    | a run directory or one of its files is missing or malformed      |
 * | FOREIGN_OUTPUT | ForeignOutputError | the output path holds a file the report did not write            |
 */
export class InvalidRunError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('INVALID_RUN', message, options);
  }
}

/**
 * Refused before anything is written: the file at the output path is not a report. Core's class, shared with
 * the leaderboard, so the CLI treats both refusals as bad input.
 */
export { ForeignOutputError } from '@turngym/core';
