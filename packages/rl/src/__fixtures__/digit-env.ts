import { BaseEnv, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { Action, EnvSpec } from '@turngym/spec';

export interface DigitEnvOptions {
  /** Turns before the episode is truncated. */
  readonly maxTurns: number;
  /** Throw from step() on this turn (0-based), to test env failures. */
  readonly failAtTurn?: number;
  /** Observation after a wrong guess (long ones test observation cutting). */
  readonly feedback?: string;
  /** Always this digit (a task whose format alone can be learned). */
  readonly fixedDigit?: number;
  /** Reward 0.2 (and the end) for a wrong guess that has some digit: rewards that vary under a random policy. */
  readonly partialCredit?: boolean;
}

/**
 * A test env for the rollout engine: reset names a digit; an action that contains it ends the episode with
 * reward 1; anything else gets `feedback` and continues, truncated after `maxTurns`. Every step is one
 * tool call. Forks by BaseEnv's replay, and counts how many instances are open so tests can find leaks.
 */
export class DigitEnv extends BaseEnv<string, Action> {
  static open = 0;
  readonly spec: EnvSpec;
  private digit = 0;
  private guesses = 0;
  private released = false;

  constructor(readonly options: DigitEnvOptions) {
    super();
    DigitEnv.open += 1;
    this.spec = {
      specificationVersion: 'v1',
      id: 'test/digit-v1',
      summary: 'Say the digit.',
      observationSpace: { type: 'text' },
      actionSpace: { type: 'text' },
      maxTurns: options.maxTurns,
      rewardRange: [0, 1],
    };
  }

  protected spawn(): DigitEnv {
    return new DigitEnv(this.options);
  }

  protected onReset(): EnvResetOutcome<string> {
    this.digit = this.options.fixedDigit ?? this.rng.int(0, 9);
    this.guesses = 0;
    return { observation: `Say ${this.digit}.`, instructions: 'Reply with the digit.' };
  }

  protected onStep(action: Action): EnvStepOutcome<string> {
    const turn = this.guesses++;
    if (turn === this.options.failAtTurn) throw new Error(`digit env failed at turn ${turn}`);
    const text = String(action);
    if (text.includes(String(this.digit)))
      return { observation: '', reward: 1, terminated: true, toolCalls: 1, info: { success: true } };
    if (this.options.partialCredit && /[0-9]/.test(text))
      return { observation: '', reward: 0.2, terminated: true, toolCalls: 1, info: { success: false } };
    return {
      observation: this.options.feedback ?? `No. Say ${this.digit}.`,
      reward: 0,
      terminated: false,
      truncated: this.guesses >= this.options.maxTurns,
      toolCalls: 1,
    };
  }

  fingerprint(action: Action): string {
    return String(action).includes(String(this.digit)) ? 'RIGHT' : 'WRONG';
  }

  anchor(): string {
    return `turn${this.guesses}`;
  }

  override async close(): Promise<void> {
    if (!this.released) DigitEnv.open -= 1;
    this.released = true;
    await super.close();
  }
}
