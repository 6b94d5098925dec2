import { mean } from '@turngym/core';
import { collectChains, type EnvFactory } from './chain-rollouts';
import type { RolloutPolicy } from './rollout-engine';
import type { RolloutOptions } from './rollout-options';
import type { Trajectory } from './trajectory';

export interface PolicyEvaluation {
  /** Episodes the env reported success for, over all episodes (an errored one counts as a failure). */
  readonly successRate: number;
  readonly meanReturn: number;
  readonly episodes: number;
  /** Episodes that ended in an env error (reported, and counted as failures). */
  readonly errors: number;
  readonly trajectories: Trajectory[];
}

/**
 * Greedy (temperature 0) episodes on fixed seeds: the test-set score trainers log as `eval/…`. Same
 * seeds and the same policy → the same score, so curves compare across iterations and runs.
 */
export async function evaluatePolicy(request: {
  readonly policy: RolloutPolicy;
  readonly makeEnv: EnvFactory;
  readonly envId: string;
  readonly seeds: readonly number[];
  readonly options?: Partial<RolloutOptions>;
}): Promise<PolicyEvaluation> {
  const trajectories = await collectChains({
    policy: request.policy,
    makeEnv: request.makeEnv,
    envId: request.envId,
    seeds: request.seeds,
    groupSize: 1,
    options: { ...request.options, temperature: 0, topP: 1 },
    idPrefix: 'eval',
  });
  return {
    successRate: mean(trajectories.map((trajectory) => (trajectory.success ? 1 : 0))),
    meanReturn: mean(trajectories.map((trajectory) => trajectory.totalReward)),
    episodes: trajectories.length,
    errors: trajectories.filter((trajectory) => trajectory.stopReason === 'error').length,
    trajectories,
  };
}
