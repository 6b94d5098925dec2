import { compileValidator, withoutByteOrderMark, type JSONSchemaType } from '@turngym/core';
import type { RunInfo } from '@turngym/rl';
import { InvalidRunError } from './report-errors';

export type { RunInfo };

/**
 * `run.json` as the report reads it: the trainers' `RunInfo` (@turngym/rl), read more leniently than they
 * write it. Extra fields are allowed and `startedAt` is any string: a run written by another tool or an
 * older trainer should still be charted, and the report reads only the grouping keys.
 */
export const runInfoSchema: JSONSchemaType<RunInfo> = {
  type: 'object',
  additionalProperties: true,
  required: ['algorithm', 'envId', 'seed', 'args', 'startedAt'],
  properties: {
    algorithm: { type: 'string', minLength: 1 },
    envId: { type: 'string', minLength: 1 },
    seed: { type: 'integer' },
    label: { type: 'string', nullable: true },
    args: { type: 'object', required: [] },
    startedAt: { type: 'string' },
  },
};

const validate = compileValidator<RunInfo>(
  runInfoSchema,
  (problems) => new RangeError(problems.join('; ')),
  'run.json',
);

/** Parses the text of a `run.json`; an error names the file. */
export function parseRunInfo(text: string, file: string): RunInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutByteOrderMark(text));
  } catch (error) {
    throw new InvalidRunError(`${file}: not JSON (${(error as Error).message}).`);
  }
  try {
    return validate(parsed);
  } catch (error) {
    throw new InvalidRunError(`${file}: ${(error as Error).message}.`);
  }
}
