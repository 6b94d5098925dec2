import type { Action, Env, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { Wrapper } from './wrapper';

/** Truncates the episode after `maxTurns` steps (Gymnasium's TimeLimit, counted in agent turns). */
export class TimeLimit<Obs = string, Act = Action> extends Wrapper<Obs, Act> {
  private elapsed = 0;

  constructor(
    env: Env<Obs, Act>,
    readonly maxTurns: number,
  ) {
    super(env);
    if (!Number.isInteger(maxTurns) || maxTurns < 1)
      throw new RangeError(`maxTurns must be an integer >= 1, got ${maxTurns}`);
  }

  override async reset(args?: ResetArgs): Promise<ResetResult<Obs>> {
    this.elapsed = 0;
    return this.env.reset(args);
  }

  override async step(action: Act): Promise<StepResult<Obs>> {
    const result = await this.env.step(action);
    this.elapsed += 1;
    if (this.elapsed >= this.maxTurns && !result.terminated && !result.truncated) {
      return {
        ...result,
        truncated: true,
        info: { ...result.info, truncatedBy: 'time-limit', success: result.info.success ?? false },
      };
    }
    return result;
  }

  override async fork(): Promise<Env<Obs, Act>> {
    const twin = new TimeLimit(await this.env.fork(), this.maxTurns);
    twin.elapsed = this.elapsed;
    return twin;
  }
}
