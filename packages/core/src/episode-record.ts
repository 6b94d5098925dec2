import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { InvalidRecordError, NotEpisodeFileError, type ErrorDescription } from './errors';
import { compileValidator } from './schema-validation';

export const EPISODE_RECORD_SCHEMA_ID = 'turngym.episode/v1';

export interface StepRecord {
  action: unknown;
  observation: unknown;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

/** One JSONL line per episode. The schema below is the contract for every tool that reads records. */
export interface EpisodeRecord {
  schema: typeof EPISODE_RECORD_SCHEMA_ID;
  episodeId: string;
  envId: string;
  /** The env package's version, so a result names exactly what produced it. */
  envVersion: string | null;
  seed: number | null;
  /** Per-episode reset options. */
  resetOptions: Record<string, unknown> | null;
  agent: string | null;
  startedAt: string;
  instructions: string | null;
  initialObservation: unknown;
  steps: StepRecord[];
  turns: number;
  totalReward: number;
  success: boolean;
  terminated: boolean;
  truncated: boolean;
  /** False when the episode was cut off by reset/close before it ended. */
  complete: boolean;
  cost: { toolCalls: number; llmTokens: number; wallMs: number };
  /** Set on episodes continued from a fork: the parent and the turn it was forked at. */
  forkOf: { episodeId: string; turn: number } | null;
  /**
   * Set on an episode that failed for an infrastructure reason (the env or the agent threw: a crashed browser,
   * an LLM endpoint down); such a record is incomplete. Optional, so records written before it stay valid.
   */
  error?: ErrorDescription;
}

/** What an episode's record knows when it starts; `startEpisodeRecord` fills the rest as "nothing happened yet". */
export type EpisodeRecordStart = Pick<
  EpisodeRecord,
  'episodeId' | 'envId' | 'envVersion' | 'seed' | 'resetOptions' | 'agent' | 'instructions' | 'initialObservation'
> & { cost?: EpisodeRecord['cost'] };

/**
 * A new record before its first step: no steps, no reward, incomplete (the recorder fills it in as the episode
 * goes; a runner whose reset failed writes it as it is, with the error). The keys' order is the record's on disk.
 */
export function startEpisodeRecord(start: EpisodeRecordStart): EpisodeRecord {
  return {
    schema: EPISODE_RECORD_SCHEMA_ID,
    episodeId: start.episodeId,
    envId: start.envId,
    envVersion: start.envVersion,
    seed: start.seed,
    resetOptions: start.resetOptions,
    agent: start.agent,
    startedAt: new Date().toISOString(),
    instructions: start.instructions,
    initialObservation: start.initialObservation,
    steps: [],
    turns: 0,
    totalReward: 0,
    success: false,
    terminated: false,
    truncated: false,
    complete: false,
    cost: start.cost ?? { toolCalls: 0, llmTokens: 0, wallMs: 0 },
    forkOf: null,
  };
}

const anyValue = {};

/** One step of `steps`; a record that extends the episode record (rl's trajectory) extends this too. */
export const stepRecordSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action', 'observation', 'reward', 'terminated', 'truncated', 'info'],
  properties: {
    action: anyValue,
    observation: anyValue,
    reward: { type: 'number' },
    terminated: { type: 'boolean' },
    truncated: { type: 'boolean' },
    info: { type: 'object', required: [] },
  },
} as const;

// Typed loosely: ajv's JSONSchemaType cannot express required-but-nullable fields. The recorder's tests
// validate every record it writes against this schema, which is what keeps the two in step.
export const episodeRecordSchema = {
  $id: 'https://turngym.dev/schemas/episode-record-v1.json',
  type: 'object',
  additionalProperties: false,
  required: [
    'schema',
    'episodeId',
    'envId',
    'envVersion',
    'seed',
    'resetOptions',
    'agent',
    'startedAt',
    'instructions',
    'initialObservation',
    'steps',
    'turns',
    'totalReward',
    'success',
    'terminated',
    'truncated',
    'complete',
    'cost',
    'forkOf',
  ],
  properties: {
    schema: { type: 'string', const: EPISODE_RECORD_SCHEMA_ID },
    episodeId: { type: 'string', minLength: 1 },
    envId: { type: 'string', minLength: 1 },
    envVersion: { type: 'string', nullable: true },
    seed: { type: 'integer', nullable: true },
    resetOptions: { type: 'object', nullable: true, required: [] },
    agent: { type: 'string', nullable: true },
    startedAt: { type: 'string', format: 'date-time' },
    instructions: { type: 'string', nullable: true },
    initialObservation: anyValue,
    steps: { type: 'array', items: stepRecordSchema },
    turns: { type: 'integer', minimum: 0 },
    totalReward: { type: 'number' },
    success: { type: 'boolean' },
    terminated: { type: 'boolean' },
    truncated: { type: 'boolean' },
    complete: { type: 'boolean' },
    cost: {
      type: 'object',
      additionalProperties: false,
      required: ['toolCalls', 'llmTokens', 'wallMs'],
      properties: {
        toolCalls: { type: 'integer', minimum: 0 },
        llmTokens: { type: 'integer', minimum: 0 },
        wallMs: { type: 'number', minimum: 0 },
      },
    },
    forkOf: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['episodeId', 'turn'],
      properties: { episodeId: { type: 'string' }, turn: { type: 'integer', minimum: 0 } },
    },
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message', 'retryable'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, retryable: { type: 'boolean' } },
    },
  },
} as const;

/** Throws `InvalidRecordError` naming the fields that are wrong. */
export const validateEpisodeRecord = compileValidator<EpisodeRecord>(
  episodeRecordSchema,
  (problems) => new InvalidRecordError(problems),
  'record',
);

/** Where finished episodes go. */
export interface RecordSink {
  write(record: EpisodeRecord): void;
}

/**
 * Appends one line per episode, synchronously, so a crash loses at most the episode in flight. An existing
 * file must already be an episode file: appending to anything else would bury the user's data under records.
 */
export class JsonlRecordSink implements RecordSink {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    assertEpisodeFileOrAbsent(path);
    // Opened for appending now, not at the first episode's end: a path that cannot be written (a read-only
    // directory, a dangling link) fails before any episode runs and spends its tokens.
    closeSync(openSync(path, 'a'));
    dropTornLastLine(path);
  }

  write(record: EpisodeRecord): void {
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
  }
}

/**
 * Ends the file cleanly before records are appended. A last line without its newline is either a record whose
 * write a kill cut short (`turngym run` stopped with SIGKILL mid-append), which is cut off — appending after it
 * would glue the next record onto it, losing that record and leaving a line that is not JSON inside the file,
 * which no reader accepts — or a whole record a person saved without the final newline, which is kept and ended.
 */
function dropTornLastLine(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(1 << 16);
    let keep = 0; // where the last line starts
    for (let end = size; end > 0;) {
      const start = Math.max(0, end - chunk.length);
      const read = readSync(fd, chunk, 0, end - start, start);
      const newline = chunk.subarray(0, read).lastIndexOf(0x0a);
      if (newline !== -1) {
        keep = start + newline + 1;
        break;
      }
      end = start;
    }
    if (keep === size) return; // empty, or ends in a newline
    const tail = Buffer.alloc(size - keep);
    readSync(fd, tail, 0, tail.length, keep);
    try {
      JSON.parse(tail.toString('utf8'));
      writeSync(fd, '\n', size); // at the end: an r+ descriptor writes where it is told, not where the file ends
    } catch {
      ftruncateSync(fd, keep);
    }
  } finally {
    closeSync(fd);
  }
}

/** The first line of a file, read in chunks: an episode file may be large, and only its first record is judged. */
function firstLine(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1 << 16);
    const parts: Buffer[] = [];
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      parts.push(Buffer.from(chunk.subarray(0, newline === -1 ? read : newline)));
      if (newline !== -1) break;
    }
    return Buffer.concat(parts).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Throws `NotEpisodeFileError` unless `path` is absent, empty, or starts with a valid episode record. */
function assertEpisodeFileOrAbsent(path: string): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (size === 0) return;
  const line = firstLine(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new NotEpisodeFileError(path, 'its first line is not JSON');
  }
  try {
    validateEpisodeRecord(parsed);
  } catch (error) {
    throw new NotEpisodeFileError(path, `its first line is not an episode record: ${(error as Error).message}`);
  }
}

/** Keeps records in memory (tests, in-process consumers). */
export class MemoryRecordSink implements RecordSink {
  readonly records: EpisodeRecord[] = [];
  write(record: EpisodeRecord): void {
    this.records.push(record);
  }
}

/**
 * Reads and validates a JSONL file of episode records; a bad line is reported as `file:line`. A torn last line
 * (no trailing newline, not JSON) is skipped and reported through `warn` (default: a process warning).
 */
export function readEpisodeRecords(
  path: string,
  warn: (message: string) => void = (message) => process.emitWarning(message, { code: 'TURNGYM_TORN_RECORD' }),
): EpisodeRecord[] {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  // A last line without its newline that does not parse is a write cut short (a run killed mid-append): the writer
  // cuts it before its next append and the report skips it, so reading must not refuse the whole file for it.
  const last = lines.length - 1;
  const records: EpisodeRecord[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (index === last && !text.endsWith('\n')) {
        warn(`${path}:${index + 1} is a record cut short (a run killed while writing it); skipped`);
        return;
      }
      throw new InvalidRecordError([`${path}:${index + 1} is not JSON`]);
    }
    try {
      records.push(validateEpisodeRecord(parsed));
    } catch (error) {
      throw new InvalidRecordError([`${path}:${index + 1}: ${(error as Error).message}`]);
    }
  });
  return records;
}
