import { MathThoughtEnv, MathThoughtExpert } from '@turngym/env-math-thought';
import { expertThroughput, type ExpertThroughput } from './expert-throughput';

/** `turngym/math-thought-v1` (calculator-free) with its scripted expert, in-process. Goal: ≥ 50k steps/s. */
export function mathThoughtThroughput(options: { durationMs: number }): Promise<ExpertThroughput> {
  const env = new MathThoughtEnv({ calculator: false });
  return expertThroughput(env, new MathThoughtExpert(env), { durationMs: options.durationMs, warmupEpisodes: 500 });
}
