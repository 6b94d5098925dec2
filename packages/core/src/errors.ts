/**
 * One error tree for all of TurnGym. Exceptions are for API misuse and infrastructure faults; anything an
 * agent writes is an ordinary step. Each class has a stable `code` (the table below) that the CLI maps to
 * exit code 2 and the env server maps to its protocol error codes.
 *
 * | code                | class                 | retryable | meaning                                        |
 * |---------------------|-----------------------|-----------|------------------------------------------------|
 * | NAME_NOT_FOUND      | NameNotFoundError     | no        | no env registered under that name              |
 * | VERSION_NOT_FOUND   | VersionNotFoundError  | no        | the name exists, that -vN does not             |
 * | INVALID_ID          | InvalidIdError        | no        | not of the form [namespace/]name-vN            |
 * | ALREADY_REGISTERED  | AlreadyRegisteredError| no        | registering an id twice                        |
 * | INVALID_OPTIONS     | InvalidOptionsError   | no        | options fail the env's JSON Schema             |
 * | INVALID_TOOL_SCHEMA | InvalidToolSchemaError| no        | a tool's parameter schema cannot be compiled   |
 * | RESET_NEEDED        | ResetNeededError      | no        | step before reset, or after the episode ended  |
 * | ENV_CLOSED          | EnvClosedError        | no        | use after close()                              |
 * | ENV_BUSY            | EnvBusyError          | no        | a call while a step() or reset() is in flight  |
 * | INVALID_ACTION_TYPE | InvalidActionTypeError| no        | an action of the wrong JavaScript type         |
 * | PLUGIN_LOAD         | PluginLoadError       | no        | an env package failed to load or register      |
 * | INVALID_RECORD      | InvalidRecordError    | no        | an episode record fails its schema             |
 * | NOT_EPISODE_FILE    | NotEpisodeFileError   | no        | appending records to a file that holds others  |
 * | ENV_FAULT           | EnvFaultError         | yes       | a browser/sandbox/LLM role crashed mid-episode |
 * | FOREIGN_OUTPUT      | ForeignOutputError    | no        | a file at an output path TurnGym did not write |
 */
const MARKER = Symbol.for('turngym.error');

export type ErrorCode =
  | 'NAME_NOT_FOUND'
  | 'VERSION_NOT_FOUND'
  | 'INVALID_ID'
  | 'ALREADY_REGISTERED'
  | 'INVALID_OPTIONS'
  | 'INVALID_TOOL_SCHEMA'
  | 'RESET_NEEDED'
  | 'ENV_CLOSED'
  | 'ENV_BUSY'
  | 'INVALID_ACTION_TYPE'
  | 'PLUGIN_LOAD'
  | 'INVALID_RECORD'
  | 'NOT_EPISODE_FILE'
  | 'ENV_FAULT'
  | 'FOREIGN_OUTPUT'
  | (string & {});

export class TurnGymError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;
  /** Whether the same call may succeed if tried again. */
  readonly isRetryable: boolean;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; isRetryable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
  }

  /** Works across package copies (two versions of core in one tree), unlike `instanceof`. */
  static isInstance(error: unknown): error is TurnGymError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

export class NameNotFoundError extends TurnGymError {
  constructor(
    readonly envId: string,
    readonly suggestions: readonly string[],
  ) {
    const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(', ')}?` : '';
    super('NAME_NOT_FOUND', `No environment named "${envId}".${hint} (\`turngym list\` shows all ids.)`);
  }
}

export class VersionNotFoundError extends TurnGymError {
  constructor(
    readonly envId: string,
    readonly availableIds: readonly string[],
  ) {
    super('VERSION_NOT_FOUND', `Environment "${envId}" has no such version. Available: ${availableIds.join(', ')}.`);
  }
}

export class InvalidIdError extends TurnGymError {
  constructor(readonly envId: string) {
    super(
      'INVALID_ID',
      `Malformed environment id "${envId}": expected [namespace/]name-vN, e.g. turngym/math-thought-v1.`,
    );
  }
}

export class AlreadyRegisteredError extends TurnGymError {
  constructor(readonly envId: string) {
    super('ALREADY_REGISTERED', `Environment "${envId}" is already registered; a changed env needs a new -vN.`);
  }
}

export class InvalidOptionsError extends TurnGymError {
  constructor(
    readonly subject: string,
    readonly problems: readonly string[],
  ) {
    super('INVALID_OPTIONS', `Invalid options for ${subject}: ${problems.join('; ')}`);
  }
}

/**
 * A tool the env offers has a parameter schema that cannot be compiled: every call of that tool would throw out of
 * step(), mid-episode. Raised by `make()` when the env is built, naming the tool.
 */
export class InvalidToolSchemaError extends TurnGymError {
  constructor(
    readonly envId: string,
    readonly toolName: string,
    reason: string,
  ) {
    super(
      'INVALID_TOOL_SCHEMA',
      `Environment "${envId}": tool "${toolName}" has a parameters schema that cannot be compiled (${reason}); ` +
        "every call of it would fail, so the env is refused. Fix the tool's JSON Schema.",
    );
  }
}

export class ResetNeededError extends TurnGymError {
  constructor(message: string) {
    super('RESET_NEEDED', message);
  }
}

export class EnvClosedError extends TurnGymError {
  constructor(envId: string) {
    super('ENV_CLOSED', `Environment "${envId}" is closed; make() a new one.`);
  }
}

/**
 * A step/reset/fork while a step() or reset() of the same env has not settled: an episode is one sequence of
 * turns, and two interleaved calls would both act on the state the first one is changing.
 */
export class EnvBusyError extends TurnGymError {
  constructor(envId: string, call: string, inFlight: string) {
    super(
      'ENV_BUSY',
      `Environment "${envId}": ${call}() was called while ${inFlight}() is still in flight; await each call ` +
        'before the next (one env serves one caller at a time; fork() it to give another caller its own).',
    );
  }
}

// A number is named with why it fails: "got number" for NaN or 1.5 read as if a number were the wrong type.
function describeGot(got: unknown): string {
  if (got === null) return 'null';
  if (Array.isArray(got)) return 'an array';
  if (typeof got === 'number') {
    if (!Number.isInteger(got)) return `${got}, which is not a finite integer`;
    return `number ${got}`;
  }
  return typeof got;
}

export class InvalidActionTypeError extends TurnGymError {
  constructor(envId: string, expected: string, got: unknown) {
    super('INVALID_ACTION_TYPE', `Environment "${envId}" takes ${expected} as an action, got ${describeGot(got)}.`);
  }
}

export class PluginLoadError extends TurnGymError {
  constructor(packageName: string, reason: string, cause?: unknown) {
    super('PLUGIN_LOAD', `Could not load environment package "${packageName}": ${reason}`, { cause });
  }
}

export class InvalidRecordError extends TurnGymError {
  constructor(problems: readonly string[]) {
    super('INVALID_RECORD', `Episode record does not match its schema: ${problems.join('; ')}`);
  }
}

export class NotEpisodeFileError extends TurnGymError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(
      'NOT_EPISODE_FILE',
      `${path} exists and is not a TurnGym episode file (${reason}); records are appended only to an episode ` +
        'file, so choose another path or move that file away.',
    );
  }
}

export class EnvFaultError extends TurnGymError {
  constructor(message: string, options: { cause?: unknown; isRetryable?: boolean } = {}) {
    super('ENV_FAULT', message, { isRetryable: true, ...options });
  }
}

/** Who refuses to overwrite a file, and what the user may do instead (see `ForeignOutputError`). */
export interface OutputOwner {
  /** The command that writes such files, e.g. `turngym report`. */
  readonly writer: string;
  /** What to choose instead, e.g. `another --out file`. */
  readonly instead: string;
  /** Say "exists and" before "was not written" (the file was named as the output itself). */
  readonly sayExists?: boolean;
}

/**
 * Refused before anything is written: the file at an output path is the user's (a run's metrics.jsonl, a README,
 * another tool's page), and overwriting it would lose it. The report and the leaderboard raise it alike.
 */
export class ForeignOutputError extends TurnGymError {
  constructor(
    readonly file: string,
    owner: OutputOwner,
  ) {
    super(
      'FOREIGN_OUTPUT',
      `${file}${owner.sayExists ? ' exists and' : ''} was not written by ${owner.writer}; it is left alone: move it ` +
        `away, or choose ${owner.instead}.`,
    );
  }
}

/** An error as records and results keep it: JSON, without the stack. */
export interface ErrorDescription {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** The code, message and retryability of any thrown value (`UNKNOWN`, not retryable, for a non-TurnGym one). */
export function describeError(error: unknown): ErrorDescription {
  if (TurnGymError.isInstance(error)) return { code: error.code, message: error.message, retryable: error.isRetryable };
  return { code: 'UNKNOWN', message: error instanceof Error ? error.message : String(error), retryable: false };
}
