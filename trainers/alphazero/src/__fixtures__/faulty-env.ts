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
