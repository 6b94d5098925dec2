import { runEpisode } from '@turngym/core';
import { SellerEnv, SellerExpert } from '@turngym/env-seller';

/**
 * Steps per second of `turngym/seller-commander-v1` with simulated roles (executor templates, the buyer
 * simulator, the state-reading judge), driven in-process by its scripted expert: one env reused for many
 * episodes (a new persona × product task each), the standard `runEpisode` loop, so the figure includes reset,
 * the expert reading the dialogue, the three roles, the observation text and the hooks. Goal: >= 10k.
 */
export async function sellerThroughput(options: {
  durationMs: number;
}): Promise<{ stepsPerSecond: number; episodes: number; steps: number }> {
  const env = new SellerEnv();
  const expert = new SellerExpert();
  let seed = 0;
  // Warm-up: let the JIT compile the hot paths before timing.
  for (let i = 0; i < 300; i++) await runEpisode(env, expert, seed++);
  let episodes = 0;
  let steps = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < options.durationMs) {
    for (let i = 0; i < 100; i++) {
      const outcome = await runEpisode(env, expert, seed++);
      steps += outcome.turns;
      episodes += 1;
    }
    elapsed = performance.now() - started;
  }
  await env.close();
  return { stepsPerSecond: steps / (elapsed / 1000), episodes, steps };
}
