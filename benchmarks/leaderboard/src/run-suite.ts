import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describeError, type EnvDependencies, type EpisodeRecord, type Registry } from '@turngym/core';
import { validateBenchResult, type BenchResult } from './bench-result';
import { buildBenchResult } from './build-result';
import { DEFAULT_RESAMPLES } from './bootstrap';
import { PreflightError, RunAbortedError, RunMismatchError } from './leaderboard-errors';
import { ErrorStreak } from './error-streak';
import { preflightSuite, type PreflightOptions, type PreflightPlan } from './preflight';
import { RUN_MANIFEST_SCHEMA_ID, RunDirectory, type JournalEntry, type RunManifest } from './run-directory';
import { playEpisodes, type EpisodeResult } from './run-agent-episodes';
import type { LoadedSuite } from './suite';
import { isEpisodeError, type SuiteAgent } from './suite-agent';

/** Where `turngym bench` and `turngym quickstart` write, relative to the working directory. */
export const DEFAULT_OUT_DIR = join('runs', 'leaderboard');

export interface RunSuiteOptions {
  suite: LoadedSuite;
  agent: SuiteAgent;
  registry: Registry;
  /** Results go to `<outDir>/results/<runId>.json`, episodes to `<outDir>/runs/<runId>/`. */
  outDir?: string;
  /** Default `<suite id>--<agent spec>`, made file-safe: the same command resumes the same run. */
  runId?: string;
  /** The leaderboard's name for the row (default: the agent spec). */
  label?: string;
  /** Episodes in flight at once (each with its own env). */
  concurrency?: number;
  /** Start over even where a matching run exists. */
  fresh?: boolean;
  /** A run directory holding another suite, agent or env version: `error` (default) or `restart` it. */
  onMismatch?: 'error' | 'restart';
  /** On resume, run errored episodes again when their error was retryable (default true). */
  retryErrored?: boolean;
  /** Stop (resumably) after this many errored episodes in a row: the endpoint is probably down (default 10). */
  maxConsecutiveErrors?: number;
  /** Run only these envs of the suite. */
  only?: readonly string[];
  resamples?: number;
  /** Plain dependencies for an env (a shared browser pool …). */
  dependencies?: (envId: string) => EnvDependencies | undefined;
  preflight?: Pick<PreflightOptions, 'buildEnvs'>;
  /** After the preflight, before the first episode. */
  onStart?: (start: RunStart) => void;
  /** As each episode ends. */
  onEpisode?: (progress: EpisodeProgress) => void;
  /**
   * Ctrl-C: once aborted, no further episode starts; those in flight end and are journaled, then the run stops
   * with a `RunAbortedError` (its cause the signal's reason) and no result file, and the same call resumes it.
   * Aborted after the last episode started, the run finishes as usual.
   */
  signal?: AbortSignal;
}

export interface RunStart {
  plan: PreflightPlan;
  runId: string;
  runDirectory: string;
  /** Planned episodes of the envs that run. */
  total: number;
  /** Episodes already done by an earlier attempt. */
  done: number;
}

export interface EpisodeProgress {
  envId: string;
  entry: JournalEntry;
  done: number;
  total: number;
  errored: number;
}

export interface SuiteRun {
  result: BenchResult;
  resultPath: string;
  runDirectory: string;
  /** Episodes reused from an earlier attempt. */
  resumed: number;
  plan: PreflightPlan;
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** `quick-v1--openai-gpt-4o-mini`. */
export function defaultRunId(suiteId: string, agentSpec: string): string {
  const slug = agentSpec
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 120);
  return `${suiteId}--${slug || 'agent'}`;
}

function describeMismatch(existing: RunManifest, wanted: RunManifest): string | undefined {
  if (existing.schema !== wanted.schema) return 'it was written by another version of the runner';
  if (existing.suite.sha256 !== wanted.suite.sha256) return `it ran another version of suite ${wanted.suite.id}`;
  if (existing.agent.spec !== wanted.agent.spec || existing.agent.baseURL !== wanted.agent.baseURL) {
    return `it ran agent ${existing.agent.spec}${existing.agent.baseURL ? ` at ${existing.agent.baseURL}` : ''}`;
  }
  if (existing.skipped.join() !== wanted.skipped.join()) return 'it ran another set of envs';
  for (const env of wanted.envs) {
    const before = existing.envs.find((other) => other.envId === env.envId);
    if (!before) return `it did not run ${env.envId}`;
    if (before.packageVersion !== env.packageVersion) {
      return `it ran ${env.envId} version ${before.packageVersion ?? '?'}, installed now: ${env.packageVersion ?? '?'}`;
    }
    if (JSON.stringify(before.options) !== JSON.stringify(env.options) || before.maxTurns !== env.maxTurns) {
      return `it ran ${env.envId} with other options`;
    }
  }
  return undefined;
}

/**
 * Refuses a run id that differs only in case from a run already in `outDir` (`Run1` and `run1`): on a
 * case-insensitive file system (macOS and Windows by default) the two are one directory and one result file,
 * so the second run would resume, or with --fresh wipe, the first. Refused on every system, so an out
 * directory means the same thing wherever it is copied.
 */
function refuseCaseTwin(outDir: string, runId: string): void {
  const lower = runId.toLowerCase();
  const taken = (['runs', 'results'] as const).flatMap((folder) => {
    const path = join(outDir, folder);
    if (!existsSync(path)) return [];
    return readdirSync(path)
      .map((name) => (folder === 'results' ? name.replace(/\.json$/, '') : name))
      .filter((name) => name !== runId && name.toLowerCase() === lower);
  });
  if (taken.length > 0) {
    throw new PreflightError(
      `Run id "${runId}" differs only in case from the run "${taken[0]}" in ${outDir}: on a case-insensitive ` +
        `file system (macOS, Windows) they would share one directory. Pass --run-id ${taken[0]} to resume that ` +
        'run, or choose another id.',
    );
  }
}

/**
 * Runs one agent on one suite: preflight (nothing runs if the agent, an endpoint or the suite's options are
 * wrong), then every planned episode that an earlier attempt has not finished, envs in suite order and up to
 * `concurrency` episodes at once, each journaled as it ends; then the result file.
 *
 * Resumable: the same call after a crash (or Ctrl-C) picks up where the journal ends. Per-episode failures
 * (a model call that failed, an env fault) are journaled as errored, excluded from scores and counted.
 */
export async function runSuite(options: RunSuiteOptions): Promise<SuiteRun> {
  const { suite, agent, registry } = options;
  const outDir = resolve(options.outDir ?? DEFAULT_OUT_DIR);
  const runId = options.runId ?? defaultRunId(suite.id, agent.spec);
  // Checked before any episode: the result schema would refuse them only at the end.
  if (!RUN_ID.test(runId)) {
    throw new PreflightError(`Invalid run id "${runId}": use letters, digits, ".", "_" and "-" (it names files).`);
  }
  if (options.label !== undefined && (options.label.trim() === '' || options.label.length > 200)) {
    throw new PreflightError('A label must have 1 to 200 characters.');
  }
  const plan = await preflightSuite(suite, agent, registry, {
    ...(options.only ? { only: options.only } : {}),
    ...(options.preflight ?? {}),
    ...(options.dependencies ? { dependencies: options.dependencies } : {}),
  });
  const wanted: RunManifest = {
    schema: RUN_MANIFEST_SCHEMA_ID,
    runId,
    label: options.label ?? agent.spec,
    suite: { id: suite.id, sha256: suite.sha256 },
    agent: { spec: agent.spec, name: agent.name, kind: agent.kind, baseURL: agent.baseURL },
    envs: plan.envs.map((env) => ({
      envId: env.envId,
      packageVersion: env.packageVersion,
      options: env.resolvedOptions,
      maxTurns: env.maxTurns,
    })),
    skipped: plan.skipped.map((env) => env.envId),
    startedAt: new Date().toISOString(),
  };

  refuseCaseTwin(outDir, runId);
  const directory = new RunDirectory(join(outDir, 'runs', runId));
  const release = directory.lock();
  try {
    return await runLocked(options, { suite, agent, registry, outDir, runId, plan, wanted, directory });
  } finally {
    release();
  }
}

interface LockedRun {
  suite: LoadedSuite;
  agent: SuiteAgent;
  registry: Registry;
  outDir: string;
  runId: string;
  plan: PreflightPlan;
  wanted: RunManifest;
  directory: RunDirectory;
}

/** An error of the file system (its `code` is an errno name: ENOSPC, EFBIG, EROFS, EIO, …), not of the run. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

/**
 * Runs a write to the run's files; one the file system refuses (a full disk, a file-size limit, storage gone
 * read-only) stops the run with a `RunAbortedError` that says what was being written and what is kept, where Node's
 * bare "ENOSPC: no space left on device, write" named neither the file nor the way on. What was written before is
 * whole (journal lines are appended after their records, files replaced atomically), so the same command resumes.
 */
function writing(what: string, kept: () => string, write: () => void): void {
  try {
    write();
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    throw new RunAbortedError(
      `${what} failed (${error.message}); ${kept()}: once the cause is fixed (a full disk, a file-size limit), run the same command again to resume.`,
      { cause: error },
    );
  }
}

/** The run itself, while this process holds its directory: resume or start it, play, write the result. */
async function runLocked(options: RunSuiteOptions, run: LockedRun): Promise<SuiteRun> {
  const { suite, agent, registry, outDir, runId, plan, wanted, directory } = run;
  const existing = options.fresh ? undefined : directory.readManifest();
  let manifest = wanted;
  let journal = new Map<string, JournalEntry>();
  if (existing) {
    const mismatch = describeMismatch(existing, wanted);
    if (mismatch && options.onMismatch !== 'restart') {
      throw new RunMismatchError(
        `${directory.directory} holds another run (${mismatch}): pass --fresh to start it over, or --run-id for a new one.`,
      );
    }
    if (!mismatch) {
      manifest = { ...wanted, startedAt: existing.startedAt, label: options.label ?? existing.label };
      const retry = options.retryErrored ?? true;
      writing(
        `resuming the run in ${directory.directory}`,
        () => 'its files are as they were',
        () => {
          journal = directory.recover(
            (entry) => entry.status === 'errored' && retry && entry.error?.retryable === true,
          );
        },
      );
    }
  }
  if (journal.size === 0)
    writing(
      `starting the run in ${directory.directory}`,
      () => 'no episode has run',
      () => directory.create(manifest),
    );
  const resumed = journal.size;

  const total = plan.envs.reduce((sum, env) => sum + env.episodes.length, 0);
  let done = journal.size;
  let errored = [...journal.values()].filter((entry) => entry.status === 'errored').length;
  options.onStart?.({ plan, runId, runDirectory: directory.directory, total, done });

  const previous = directory.previousAttempts();
  const attempt = { attempt: previous.count + 1, startedAt: new Date().toISOString() };
  const started = performance.now();
  let lastNote = 0;
  const kept = (): string => `${done} of ${total} episodes are saved in ${directory.directory}`;
  const noteAttempt = (force: boolean): void => {
    const now = performance.now();
    if (!force && now - lastNote < 2000) return;
    lastNote = now;
    writing(`noting the run's time in ${directory.directory}`, kept, () =>
      directory.noteAttempt({ ...attempt, elapsedMs: now - started }),
    );
  };

  const streak = new ErrorStreak(options.maxConsecutiveErrors);
  try {
    for (const env of plan.envs) {
      const remaining = env.episodes.filter((episode) => !journal.has(episode.key));
      if (remaining.length === 0) continue;
      if (options.signal?.aborted) break;
      const dependencies = options.dependencies?.(env.envId);
      await playEpisodes({
        registry,
        envId: env.envId,
        agent: agent.sourceFor(registry, env.envId),
        episodes: remaining,
        options: env.options,
        ...(env.maxTurns !== null ? { maxTurns: env.maxTurns } : {}),
        ...(dependencies ? { dependencies } : {}),
        concurrency: options.concurrency ?? 1,
        ...(options.signal ? { signal: options.signal } : {}),
        record: true,
        isEpisodeError,
        onEpisode: (result: EpisodeResult) => {
          const { episode } = result;
          const records = result.records.map((record, index): EpisodeRecord => ({
            ...record,
            // Unique in the file and tied to the journal, whatever the worker or the attempt.
            episodeId: `${env.envId}#${episode.seed}@${episode.key}${index > 0 ? `/${index}` : ''}`,
          }));
          const entry: JournalEntry = {
            key: episode.key,
            envId: env.envId,
            seed: episode.seed,
            status: result.status,
            ...(result.status === 'ok'
              ? { outcome: result.outcome }
              : { error: { seed: episode.seed, ...describeError(result.error) } }),
            recordIds: records.map((record) => record.episodeId),
            finishedAt: new Date().toISOString(),
          };
          writing(`saving episode ${episode.key} (${env.envId}, seed ${episode.seed})`, kept, () =>
            directory.append(entry, records),
          );
          journal.set(episode.key, entry);
          done += 1;
          noteAttempt(false);
          if (result.status === 'errored') errored += 1;
          options.onEpisode?.({ envId: env.envId, entry, done, total, errored });
          const abort = streak.note(
            result,
            () =>
              `${done} of ${total} episodes are saved in ${directory.directory}; run the same command again to resume.`,
          );
          if (abort) throw abort;
        },
      });
    }
  } catch (error) {
    // The time of an attempt that failed is noted if it can be; a note that fails too (the same full disk) must
    // not replace the error that says what happened.
    try {
      noteAttempt(true);
    } catch {
      // `error` says what happened
    }
    throw error;
  }
  noteAttempt(true);
  if (!plan.envs.every((env) => env.episodes.every((episode) => journal.has(episode.key)))) {
    // Only the signal ends the loop early without an error: the episodes it did not start are left to a resume.
    throw new RunAbortedError(
      `stopped: ${done} of ${total} episodes are saved in ${directory.directory}; run the same command again to resume.`,
      { cause: options.signal?.reason },
    );
  }

  const resultPath = join(outDir, 'results', `${runId}.json`);
  const records = relative(dirname(resultPath), directory.recordsPath).split(sep).join('/');
  const result = validateBenchResult(
    buildBenchResult({
      manifest,
      suite,
      plan,
      journal,
      records,
      finishedAt: new Date(),
      elapsedMs: previous.elapsedMs + (performance.now() - started),
      resamples: options.resamples ?? DEFAULT_RESAMPLES,
    }),
    resultPath,
  );
  writing(
    `writing the result ${resultPath}`,
    () => `all ${total} episodes are saved in ${directory.directory}`,
    () => {
      mkdirSync(dirname(resultPath), { recursive: true });
      try {
        writeFileSync(`${resultPath}.tmp`, `${JSON.stringify(result, null, 2)}\n`);
        renameSync(`${resultPath}.tmp`, resultPath);
      } catch (error) {
        rmSync(`${resultPath}.tmp`, { force: true });
        throw error;
      }
    },
  );
  return { result, resultPath, runDirectory: directory.directory, resumed, plan };
}
