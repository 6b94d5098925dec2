import { runEpisode } from '@turngym/core';
import { MathThoughtEnv, MathThoughtExpert } from '@turngym/env-math-thought';

/**
 * Steps per second of `turngym/math-thought-v1` (calculator-free) driven in-process by its scripted expert:
 * one env reused for many episodes (a new generated problem each), the standard `runEpisode` loop, so the
 * figure includes reset, problem generation, factor reading, answer checking and the hooks. Goal: >= 50k.
 */
export async function mathThoughtThroughput(options: {
  durationMs: number;
}): Promise<{ stepsPerSecond: number; episodes: number; steps: number }> {
  const env = new MathThoughtEnv({ calculator: false });
  const expert = new MathThoughtExpert(env);
  let seed = 0;
  // Warm-up: let the JIT compile the hot paths before timing.
  for (let i = 0; i < 500; i++) await runEpisode(env, expert, seed++);
  let episodes = 0;
  let steps = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < options.durationMs) {
    for (let i = 0; i < 200; i++) {
      const outcome = await runEpisode(env, expert, seed++);
      steps += outcome.turns;
      episodes += 1;
    }
    elapsed = performance.now() - started;
  }
  await env.close();
  return { stepsPerSecond: steps / (elapsed / 1000), episodes, steps };
}
