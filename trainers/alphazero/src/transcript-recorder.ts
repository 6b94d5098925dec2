import { Wrapper } from '@turngym/core';
import type { Action, Env, Info, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { AlphaZeroError } from './alphazero-error';

/** One step of an episode as the agent saw it: its action and what came back. */
export interface TranscriptStep {
  readonly action: number;
  readonly observation: string;
  readonly info: Info;
}

/** An episode so far, as the agent saw it: the first observation and every step since. */
export interface Transcript {
  readonly opening: string;
  readonly openingInfo: Info;
  readonly steps: readonly TranscriptStep[];
}

/** What the env and all its forks have done: a search's cost is the difference before and after it. */
export interface RecorderUsage {
  /** Steps taken (in this env and every fork of it). */
  steps: number;
  /** The LLM roles' tokens of those steps (`info.cost.llmTokens`; a cached answer counts its original usage). */
  llmTokens: number;
}

/**
 * Keeps the transcript of the episode in flight (what the agent saw: observations, infos, its own actions) and
 * copies it into every fork, so a search hook at any node of the tree reads the whole dialogue that led there.
 * The policy-value network reads only this: never the env's hidden state.
 */
export class TranscriptRecorder extends Wrapper<string, Action> {
  private current: Transcript = { opening: '', openingInfo: {}, steps: [] };
  /** Shared by the env and its forks. */
  usage: RecorderUsage = { steps: 0, llmTokens: 0 };

  get transcript(): Transcript {
    return this.current;
  }

  override async reset(args?: ResetArgs): Promise<ResetResult<string>> {
    const result = await this.env.reset(args);
    this.current = { opening: String(result.observation), openingInfo: result.info, steps: [] };
    return result;
  }

  override async step(action: Action): Promise<StepResult<string>> {
    const result = await this.env.step(action);
    // Every step of self-play, search and evaluation passes here: a NaN reward would turn the search's values,
    // the targets z and then the network's weights into NaN, and surface only as a NaN metric.
    if (!Number.isFinite(result.reward)) {
      throw new AlphaZeroError(
        'ALPHAZERO_ENV',
        `${this.env.spec.id} returned reward ${String(result.reward)} for action ${String(action)} at step ` +
          `${this.current.steps.length} of an episode; every reward must be a finite number. Fix the env: the ` +
          'iteration in flight was neither trained on nor saved.',
      );
    }
    this.usage.steps += 1;
    this.usage.llmTokens += result.info.cost?.llmTokens ?? 0;
    // Steps are appended to a new array: a fork shares the old one, never sees this step.
    this.current = {
      ...this.current,
      steps: [
        ...this.current.steps,
        { action: Number(action), observation: String(result.observation), info: result.info },
      ],
    };
    return result;
  }

  async fork(): Promise<Env<string, Action>> {
    const twin = new TranscriptRecorder(await this.env.fork());
    twin.current = this.current;
    twin.usage = this.usage;
    return twin;
  }
}
