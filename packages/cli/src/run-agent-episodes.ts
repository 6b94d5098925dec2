import { runEpisode, type EpisodeOutcome, type RecordSink, type Registry } from '@turngym/core';
import type { Env } from '@turngym/spec';
import type { AgentSource } from './agent-source';

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
  /** Where the recorder writes every episode. */
  sink?: RecordSink;
  onEpisode?: (outcome: EpisodeOutcome) => void;
}

/**
 * Plays `episodes` episodes with up to `concurrency` envs at once and returns the outcomes in seed order.
 * The first error stops the remaining work and is rethrown once every env is closed.
 */
export async function runAgentEpisodes(run: AgentEpisodesOptions): Promise<EpisodeOutcome[]> {
  const outcomes: EpisodeOutcome[] = [];
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    let env: Env<any, any> | undefined;
    try {
      env = await run.registry.make(run.envId, {
        ...(run.options ? { options: run.options } : {}),
        ...(run.sink ? { record: { sink: run.sink, agent: run.agent.name } } : {}),
      });
      while (!failed && next < run.episodes) {
        const seed = run.seed + next;
        next += 1;
        const agent = run.agent.create({ env, seed });
        try {
          const outcome = await runEpisode(env, agent, seed);
          outcomes.push(outcome);
          run.onEpisode?.(outcome);
        } finally {
          await agent.close?.();
        }
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      await env?.close();
    }
  };
  const workers = Math.max(1, Math.min(run.concurrency ?? 1, run.episodes));
  const results = await Promise.allSettled(Array.from({ length: workers }, worker));
  const rejection = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejection) throw rejection.reason;
  return outcomes.sort((a, b) => a.seed - b.seed);
}
