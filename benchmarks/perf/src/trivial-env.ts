import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { EnvSpec } from '@turngym/spec';

const SPEC: EnvSpec = {
  specificationVersion: 'v1',
  id: 'bench/trivial-v1',
  summary: 'Echo env for measuring per-step overhead.',
  observationSpace: { type: 'text' },
  actionSpace: { type: 'text', examples: ['a'] },
  maxTurns: 1_000_000,
  rewardRange: [0, 1],
};

/** The cheapest possible env: every step returns a constant, so what we time is the stack around it. */
export class TrivialEnv extends BaseEnv<string, string> {
  readonly spec = SPEC;
  constructor(private readonly episodeLength = 100) {
    super();
  }
  protected spawn(): TrivialEnv {
    return new TrivialEnv(this.episodeLength);
  }
  protected onReset(): EnvResetOutcome<string> {
    return { observation: 'go', instructions: 'Say anything.' };
  }
  protected onStep(): EnvStepOutcome<string> {
    const done = this.turn + 1 >= this.episodeLength;
    return { observation: 'ok', reward: done ? 1 : 0, terminated: done, ...(done ? { info: { success: true } } : {}) };
  }
  fingerprint(): string {
    return 'SAY';
  }
  anchor(): string {
    return 'here';
  }
}
