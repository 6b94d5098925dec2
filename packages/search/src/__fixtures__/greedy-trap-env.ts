import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { Action, EnvSpec } from '@turngym/spec';

/**
 * A two-step env with a known optimum that greed misses, for tree-search tests. Three discrete actions.
 * Turn 0: action 0 pays 0.6 now (the trap: nothing pays after it), action 1 pays 0, action 2 is masked out
 * (taking it anyway pays -1). Turn 1: after action 1, action 2 pays `prize`; everything else pays 0. The best
 * plan is 1 then 2 (return `prize`, 1 by default) while a one-step look-ahead takes 0 (0.6); with discount γ
 * the plan is worth γ·prize. Turn 1's observation names the first action (`turn 1 after 1`), so a value hook can
 * tell the two states apart. Forks by BaseEnv's replay; counts open instances so tests can find leaks.
 */
export class GreedyTrapEnv extends BaseEnv<string, Action> {
  static open = 0;
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/greedy-trap-v1',
    summary: 'Skip the small reward now for the prize later.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'discrete', n: 3, labels: ['take 0.6', 'wait', 'claim the prize'] },
    maxTurns: 2,
    rewardRange: [-1, 1],
  };
  private first: number | undefined;

  constructor(readonly prize = 1) {
    super();
    GreedyTrapEnv.open += 1;
  }

  protected spawn(): GreedyTrapEnv {
    return new GreedyTrapEnv(this.prize);
  }

  protected onReset(): EnvResetOutcome<string> {
    this.first = undefined;
    return {
      observation: 'turn 0',
      instructions: 'Pick 0, 1 or 2.',
      info: { actionMask: [true, true, false] },
    };
  }

  protected onStep(action: Action): EnvStepOutcome<string> {
    const index = Number(action);
    if (this.first === undefined) {
      this.first = index;
      const reward = index === 0 ? 0.6 : index === 1 ? 0 : -1;
      const observation = `turn 1 after ${index}`;
      return { observation, reward, terminated: false, info: { actionMask: [true, true, true] } };
    }
    const reward = this.first === 1 && index === 2 ? this.prize : 0;
    return { observation: 'done', reward, terminated: true };
  }

  fingerprint(action: Action): string {
    return `action-${String(action)}`;
  }

  anchor(): string {
    return `turn-${this.turn}`;
  }

  protected override onClose(): void {
    GreedyTrapEnv.open -= 1;
  }
}
