import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile, truncate } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { defineOptions, endsCleanly, fsyncPath, sizeOf, writeFileAtomically, type JSONSchemaType } from '@turngym/core';
import { isSystemError, RunDirectoryError } from './rl-errors';
import { claimRunLock, RUN_LOCK_FILE } from './run-lock';
import { appendTrajectories, type Trajectory } from './trajectory';

/** What `run.json` records: enough to tell runs apart and to repeat one. */
export interface RunInfo {
  /** The trainer, e.g. `grpo` or `tree-grpo`. */
  readonly algorithm: string;
  readonly envId: string;
  readonly seed: number;
  /** A free-form name for tables and plots. */
  readonly label?: string;
  /** The trainer's full arguments as run (JSON), so the run can be repeated and a resume checked. */
  readonly args: Record<string, unknown>;
  /** ISO 8601 time the run first started; a resume keeps it. */
  readonly startedAt: string;
}

/** `RunInfo` as a trainer gives it: `startedAt` defaults to now. */
export type NewRunInfo = Omit<RunInfo, 'startedAt'> & { readonly startedAt?: string };

/**
 * One line of `metrics.jsonl`: the iteration, CleanRL's `global_step` (env steps so far), and numbers
 * under CleanRL's names (`charts/episodic_return`, `losses/policy_loss`, `losses/approx_kl`, …).
 */
export interface MetricsRow {
  readonly iteration: number;
  readonly global_step: number;
  readonly [metric: string]: number;
}

/** The files of a run directory. */
export const RUN_FILES = {
  info: 'run.json',
  metrics: 'metrics.jsonl',
  trajectories: 'trajectories.jsonl',
  checkpoint: 'checkpoint',
  /** What happened to the run besides its iterations (a trajectories file started afresh), one JSON line each. */
  notes: 'notes.jsonl',
} as const;

/** One line of `notes.jsonl`. */
export interface RunNote {
  /** ISO 8601 time it was written. */
  readonly at: string;
  /** The first iteration it concerns. */
  readonly iteration: number;
  readonly note: string;
}

/** Byte lengths of the append-only files, as a checkpoint records them. */
export interface RunFileSizes {
  readonly metrics: number;
  readonly trajectories: number;
}

export interface OpenOrCreateOptions {
  /** `args` fields that may differ from the stored run.json on a resume (e.g. `iterations`, to extend a run). */
  readonly ignoreArgs?: readonly string[];
  /**
   * Each arg's default: an arg the stored run.json lacks counts as its default, so a run recorded before
   * the trainer had that arg resumes as long as the arg is left at the default it then behaved as.
   */
  readonly defaults?: Readonly<Record<string, unknown>>;
}

const runInfoSchema: JSONSchemaType<RunInfo> = {
  type: 'object',
  additionalProperties: false,
  required: ['algorithm', 'envId', 'seed', 'args', 'startedAt'],
  properties: {
    algorithm: { type: 'string', minLength: 1 },
    envId: { type: 'string', minLength: 1 },
    seed: { type: 'integer' },
    label: { type: 'string', nullable: true },
    args: { type: 'object', required: [], additionalProperties: true },
    startedAt: { type: 'string', format: 'date-time' },
  },
};

const validateRunInfo = defineOptions<RunInfo>('run.json', runInfoSchema);

/**
 * A file-system error met while claiming `path` (a read-only file system, no permission), as a `RunDirectoryError`
 * that names the directory and what is wrong with it; Node's recursive mkdir says ENOENT, "no such file or directory",
 * on a read-only file system, of a parent that exists. Other errors (a run in use) pass through.
 */
function notWritable(path: string, error: unknown): unknown {
  if (!isSystemError(error)) return error;
  // mkdir says EEXIST of a file in the way, which read as a storage problem (a typo'd --run-dir naming a file).
  const inTheWay = existingNonDirectory(path);
  if (inTheWay !== undefined) {
    return new RunDirectoryError(
      path,
      `cannot hold a run: ${inTheWay} is a file, not a directory. Choose a directory for the run.`,
      { cause: error },
    );
  }
  let reason = (error as Error).message;
  let existing = resolve(path);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    accessSync(existing, constants.W_OK);
  } catch (denied) {
    reason = `${existing} is not writable: ${(denied as Error).message}`;
  }
  return new RunDirectoryError(
    path,
    `cannot be written (${reason}); a run needs a writable directory (to resume a run kept on read-only storage, copy it somewhere writable).`,
    { cause: error },
  );
}

/** `path` itself, or the first of its parents, where that exists and is not a directory. */
function existingNonDirectory(path: string): string | undefined {
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) return at;
    } catch {
      // absent (or unreadable): look at its parent
    }
    if (dirname(at) === at) return undefined;
  }
}

/** JSON with object keys sorted, so two equal values compare equal as text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

function checkMetricsRow(row: MetricsRow): void {
  const where = `metrics row${Number.isInteger(row.iteration) ? ` for iteration ${row.iteration}` : ''}`;
  if (!Number.isInteger(row.iteration) || row.iteration < 0) {
    throw new RangeError(`${where}: "iteration" must be a non-negative integer, got ${String(row.iteration)}.`);
  }
  if (typeof row.global_step !== 'number' || !(row.global_step >= 0)) {
    throw new RangeError(`${where}: "global_step" must be a number ≥ 0, got ${String(row.global_step)}.`);
  }
  for (const [name, value] of Object.entries(row)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new RangeError(
        `${where}: metric "${name}" is ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))}; ` +
          'every metric must be a finite number (a NaN or infinite loss means the update diverged: check the learning rate and the loss inputs).',
      );
    }
  }
}

/** Parses metrics.jsonl text; a last line without its newline is a torn write and is left out. */
function parseMetrics(text: string, path: string): MetricsRow[] {
  const lines = text.split('\n');
  lines.pop(); // '' after the final newline, or the torn tail of a killed write
  return lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, index }) => {
      try {
        return JSON.parse(line) as MetricsRow;
      } catch (error) {
        throw new RunDirectoryError(path, `line ${index + 1} is not JSON (${(error as Error).message}).`);
      }
    });
}

/**
 * What stopped an append, by its code: "a full disk" was said of every failure, a file system remounted read-only
 * under a running trainer included.
 */
function appendFailureCause(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EROFS':
      return 'the file system is read-only: make it writable, or copy the run somewhere writable';
    case 'EACCES':
    case 'EPERM':
      return 'no permission to write the file: give write access';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'EFBIG':
      return 'the file grew past the limit on file sizes';
    case 'ENOSPC':
      return 'a full disk';
    default:
      return 'the error above';
  }
}

/**
 * A training run's directory: `run.json` (what ran), `metrics.jsonl` (one row per iteration),
 * `trajectories.jsonl` (every rollout) and `checkpoint/` (see `saveTrainingCheckpoint`). The JSONL files
 * are append-only, so a checkpoint can record their lengths and a resume can cut them back to exactly
 * the iterations the checkpoint holds.
 */
export class RunDirectory {
  readonly infoPath: string;
  readonly metricsPath: string;
  readonly trajectoriesPath: string;
  readonly checkpointPath: string;
  readonly notesPath: string;
  private lastRowIteration: number | null = null;
  /** Whether a file ends mid-line (a killed write) and must be cut back before anything is appended. */
  private torn = false;
  /** The release of this object's claim on the run's lock; undefined for a run opened to read. */
  private releaseLock: (() => void) | undefined;
  /**
   * Whether this object was opened to read (`open`): it holds no lock, and writing through it (a resume) went past
   * the lock and past the refusal of a second writer in this process, mixing two writers' files.
   */
  private readOnly = true;
  private closed = false;

  private constructor(
    readonly path: string,
    readonly info: RunInfo,
  ) {
    this.infoPath = join(path, RUN_FILES.info);
    this.metricsPath = join(path, RUN_FILES.metrics);
    this.trajectoriesPath = join(path, RUN_FILES.trajectories);
    this.checkpointPath = join(path, RUN_FILES.checkpoint);
    this.notesPath = join(path, RUN_FILES.notes);
  }

  /** Starts a run in `path` (created if needed); a directory that already holds a run is an error. */
  static async create(path: string, info: NewRunInfo): Promise<RunDirectory> {
    return RunDirectory.claim(path, info, null);
  }

  /**
   * Opens an existing run to read it (its info, metrics, checkpoint files). It holds no lock, so it writes nothing:
   * appends, roll-backs and checkpoints through it are refused (another process may be writing the run). To resume
   * a run, open it with `openOrCreate`.
   */
  static async open(path: string): Promise<RunDirectory> {
    const infoPath = join(path, RUN_FILES.info);
    let text: string;
    try {
      text = await readFile(infoPath, 'utf8');
    } catch (error) {
      throw new RunDirectoryError(path, `holds no run (${RUN_FILES.info} cannot be read).`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new RunDirectoryError(path, `${RUN_FILES.info} is not JSON (${(error as Error).message}).`);
    }
    const run = new RunDirectory(path, validateRunInfo(parsed));
    await run.refresh();
    return run;
  }

  /**
   * Opens the run in `path` if there is one, checking that it is this run (same algorithm, env, seed,
   * label and args, but for `ignoreArgs`), or else creates it. Follow with `loadTrainingCheckpoint`.
   */
  static async openOrCreate(path: string, info: NewRunInfo, options: OpenOrCreateOptions = {}): Promise<RunDirectory> {
    return RunDirectory.claim(path, info, options);
  }

  /**
   * `create` (`resume` null) and `openOrCreate` (`resume` its options): one path, so the two cannot drift apart.
   * The lock is claimed before anything is read or written, and only then is it decided whether the run exists:
   * decided before it, two commands started together both went to create it, and the one that lost the lock race
   * was refused as "already holds a run" though it had asked to resume. A run this process already has open for
   * writing is refused: two trainings of one run in one program (two `train()` calls at once) deleted each
   * other's checkpoint in progress and mixed their metrics, and the run lock, not reentrant, refuses it.
   */
  private static async claim(
    path: string,
    info: NewRunInfo,
    resume: OpenOrCreateOptions | null,
  ): Promise<RunDirectory> {
    const full = validateRunInfo({ ...info, startedAt: info.startedAt ?? new Date().toISOString() });
    if (path.trim() === '') throw new RunDirectoryError(JSON.stringify(path), 'is not a directory path.');
    // A refused create leaves no directory behind, nor a lock in someone else's.
    if (resume === null) RunDirectory.refuseExisting(path);
    let releaseLock: () => void;
    try {
      await mkdir(path, { recursive: true });
      // Held from here, not from when the run is returned: a second call that runs while this one awaits its
      // writes finds it taken (the run lock is not reentrant).
      releaseLock = claimRunLock(path);
    } catch (error) {
      throw notWritable(path, error);
    }
    try {
      let run: RunDirectory;
      if (existsSync(join(path, RUN_FILES.info))) {
        // Created by another process between the check above and the claim.
        if (resume === null) RunDirectory.refuseExisting(path);
        run = await RunDirectory.checkResume(path, info, resume ?? {});
      } else {
        RunDirectory.refuseExisting(path);
        await writeFileAtomically(join(path, RUN_FILES.info), `${JSON.stringify(full, null, 2)}\n`);
        run = new RunDirectory(path, full);
        await run.refresh();
      }
      run.releaseLock = releaseLock;
      run.readOnly = false;
      return run;
    } catch (error) {
      releaseLock();
      throw error;
    }
  }

  /**
   * Refuses a directory that holds a run's files: a run (to create another), or the remains of one whose run.json
   * is gone (starting over there would wipe its metrics and checkpoint).
   */
  private static refuseExisting(path: string): void {
    const found = [RUN_FILES.info, RUN_FILES.metrics, RUN_FILES.trajectories, RUN_FILES.checkpoint].find((file) =>
      existsSync(join(path, file)),
    );
    if (found === undefined) return;
    if (found === RUN_FILES.info) {
      throw new RunDirectoryError(
        path,
        `already holds a run (${found}); choose another directory, or remove this one to start over (code that resumes a run opens it with RunDirectory.openOrCreate).`,
      );
    }
    throw new RunDirectoryError(
      path,
      `holds a run's ${found} but no ${RUN_FILES.info}, so it can neither be resumed nor started over without ` +
        `losing it: restore ${RUN_FILES.info}, or choose another directory, or remove this one to start over.`,
    );
  }

  /** The run in `path`, if it is the run `info` describes (`openOrCreate`'s check). */
  private static async checkResume(
    path: string,
    info: NewRunInfo,
    options: OpenOrCreateOptions,
  ): Promise<RunDirectory> {
    const run = await RunDirectory.open(path);
    const stored = run.info;
    const differences: string[] = [];
    for (const field of ['algorithm', 'envId', 'seed', 'label'] as const) {
      if ((stored[field] ?? null) !== (info[field] ?? null)) {
        differences.push(
          `${field}: stored ${JSON.stringify(stored[field] ?? null)}, now ${JSON.stringify(info[field] ?? null)}`,
        );
      }
    }
    const ignored = new Set(options.ignoreArgs ?? []);
    const keys = new Set([...Object.keys(stored.args), ...Object.keys(info.args)]);
    for (const key of [...keys].sort()) {
      if (ignored.has(key)) continue;
      const storedValue = key in stored.args ? stored.args[key] : options.defaults?.[key];
      const [before, now] = [canonicalJson(storedValue), canonicalJson(info.args[key])];
      if (before !== now) differences.push(`args.${key}: stored ${before ?? 'absent'}, now ${now ?? 'absent'}`);
    }
    if (differences.length > 0) {
      throw new RunDirectoryError(
        path,
        `holds another run than the one asked to resume (${differences.join('; ')}). Use a new directory, or pass the stored arguments.`,
      );
    }
    return run;
  }

  /**
   * Lets go of the run: releases its lock, so another process (or this one, later) may resume it, and refuses
   * appends from here on. A trainer closes its run when it ends, however it ends; without it a long-lived process
   * (a notebook, a sweep, a server) held every run it ever trained until it exited. Idempotent; a run opened with
   * `open` (to read it) holds no lock. A lock the file system will not remove (remounted read-only under the run)
   * is left with a warning (`TURNGYM_RUN_LOCK_LEFT`), not thrown: trainers close in `finally`, where a throw
   * replaced the error that ended the run (the failed append or save) with one about the lock.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const release = this.releaseLock;
    this.releaseLock = undefined;
    try {
      release?.();
    } catch (error) {
      if (!isSystemError(error)) throw error;
      // Harmless once this process exits: the lock is then a dead process's, which the next claim takes over.
      process.emitWarning(
        `${join(this.path, RUN_LOCK_FILE)} could not be removed (${(error as Error).message}); the next run of ` +
          `${this.path} takes it over once this process has exited`,
        { code: 'TURNGYM_RUN_LOCK_LEFT' },
      );
    }
  }

  /** The iteration of the last complete metrics row, or null before the first. */
  get lastIteration(): number | null {
    return this.lastRowIteration;
  }

  /**
   * Appends one row to metrics.jsonl. Iterations must increase (one row per iteration), and every value
   * must be a finite number: a NaN is an error naming the metric, never a silent `null` in the file.
   */
  async appendMetrics(row: MetricsRow): Promise<void> {
    checkMetricsRow(row);
    this.assertAppendable();
    if (this.lastRowIteration !== null && row.iteration <= this.lastRowIteration) {
      throw new RunDirectoryError(
        this.path,
        `metrics row for iteration ${row.iteration} comes after iteration ${this.lastRowIteration}: iterations must increase (one row each).`,
      );
    }
    const { iteration, global_step: globalStep, ...metrics } = row;
    await this.appending(this.metricsPath, () =>
      appendFile(this.metricsPath, `${JSON.stringify({ iteration, global_step: globalStep, ...metrics })}\n`),
    );
    this.lastRowIteration = iteration;
  }

  /** Appends rollouts to trajectories.jsonl (one JSON trajectory a line). */
  async appendTrajectories(trajectories: readonly Trajectory[]): Promise<void> {
    this.assertAppendable();
    await this.appending(this.trajectoriesPath, () => appendTrajectories(this.trajectoriesPath, trajectories));
  }

  /** Appends a line to notes.jsonl: what a reader of the run's files must know (rollouts missing from the log). */
  async appendNote(iteration: number, note: string): Promise<void> {
    this.assertOpen();
    const line: RunNote = { at: new Date().toISOString(), iteration, note };
    await this.appending(this.notesPath, async () => {
      await appendFile(this.notesPath, `${JSON.stringify(line)}\n`);
      await fsyncPath(this.notesPath);
    });
  }

  /** The lines of notes.jsonl (none when it does not exist); a torn last line, from a killed write, is left out. */
  async readNotes(): Promise<RunNote[]> {
    if (!existsSync(this.notesPath)) return [];
    const lines = (await readFile(this.notesPath, 'utf8')).split('\n');
    lines.pop(); // '' after the final newline, or the torn tail of a killed write
    return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as RunNote);
  }

  /**
   * Runs an append to `path`. One that fails (a full disk) may have written part of its line: the file is then torn,
   * and further appends are refused until a resume cuts it back, or a row written after the failure would glue onto
   * the part and corrupt the file mid-way. The error names the file, which Node's write errors do not.
   */
  private async appending(path: string, append: () => Promise<void>): Promise<void> {
    try {
      await append();
    } catch (error) {
      if (!isSystemError(error)) throw error;
      this.torn = true;
      throw new RunDirectoryError(
        this.path,
        `appending to ${path} failed (${(error as Error).message}); the run resumes from its last checkpoint once the cause is fixed (${appendFailureCause(error)}).`,
        { cause: error },
      );
    }
  }

  /** The complete rows of metrics.jsonl (a torn last line, from a killed write, is left out). */
  async readMetrics(): Promise<MetricsRow[]> {
    if (!existsSync(this.metricsPath)) return [];
    return parseMetrics(await readFile(this.metricsPath, 'utf8'), this.metricsPath);
  }

  /** Flushes the JSONL files to disk, so a checkpoint never counts rows a power cut could lose. */
  async sync(): Promise<void> {
    this.assertOpen();
    await fsyncPath(this.metricsPath);
    await fsyncPath(this.trajectoriesPath);
  }

  /** Current byte lengths of the JSONL files (what a checkpoint records). */
  async fileSizes(): Promise<RunFileSizes> {
    return { metrics: await sizeOf(this.metricsPath), trajectories: await sizeOf(this.trajectoriesPath) };
  }

  /**
   * Cuts the JSONL files back to `sizes` (a checkpoint's), dropping rows of iterations after it and any
   * torn line. A file shorter than `sizes` has lost rows the checkpoint counts on: an error.
   */
  async rollBack(sizes: RunFileSizes, why = 'the checkpoint'): Promise<void> {
    this.assertOpen();
    for (const [path, size] of [
      [this.metricsPath, sizes.metrics],
      [this.trajectoriesPath, sizes.trajectories],
    ] as const) {
      const current = await sizeOf(path);
      if (current < size) {
        const wayOut =
          path === this.trajectoriesPath
            ? ` It is the run's log of rollouts, which training does not read back: to resume without the rows it ` +
              `lost, move it aside (e.g. to ${RUN_FILES.trajectories}.partial) and run again; the run then goes on ` +
              `with a fresh ${RUN_FILES.trajectories}, noted in ${RUN_FILES.notes}, keeping its metrics and checkpoint.`
            : ` Restore it (from a backup or a copy of the run), or delete the run directory to start the run over.`;
        throw new RunDirectoryError(
          this.path,
          `${path} has ${current} bytes but ${why} counts ${size}: rows it holds are gone, so the run cannot resume from it.${wayOut}`,
        );
      }
      if (current > size) await truncate(path, size);
      if (!(await endsCleanly(path))) {
        throw new RunDirectoryError(
          this.path,
          `${path} cut back to ${size} bytes ends mid-line: ${why} does not match it.`,
        );
      }
    }
    await this.sync();
    await this.refresh();
  }

  /**
   * Refuses writes to a closed run (its lock is released, and another process may be writing it now) and to one
   * opened to read.
   */
  assertOpen(): void {
    if (this.closed) {
      throw new RunDirectoryError(
        this.path,
        'is closed (its lock released, so another process may be writing it); open it again to write to it.',
      );
    }
    if (this.readOnly) {
      throw new RunDirectoryError(
        this.path,
        'was opened to read (RunDirectory.open), which holds no lock: another process may be writing it. Open it ' +
          'with RunDirectory.openOrCreate to write to it (to resume it).',
      );
    }
  }

  private assertAppendable(): void {
    this.assertOpen();
    if (this.torn) {
      throw new RunDirectoryError(
        this.path,
        'a JSONL file ends in a torn line (a run killed mid-write); resume with loadTrainingCheckpoint, which cuts it back, before appending.',
      );
    }
  }

  private async refresh(): Promise<void> {
    const rows = await this.readMetrics();
    this.lastRowIteration = rows.length > 0 ? (rows[rows.length - 1] as MetricsRow).iteration : null;
    this.torn = !(await endsCleanly(this.metricsPath)) || !(await endsCleanly(this.trajectoriesPath));
  }
}
