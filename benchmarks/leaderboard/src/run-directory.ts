import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  claimDirectoryLock,
  compileValidator,
  isDirectoryLockFile,
  type EpisodeOutcome,
  type EpisodeRecord,
} from '@turngym/core';
import type { EpisodeError } from './bench-result';
import { lazy } from './internal/lazy';
import { RunMismatchError } from './leaderboard-errors';

export const RUN_MANIFEST_SCHEMA_ID = 'turngym.bench-run/v1';

/** What a run is: a resumed run must match it exactly, or its episodes would not be comparable. */
export interface RunManifest {
  schema: typeof RUN_MANIFEST_SCHEMA_ID;
  runId: string;
  label: string;
  suite: { id: string; sha256: string };
  agent: { spec: string; name: string; kind: 'baseline' | 'chat-model'; baseURL: string | null };
  envs: {
    envId: string;
    packageVersion: string | null;
    options: Record<string, unknown>;
    maxTurns: number | null;
  }[];
  skipped: string[];
  startedAt: string;
}

/**
 * What a resume reads of a manifest, and with which types: a run.json edited by hand (`"suite": null`, an env that
 * is not an object) is refused in one line instead of crashing the comparison, or failing the result only after
 * every episode has run (a label or start time that is not one). Other fields are free: manifests of earlier
 * runner versions still compare, and differ where it matters.
 */
const manifestSchema = {
  type: 'object',
  required: ['schema', 'label', 'suite', 'agent', 'envs', 'skipped', 'startedAt'],
  properties: {
    schema: { type: 'string' },
    label: { type: 'string', minLength: 1, maxLength: 200 },
    suite: { type: 'object', required: ['sha256'], properties: { sha256: { type: 'string' } } },
    agent: {
      type: 'object',
      required: ['spec'],
      properties: { spec: { type: 'string' }, baseURL: { type: ['string', 'null'] } },
    },
    envs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['envId'],
        properties: {
          envId: { type: 'string' },
          packageVersion: { type: ['string', 'null'] },
          maxTurns: { type: ['integer', 'null'] },
        },
      },
    },
    skipped: { type: 'array', items: { type: 'string' } },
    startedAt: { type: 'string', format: 'date-time' },
  },
} as const;

const validateManifest = lazy(() =>
  compileValidator<RunManifest>(manifestSchema, (problems) => new Error(problems.join('; ')), 'run.json'),
);

/** One line of the journal: an episode that ended. The latest line of a key wins. */
export interface JournalEntry {
  key: string;
  envId: string;
  seed: number;
  status: 'ok' | 'errored';
  outcome?: EpisodeOutcome;
  error?: EpisodeError;
  /** The `episodeId`s of its records in records.jsonl. */
  recordIds: string[];
  /** When the episode ended (ISO time). */
  finishedAt: string;
}

/** How long each attempt at the run took: elapsed time survives a crash. */
interface AttemptLine {
  attempt: number;
  startedAt: string;
  elapsedMs: number;
}

function parseLines<T>(path: string): { parsed: T[]; dropped: number } {
  if (!existsSync(path)) return { parsed: [], dropped: 0 };
  const parsed: T[] = [];
  let dropped = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      parsed.push(JSON.parse(line) as T);
    } catch {
      dropped += 1; // a line torn by a crash mid-write
    }
  }
  return { parsed, dropped };
}

/** The files of a run directory (below). */
const RUN_FILE_NAMES = {
  manifest: 'run.json',
  journal: 'episodes.jsonl',
  records: 'records.jsonl',
  attempts: 'attempts.jsonl',
} as const;

/** The files a run directory holds, and their temporaries: the only files `create` may remove. */
const RUN_FILES = Object.values(RUN_FILE_NAMES).flatMap((file) => [file, `${file}.tmp`]);

/** The lock a running bench holds its run directory by (with its takeover markers: core's `claimDirectoryLock`). */
const LOCK_FILE = '.lock';

/**
 * Written to a temporary file and renamed, so a crash leaves the old file or the new one, never half. A write that
 * fails (a full disk) removes its part-written temporary, which would otherwise hold on to the space a resume needs.
 */
function replaceFile(path: string, text: string): void {
  const temporary = `${path}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The files of one run, under `<out>/runs/<runId>/`:
 * - `run.json`: the manifest (suite hash, agent, env versions and options);
 * - `episodes.jsonl`: the journal, one line per finished episode, appended synchronously;
 * - `records.jsonl`: the episode records (core's schema; `readEpisodeRecords` reads it);
 * - `attempts.jsonl`: elapsed time of each attempt.
 *
 * An episode counts once it is in the journal. Its records are appended just before its journal line; a
 * crash in between leaves records with no journal line, which `recover()` removes before the episode runs
 * again — so no episode is ever counted, or recorded, twice.
 */
export class RunDirectory {
  readonly manifestPath: string;
  readonly journalPath: string;
  readonly recordsPath: string;
  private readonly attemptsPath: string;

  constructor(readonly directory: string) {
    this.manifestPath = join(directory, RUN_FILE_NAMES.manifest);
    this.journalPath = join(directory, RUN_FILE_NAMES.journal);
    this.recordsPath = join(directory, RUN_FILE_NAMES.records);
    this.attemptsPath = join(directory, RUN_FILE_NAMES.attempts);
  }

  /**
   * Claims the directory (creating it) for this process until the returned release, or refuses with
   * `RUN_MISMATCH` while another live bench writes it. Two runs of one directory would both run the missing
   * episodes and append them twice, a resume would rewrite the journal under the other's appends (dropping its
   * lines), and `--fresh` would wipe the files the other is writing.
   */
  lock(): () => void {
    mkdirSync(this.directory, { recursive: true });
    return claimDirectoryLock(this.directory, {
      file: LOCK_FILE,
      inUse: (owner, file) =>
        new RunMismatchError(
          `${this.directory} is in use by another bench run (pid ${owner.pid}, since ${owner.since}): two runs of ` +
            'one directory would play its episodes twice and mix their records. Wait for it or stop it, or pass ' +
            `--run-id for a new run; if no bench has pid ${owner.pid}, remove ${file}.`,
        ),
      failed: (message) => new RunMismatchError(`${this.directory} ${message}`),
    });
  }

  /**
   * The run's manifest, or undefined where there is no run.json. A run.json that is not a manifest is an
   * error, never "no run": it is written atomically, so it was edited by hand or belongs to something else,
   * and starting over would destroy it.
   */
  readManifest(): RunManifest | undefined {
    if (!existsSync(this.manifestPath)) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.manifestPath, 'utf8'));
    } catch (error) {
      throw new RunMismatchError(
        `${this.manifestPath} is not JSON (${(error as Error).message}): fix it, pass --fresh to start the run over, or --run-id for a new one.`,
      );
    }
    try {
      return validateManifest()(parsed);
    } catch (error) {
      throw new RunMismatchError(
        `${this.manifestPath} is not a bench run manifest (${(error as Error).message}): fix it, pass --fresh to start the run over, or --run-id for a new one.`,
      );
    }
  }

  /**
   * Starts a new run here, removing an earlier run's files. Any other file is the user's: the directory is
   * refused rather than wiped.
   */
  create(manifest: RunManifest): void {
    const present = existsSync(this.directory) ? readdirSync(this.directory) : [];
    const foreign = present.filter((name) => !RUN_FILES.includes(name) && !isDirectoryLockFile(name, LOCK_FILE));
    if (foreign.length > 0) {
      throw new RunMismatchError(
        `${this.directory} holds files a bench run does not write (${foreign.join(', ')}): move them away, or pass --run-id for a new run.`,
      );
    }
    for (const name of RUN_FILES) rmSync(join(this.directory, name), { force: true });
    mkdirSync(this.directory, { recursive: true });
    replaceFile(this.manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  }

  /**
   * Reads the journal after a crash or a stop: torn lines are dropped, the latest line of each key wins, and
   * entries for which `redo` says yes (an errored episode worth another try) are forgotten. The journal and
   * the records are rewritten to exactly the episodes kept. Returns them by key.
   */
  recover(redo: (entry: JournalEntry) => boolean = () => false): Map<string, JournalEntry> {
    const latest = new Map<string, JournalEntry>();
    for (const entry of parseLines<JournalEntry>(this.journalPath).parsed) {
      if (typeof entry?.key === 'string') latest.set(entry.key, entry);
    }
    const kept = new Map([...latest].filter(([, entry]) => !redo(entry)));
    const recordIds = new Set([...kept.values()].flatMap((entry) => entry.recordIds));
    const records = parseLines<EpisodeRecord>(this.recordsPath).parsed.filter((record) =>
      recordIds.has(record?.episodeId),
    );
    replaceFile(this.recordsPath, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    replaceFile(this.journalPath, [...kept.values()].map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    return kept;
  }

  /** Records first, then the journal line that makes the episode count. */
  append(entry: JournalEntry, records: readonly EpisodeRecord[]): void {
    if (records.length > 0)
      appendFileSync(this.recordsPath, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    appendFileSync(this.journalPath, `${JSON.stringify(entry)}\n`);
  }

  /** Elapsed time of the attempts before this one, and the number of the next attempt. */
  previousAttempts(): { count: number; elapsedMs: number } {
    const attempts = parseLines<AttemptLine>(this.attemptsPath).parsed;
    const last = new Map(attempts.map((line) => [line.attempt, line.elapsedMs]));
    return { count: last.size, elapsedMs: [...last.values()].reduce((sum, ms) => sum + ms, 0) };
  }

  /** Notes how long this attempt has taken so far (called as episodes end, so a crash loses little). */
  noteAttempt(line: AttemptLine): void {
    appendFileSync(this.attemptsPath, `${JSON.stringify(line)}\n`);
  }
}
