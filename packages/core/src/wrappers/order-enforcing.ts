import type { Action, Env, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { EnvClosedError, ResetNeededError } from '../errors';
import { Wrapper } from './wrapper';

/**
 * Raises `ResetNeededError` on step before reset or after the episode ended, and `EnvClosedError` after
 * close, for any env (BaseEnv does this itself; envs written against the bare interface may not).
 */
export class OrderEnforcing<Obs = string, Act = Action> extends Wrapper<Obs, Act> {
  private state: 'new' | 'running' | 'ended' | 'closed' = 'new';

  override async reset(args?: ResetArgs): Promise<ResetResult<Obs>> {
    if (this.state === 'closed') throw new EnvClosedError(this.spec.id);
    // A reset that throws has still abandoned the last episode: there is nothing to step into until one succeeds.
    this.state = 'new';
    const result = await this.env.reset(args);
    this.state = 'running';
    return result;
  }

  override async step(action: Act): Promise<StepResult<Obs>> {
    if (this.state === 'closed') throw new EnvClosedError(this.spec.id);
    if (this.state === 'new') throw new ResetNeededError(`${this.spec.id}: call reset() before step().`);
    if (this.state === 'ended')
      throw new ResetNeededError(`${this.spec.id}: the episode has ended; call reset() before step().`);
    const result = await this.env.step(action);
    if (result.terminated || result.truncated) this.state = 'ended';
    return result;
  }

  override async fork(): Promise<Env<Obs, Act>> {
    if (this.state === 'closed') throw new EnvClosedError(this.spec.id);
    const twin = new OrderEnforcing(await this.env.fork());
    twin.state = this.state;
    return twin;
  }

  override async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await this.env.close();
  }
}
