import { EnvFaultError, Wrapper } from '@turngym/core';
import type { Action, Env, ResetArgs, ResetResult, StepResult } from '@turngym/spec';

/**
 * An env whose episodes of some reset seeds fail at every step with `EnvFaultError`, as an LLM role that fails
 * after its retries does; its forks fail alike, so a search through them fails too.
 */
export class FaultOnSeed extends Wrapper<string, Action> {
  private faulty = false;

  constructor(
    env: Env<string, Action>,
    private readonly isFaulty: (seed: number | undefined) => boolean,
  ) {
    super(env);
  }

  override async reset(args?: ResetArgs): Promise<ResetResult<string>> {
    this.faulty = this.isFaulty(args?.seed);
    return this.env.reset(args);
  }

  override async step(action: Action): Promise<StepResult<string>> {
    if (this.faulty) throw new EnvFaultError(`${this.spec.id}: the buyer role failed after its retries`);
    return this.env.step(action);
  }

  async fork(): Promise<Env<string, Action>> {
    const twin = new FaultOnSeed(await this.env.fork(), this.isFaulty);
    twin.faulty = this.faulty;
    return twin;
  }
}

/**
 * An env whose episodes of some reset seeds fail at their `failingStep`-th played step (the searches' forks do not
 * fail): a role that fails mid-episode, after some moves were played.
 */
export class FaultMidEpisode extends Wrapper<string, Action> {
  private faulty = false;
  private steps = 0;

  constructor(
    env: Env<string, Action>,
    private readonly isFaulty: (seed: number | undefined) => boolean,
    private readonly failingStep: number,
  ) {
    super(env);
  }

  override async reset(args?: ResetArgs): Promise<ResetResult<string>> {
    this.faulty = this.isFaulty(args?.seed);
    this.steps = 0;
    return this.env.reset(args);
  }

  override async step(action: Action): Promise<StepResult<string>> {
    this.steps += 1;
    if (this.faulty && this.steps === this.failingStep)
      throw new EnvFaultError(`${this.spec.id}: the judge role failed after its retries`);
    return this.env.step(action);
  }

  async fork(): Promise<Env<string, Action>> {
    return this.env.fork();
  }
}
