import { RandomAgent, runEpisode } from '@turngym/core';
import { TrivialEnv } from './trivial-env';

/**
 * The baseline for env throughput figures: the same `runEpisode` loop over an env that does nothing, with
 * episodes of `episodeLength` steps. An env's steps/s divided by this is the share of the loop's capacity
 * its own work leaves.
 */
export async function trivialEpisodeRate(options: { durationMs: number; episodeLength: number }): Promise<number> {
  const env = new TrivialEnv(options.episodeLength);
  const agent = new RandomAgent(0);
  let steps = 0;
  let seed = 0;
  const started = performance.now();
  while (performance.now() - started < options.durationMs) {
    for (let i = 0; i < 100; i++) steps += (await runEpisode(env, agent, seed++)).turns;
  }
  return steps / ((performance.now() - started) / 1000);
}
