import { TurnGymError } from '@turngym/core';

/** Bad command-line input the CLI itself detects (malformed JSON, a seed that is not an integer, …). */
export class UsageError extends TurnGymError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/**
 * A write of the command's output that the file system refused mid-run (a full disk, a file-size limit): the work ran
 * and could not be kept, so it exits with 1; the message says what is kept and what to run again.
 */
export class OutputWriteError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('OUTPUT_WRITE', message, options);
  }
}

/**
 * Codes that mean "the input was wrong": the user can fix the command line. They exit with 2, like a
 * usage error; anything else (an env fault, a bug) exits with 1.
 */
const BAD_INPUT_CODES = new Set([
  'USAGE',
  'NAME_NOT_FOUND',
  'VERSION_NOT_FOUND',
  'INVALID_ID',
  'INVALID_OPTIONS',
  'RESET_NEEDED',
  'ENV_CLOSED',
  'INVALID_ACTION_TYPE',
  'PLUGIN_LOAD',
  // --out names a file that holds something other than episode records.
  'NOT_EPISODE_FILE',
  'INVALID_MODEL_SPEC',
  // @turngym/lm: a checkpoint, tokenizer, adapter, backend or prompt the command line named is wrong.
  'INVALID_CHECKPOINT',
  'UNSUPPORTED_ARCHITECTURE',
  'TOKENIZER_MISMATCH',
  'CONTEXT_LENGTH_EXCEEDED',
  'BACKEND_UNAVAILABLE',
  'ADAPTER_NOT_FOUND',
  'GPU_COMMAND_FAILED',
  // @turngym/leaderboard: a suite, result or preflight the command line named is wrong.
  'PREFLIGHT',
  'INVALID_SUITE',
  'RUN_MISMATCH',
  'INVALID_RESULT',
  // --out holds a page of that name the leaderboard did not write.
  'FOREIGN_OUTPUT',
  // @turngym/report: a run directory the command line named is missing or has a malformed file.
  'INVALID_RUN',
  // A task file the command line named is malformed (coding-sandbox's, math-thought's and mcp-tools').
  'INVALID_TASKS',
  'INVALID_TASK_FILE',
  // @turngym/rl: --run-dir holds another run, or none to resume.
  'RUN_DIRECTORY',
]);

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_BAD_INPUT = 2;

/**
 * File-system errors of storage that ran out (a full disk, a quota, a file-size limit) or failed: met mid-run, they
 * are no fault of the command line, whatever error carries them.
 */
const STORAGE_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO']);

/**
 * 2 for input the user fixes on the command line, else 1. An error of a bad-input code that a full disk caused (rl's
 * `RUN_DIRECTORY` for an append to metrics.jsonl or trajectories.jsonl that failed mid-run) is a failure of the work,
 * 1, as the same disk filling during the checkpoint write already was: a script must not read it as a wrong command.
 */
export function exitCodeFor(error: unknown): number {
  if (!TurnGymError.isInstance(error) || !BAD_INPUT_CODES.has(error.code)) return EXIT_FAILURE;
  const cause = (error as Error).cause as NodeJS.ErrnoException | undefined;
  return typeof cause?.code === 'string' && STORAGE_FAILURES.has(cause.code) ? EXIT_FAILURE : EXIT_BAD_INPUT;
}

/**
 * What the user sees for an error: one line (a TurnGymError's message is written for them), and the stack
 * only with --verbose. Unexpected errors say how to get the stack, since they are likely bugs to report.
 */
export function formatError(error: unknown, verbose: boolean): string {
  const known = TurnGymError.isInstance(error);
  const message = error instanceof Error || known ? (error as Error).message : String(error);
  const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
  if (verbose) {
    const stack = error instanceof Error && error.stack ? error.stack : oneLine;
    const cause =
      error instanceof Error && error.cause instanceof Error && error.cause.stack
        ? `\nCaused by: ${error.cause.stack}`
        : '';
    return `error: ${oneLine}\n${stack}${cause}`;
  }
  return known ? `error: ${oneLine}` : `error: ${oneLine} (run with --verbose for the stack trace)`;
}
