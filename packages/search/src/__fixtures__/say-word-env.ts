import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { Action, EnvSpec } from '@turngym/spec';

/**
 * A text-action env for tree-search tests: saying `word` ends the episode with reward 1; any other text gets
 * "no" and goes on until `maxTurns`. A text space has no finite action list, so a search needs an `actions` hook.
 */
export class SayWordEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;

  constructor(
    readonly word: string,
    readonly maxTurns = 2,
  ) {
    super();
    this.spec = {
      specificationVersion: 'v1',
      id: 'test/say-word-v1',
      summary: 'Say the word.',
      observationSpace: { type: 'text' },
      actionSpace: { type: 'text' },
      maxTurns,
      rewardRange: [0, 1],
    };
  }

  protected spawn(): SayWordEnv {
    return new SayWordEnv(this.word, this.maxTurns);
  }

  protected onReset(): EnvResetOutcome<string> {
    return { observation: 'Say the word.', instructions: 'Say one word.' };
  }

  protected onStep(action: Action): EnvStepOutcome<string> {
    const right = String(action).trim() === this.word;
    return {
      observation: right ? 'yes' : 'no',
      reward: right ? 1 : 0,
      terminated: right,
      truncated: !right && this.turn + 1 >= this.maxTurns,
    };
  }

  fingerprint(action: Action): string {
    return `said-${String(action)}`;
  }

  anchor(): string {
    return `turn-${this.turn}`;
  }
}
