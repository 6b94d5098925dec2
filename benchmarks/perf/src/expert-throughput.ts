import { runEpisode } from '@turngym/core';
import type { Agent, Env } from '@turngym/spec';

export interface ExpertThroughput {
  readonly stepsPerSecond: number;
  readonly episodes: number;
  readonly steps: number;
}

/**
 * Steps per second of one env driven in-process by one agent: the env reused for many episodes (a new task
 * each), the standard `runEpisode` loop, so the figure includes reset, the agent's reading, the env's work and
 * the hooks. A warm-up lets the JIT compile the hot paths before timing.
 */
export async function expertThroughput(
  env: Env<any, any>,
  agent: Agent<any, any>,
  options: { durationMs: number; warmupEpisodes: number },
): Promise<ExpertThroughput> {
  let seed = 0;
  for (let i = 0; i < options.warmupEpisodes; i++) await runEpisode(env, agent, seed++);
  let episodes = 0;
  let steps = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < options.durationMs) {
    for (let i = 0; i < 100; i++) {
      steps += (await runEpisode(env, agent, seed++)).turns;
      episodes += 1;
    }
    elapsed = performance.now() - started;
  }
  await env.close();
  return { stepsPerSecond: steps / (elapsed / 1000), episodes, steps };
}
