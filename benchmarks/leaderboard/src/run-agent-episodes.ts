import {
  describeError,
  MemoryRecordSink,
  runEpisode,
  startEpisodeRecord,
  type AgentStop,
  type EnvDependencies,
  type EpisodeOutcome,
  type EpisodeRecord,
  type RecordSink,
  type Registry,
} from '@turngym/core';
import type { Agent, Env } from '@turngym/spec';
import type { EpisodeError } from './bench-result';
import { ErrorStreak } from './error-streak';
import type { PlannedEpisode } from './suite';
import { isEpisodeError } from './suite-agent';

/** Where the agents of a run come from: one fresh agent per episode, all from the same source. */
export interface AgentSource {
  /** Written into every episode record. */
  readonly name: string;
  create(context: { env: Env<any, any>; seed: number }): Agent<any, any>;
  close(): Promise<void>;
}

/** What became of one planned episode. `records` are the recorder's records of it (when recording). */
export type EpisodeResult =
  | { status: 'ok'; episode: PlannedEpisode; outcome: EpisodeOutcome; records: EpisodeRecord[] }
  | { status: 'errored'; episode: PlannedEpisode; error: unknown; records: EpisodeRecord[] };

export interface PlayEpisodesOptions {
  registry: Registry;
  envId: string;
  agent: AgentSource;
  episodes: readonly PlannedEpisode[];
  /** Env options for make(). */
  options?: Record<string, unknown>;
  /** Turn limit (default: the env's). */
  maxTurns?: number;
  dependencies?: EnvDependencies;
  /** Episodes in flight at once; each worker has its own env instance. */
  concurrency?: number;
  /** Record every episode (core's EpisodeRecorder) and hand the records to `onEpisode`. */
  record?: boolean;
  /**
   * Errors that end only their episode (an LLM call that failed, an env fault): the episode is reported as
   * errored, its env is closed and rebuilt, and the run goes on. Any other error stops the run.
   */
  isEpisodeError?: (error: unknown) => boolean;
  /** Called as each episode ends, in completion order. Throwing stops the run (that error is rethrown). */
  onEpisode?: (result: EpisodeResult) => void;
  /** Once aborted, no further episode starts; the ones in flight end as usual (Ctrl-C). */
  signal?: AbortSignal;
}

/**
 * The records of an episode that failed: the recorder's incomplete record gets the error; an episode that
 * failed before its reset returned has none, so one is written with the error and no steps.
 */
function erroredRecords(
  records: EpisodeRecord[],
  env: Env<any, any>,
  run: PlayEpisodesOptions,
  episode: PlannedEpisode,
  error: unknown,
): EpisodeRecord[] {
  const description = describeError(error);
  if (records.length > 0)
    return records.map((record) => (record.complete ? record : { ...record, error: description }));
  const failed = startEpisodeRecord({
    episodeId: `${env.spec.id}#${episode.seed}.failed`,
    envId: env.spec.id,
    envVersion: env.spec.packageVersion ?? null,
    seed: episode.seed,
    resetOptions: episode.resetOptions ?? null,
    agent: run.agent.name,
    instructions: null,
    initialObservation: null,
  });
  return [{ ...failed, error: description }];
}

/**
 * The records of an episode the agent stopped: the recorder's incomplete record keeps the reason in `error` (the
 * record's one place for why it did not end); the journal and the result score the episode as a failure.
 */
function stoppedRecords(records: EpisodeRecord[], stop: AgentStop): EpisodeRecord[] {
  const description = { code: stop.code, message: `agent stopped (${stop.reason}): ${stop.message}`, retryable: false };
  return records.map((record) => (record.complete ? record : { ...record, error: description }));
}

/**
 * Plays planned episodes with up to `concurrency` envs at once. Each episode plays its own seed (and reset
 * options) whatever the concurrency, so results do not depend on scheduling. The first error that is not an
 * episode error stops the remaining work and is rethrown once every env is closed.
 */
export async function playEpisodes(run: PlayEpisodesOptions): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    const buffer = new MemoryRecordSink();
    let env: Env<any, any> | undefined;
    const makeEnv = (): Promise<Env<any, any>> =>
      run.registry.make(run.envId, {
        ...(run.options ? { options: run.options } : {}),
        ...(run.maxTurns !== undefined ? { maxTurns: run.maxTurns } : {}),
        ...(run.dependencies ? { dependencies: run.dependencies } : {}),
        ...(run.record ? { record: { sink: buffer as RecordSink, agent: run.agent.name } } : {}),
      });
    try {
      while (!failed && !run.signal?.aborted && next < run.episodes.length) {
        // An env that never waits on I/O runs episode after episode in microtasks, where a signal's handler would
        // never get its turn: with a signal to watch, each episode starts after the event loop has had one.
        if (run.signal) {
          await new Promise((resolve) => setImmediate(resolve));
          // Meanwhile the signal may have come, or the other workers taken the last episodes.
          if (run.signal.aborted || failed || next >= run.episodes.length) break;
        }
        const episode = run.episodes[next] as PlannedEpisode;
        next += 1;
        const current = (env ??= await makeEnv());
        const agent = run.agent.create({ env: current, seed: episode.seed });
        let result: EpisodeResult;
        try {
          const outcome = await runEpisode(current, agent, episode.seed, episode.resetOptions);
          if (outcome.agentStop) {
            // The agent stopped mid-episode (its context is full): a scored failure. Closing the env writes the
            // episode's record now, incomplete and with the reason, instead of at the next episode's reset.
            env = undefined;
            await current.close().catch(() => {});
            const records = run.record ? stoppedRecords(buffer.records.splice(0), outcome.agentStop) : [];
            result = { status: 'ok', episode, outcome, records };
          } else {
            result = { status: 'ok', episode, outcome, records: buffer.records.splice(0) };
          }
        } catch (error) {
          if (!run.isEpisodeError?.(error)) throw error;
          // The env may be mid-episode or broken: closing it flushes the partial record, and the next
          // episode gets a fresh one.
          env = undefined;
          await current.close().catch(() => {});
          const records = run.record ? erroredRecords(buffer.records.splice(0), current, run, episode, error) : [];
          result = { status: 'errored', episode, error, records };
        } finally {
          await agent.close?.();
        }
        if (!failed) run.onEpisode?.(result);
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      await env?.close();
    }
  };
  const workers = Math.max(1, Math.min(run.concurrency ?? 1, run.episodes.length));
  const results = await Promise.allSettled(Array.from({ length: workers }, worker));
  const rejection = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejection) throw rejection.reason;
}

export interface AgentEpisodesOptions {
  registry: Registry;
  envId: string;
  agent: AgentSource;
  episodes: number;
  /** Episode i plays seed + i, whatever the concurrency, so a run is reproducible. */
  seed: number;
  /** Env options for make(). */
  options?: Record<string, unknown>;
  /** Episodes in flight at once; each has its own env instance. */
  concurrency?: number;
  /** Where the recorder writes every episode, the errored ones too (incomplete, with the error). */
  sink?: RecordSink;
  /** Stop after this many episodes in a row failed (default 10, as `turngym bench`). */
  maxConsecutiveErrors?: number;
  /** Called as each episode ends, errored ones included. */
  onEpisode?: (result: EpisodeResult) => void;
  /** Once aborted, no further episode starts; those in flight end and are counted and recorded. */
  signal?: AbortSignal;
}

export interface AgentEpisodes {
  /** The episodes that ended, in seed order; those the agent stopped (`outcome.agentStop`) are scored failures. */
  outcomes: EpisodeOutcome[];
  /** The episodes that failed for an infrastructure reason (an LLM call, an env fault), in seed order. */
  errors: EpisodeError[];
}

/**
 * `turngym run`: `episodes` episodes from seed `seed` with up to `concurrency` envs at once. An episode that
 * fails for an infrastructure reason (bench's `isEpisodeError`) is recorded and counted, and the run goes on;
 * `maxConsecutiveErrors` failures in a row stop it with a `RunAbortedError`, the episodes so far recorded.
 * Any other error stops the remaining work and is rethrown once every env is closed.
 */
export async function runAgentEpisodes(run: AgentEpisodesOptions): Promise<AgentEpisodes> {
  const outcomes: EpisodeOutcome[] = [];
  const errors: EpisodeError[] = [];
  const streak = new ErrorStreak(run.maxConsecutiveErrors);
  await playEpisodes({
    registry: run.registry,
    envId: run.envId,
    agent: run.agent,
    episodes: Array.from({ length: run.episodes }, (_, i) => ({ key: String(i), seed: run.seed + i })),
    ...(run.options ? { options: run.options } : {}),
    ...(run.concurrency !== undefined ? { concurrency: run.concurrency } : {}),
    record: run.sink !== undefined,
    ...(run.signal ? { signal: run.signal } : {}),
    isEpisodeError,
    onEpisode: (result) => {
      for (const record of result.records) run.sink?.write(record);
      if (result.status === 'ok') outcomes.push(result.outcome);
      else errors.push({ seed: result.episode.seed, ...describeError(result.error) });
      run.onEpisode?.(result);
      const abort = streak.note(
        result,
        () =>
          `${outcomes.length + errors.length} of ${run.episodes} episodes ran` +
          (run.sink ? '; their records are written.' : '.'),
      );
      if (abort) throw abort;
    },
  });
  return {
    outcomes: outcomes.sort((a, b) => a.seed - b.seed),
    errors: errors.sort((a, b) => a.seed - b.seed),
  };
}
