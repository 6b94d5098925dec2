import type { Action, Env, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { ResetNeededError } from '../errors';
import { Wrapper } from './wrapper';

/**
 * Truncates the episode after `maxTurns` steps (Gymnasium's TimeLimit, counted in agent turns). The env inside
 * never saw the end, so a step after it is refused here, as the env refuses a step after its own end.
 */
export class TimeLimit<Obs = string, Act = Action> extends Wrapper<Obs, Act> {
  private elapsed = 0;
  private truncatedHere = false;

  constructor(
    env: Env<Obs, Act>,
    readonly maxTurns: number,
  ) {
    super(env);
    if (!Number.isInteger(maxTurns) || maxTurns < 1)
      throw new RangeError(`maxTurns must be an integer >= 1, got ${maxTurns}`);
  }

  override async reset(args?: ResetArgs): Promise<ResetResult<Obs>> {
    // Counted afresh once the env has reset: a reset refused (a step still in flight) leaves the episode going.
    const result = await this.env.reset(args);
    this.elapsed = 0;
    this.truncatedHere = false;
    return result;
  }

  override async step(action: Act): Promise<StepResult<Obs>> {
    if (this.truncatedHere)
      throw new ResetNeededError(
        `${this.spec.id}: the episode was truncated at the turn limit (${this.maxTurns}); call reset() before step().`,
      );
    const result = await this.env.step(action);
    this.elapsed += 1;
    if (this.elapsed >= this.maxTurns && !result.terminated && !result.truncated) {
      this.truncatedHere = true;
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
    twin.truncatedHere = this.truncatedHere;
    return twin;
  }
}
