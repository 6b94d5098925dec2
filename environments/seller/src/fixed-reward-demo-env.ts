import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { Action, EnvSpec } from '@turngym/spec';

export const FIXED_REWARD_DEMO_ID = 'turngym/fixed-reward-demo-v1';

/**
 * The reference's demo env for the MCTS bot (seed: "MCTS bot 在一个 demo env (只有4个动作, 每个动作的奖励是
 * 固定值) 上验证收敛"): each action always pays the same reward; an episode is `horizon` steps. The best
 * plan repeats the best action, which a converging MCTS must find. Not registered: a test fixture that ships.
 */
export class FixedRewardDemoEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;

  constructor(
    readonly rewards: readonly number[] = [0.2, 0.9, 0.5, 0.1],
    readonly horizon = 1,
  ) {
    super();
    if (rewards.length < 1 || !Number.isInteger(horizon) || horizon < 1)
      throw new RangeError('FixedRewardDemoEnv: rewards must be non-empty and horizon a positive integer');
    this.spec = {
      specificationVersion: 'v1',
      id: FIXED_REWARD_DEMO_ID,
      summary: 'Pick actions with fixed rewards; the best plan repeats the best one.',
      observationSpace: { type: 'text' },
      actionSpace: { type: 'discrete', n: rewards.length, labels: rewards.map((_, index) => `action ${index}`) },
      maxTurns: horizon,
      rewardRange: [Math.min(0, ...rewards), Math.max(0, ...rewards)],
    };
  }

  protected onReset(): EnvResetOutcome<string> {
    return {
      observation: 'Pick an action.',
      instructions: 'Pick an action; each pays a fixed reward.',
      info: { actionMask: this.rewards.map(() => true) },
    };
  }

  protected onStep(action: Action): EnvStepOutcome<string> {
    const index = typeof action === 'number' ? action : Number(action);
    const reward =
      Number.isInteger(index) && index >= 0 && index < this.rewards.length ? (this.rewards[index] as number) : 0;
    const done = this.turn + 1 >= this.horizon;
    return {
      observation: `reward ${reward}`,
      reward,
      terminated: done,
      info: { actionMask: this.rewards.map(() => true) },
    };
  }

  fingerprint(action: Action): string {
    return `action-${String(action)}`;
  }

  anchor(): string {
    return `turn-${this.turn}`;
  }

  protected spawn(): FixedRewardDemoEnv {
    return new FixedRewardDemoEnv(this.rewards, this.horizon);
  }
}
