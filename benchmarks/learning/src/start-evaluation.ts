import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel } from '@turngym/lm';
import { ChatTurnFormat, evaluatePolicy, installedEnvRegistry, testSplitOptions } from '@turngym/rl';
import type { Experiment } from './experiments';

/** The warm start scored exactly as the RL trainers score their policy: `<sft dir>/start-eval.json`. */
export interface StartEvaluation {
  readonly checkpoint: string;
  readonly episodes: number;
  readonly successRate: number;
  readonly meanReturn: number;
  /** Per test seed 0, 1, …: '1' where the episode succeeded. */
  readonly wins: string;
}

const FILE = 'start-eval.json';

/**
 * The SFT stage's own evaluation may use other test seeds, caps or fewer episodes than the RL runs (it did:
 * 50 episodes, whose seeds 0–49 happen to be harder than 0–199). The start an RL run is compared with must be
 * measured the way the run measures itself: greedy, test seeds 0 … evalEpisodes − 1, the RL rollout caps.
 * An RL run's LoRA adapter starts with B = 0, so the checkpoint alone is the run's policy at iteration 0.
 */
export async function evaluateStart(checkpoint: string, experiment: Experiment): Promise<StartEvaluation> {
  const saved = readStartEvaluation(checkpoint);
  const episodes = Number(experiment.rl.evalEpisodes);
  if (saved && saved.episodes === episodes) return saved;
  const registry = installedEnvRegistry();
  const options = testSplitOptions(registry, experiment.envId, experiment.envOptions);
  const model = await loadModel(checkpoint, { backend: 'wasm' });
  try {
    const evaluation = await evaluatePolicy({
      policy: { model, format: new ChatTurnFormat(model.tokenizer) },
      makeEnv: () => registry.make(experiment.envId, { options }),
      envId: experiment.envId,
      seeds: Array.from({ length: episodes }, (_, seed) => seed),
      options: {
        maxActionTokens: Number(experiment.rl.maxActionTokens),
        maxRolloutTokens: Number(experiment.rl.maxRolloutTokens),
        instructions: experiment.rl.instructions === true,
      },
    });
    const result: StartEvaluation = {
      checkpoint,
      episodes,
      successRate: evaluation.successRate,
      meanReturn: evaluation.meanReturn,
      wins: evaluation.trajectories.map((trajectory) => (trajectory.success === true ? '1' : '0')).join(''),
    };
    writeFileSync(join(checkpoint, FILE), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    model.dispose();
  }
}

export function readStartEvaluation(checkpoint: string): StartEvaluation | undefined {
  const path = join(checkpoint, FILE);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as StartEvaluation) : undefined;
}
