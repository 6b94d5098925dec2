import type { Action, Env, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { checkSeed } from '../check-seed';
import { EnvBusyError, EnvClosedError, ResetNeededError } from '../errors';
import { Wrapper } from './wrapper';

/**
 * Raises `ResetNeededError` on step before reset or after the episode ended, `EnvClosedError` after close, and
 * `EnvBusyError` on a step, reset or fork while a step or reset has not settled, for any env (BaseEnv does this
 * itself; envs written against the bare interface may not).
 */
export class OrderEnforcing<Obs = string, Act = Action> extends Wrapper<Obs, Act> {
  private state: 'new' | 'running' | 'ended' | 'closed' = 'new';
  private inFlight: 'step' | 'reset' | undefined;

  override async reset(args?: ResetArgs): Promise<ResetResult<Obs>> {
    if (this.state === 'closed') throw new EnvClosedError(this.spec.id);
    this.assertIdle('reset');
    // A seed refused before the episode is given up: the caller's mistake must not end the episode it may go on with.
    if (args?.seed !== undefined) checkSeed(args.seed, `${this.spec.id} reset()`);
    // A reset that throws has still abandoned the last episode: there is nothing to step into until one succeeds.
    this.state = 'new';
    const result = await this.whileInFlight('reset', () => this.env.reset(args));
    // A close() while the reset ran (an abort) stays closed.
    if (!this.closedMeanwhile()) this.state = 'running';
    return result;
  }

  override async step(action: Act): Promise<StepResult<Obs>> {
    if (this.state === 'closed') throw new EnvClosedError(this.spec.id);
    this.assertIdle('step');
    if (this.state === 'new') throw new ResetNeededError(`${this.spec.id}: call reset() before step().`);
    if (this.state === 'ended')
      throw new ResetNeededError(`${this.spec.id}: the episode has ended; call reset() before step().`);
    const result = await this.whileInFlight('step', () => this.env.step(action));
    if ((result.terminated || result.truncated) && !this.closedMeanwhile()) this.state = 'ended';
    return result;
  }

  override async fork(): Promise<Env<Obs, Act>> {
    if (this.state === 'closed') throw new EnvClosedError(this.spec.id);
    this.assertIdle('fork');
    const twin = new OrderEnforcing(await this.env.fork());
    twin.state = this.state;
    return twin;
  }

  override async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await this.env.close();
  }

  /** Read through a method: after an await, close() may have run, which TypeScript's narrowing cannot see. */
  private closedMeanwhile(): boolean {
    return this.state === 'closed';
  }

  private assertIdle(call: 'step' | 'reset' | 'fork'): void {
    if (this.inFlight !== undefined) throw new EnvBusyError(this.spec.id, call, this.inFlight);
  }

  private async whileInFlight<T>(call: 'step' | 'reset', run: () => Promise<T>): Promise<T> {
    this.inFlight = call;
    try {
      return await run();
    } finally {
      this.inFlight = undefined;
    }
  }
}
