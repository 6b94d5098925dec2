import type { Action, Env, EnvSpec, ResetArgs, ResetResult, StepResult } from '@turngym/spec';

/**
 * Base of every wrapper: forwards everything to the inner env. A wrapper that keeps per-episode state
 * overrides `fork()` to fork the inner env and copy its own state, so a forked stack is the same stack.
 */
export abstract class Wrapper<Obs = string, Act = Action> implements Env<Obs, Act> {
  constructor(readonly env: Env<Obs, Act>) {}

  get spec(): EnvSpec {
    return this.env.spec;
  }

  get unwrapped(): Env<Obs, Act> {
    return this.env.unwrapped ?? this.env;
  }

  reset(args?: ResetArgs): Promise<ResetResult<Obs>> {
    return this.env.reset(args);
  }

  step(action: Act): Promise<StepResult<Obs>> {
    return this.env.step(action);
  }

  abstract fork(): Promise<Env<Obs, Act>>;

  fingerprint(action: Act): string {
    return this.env.fingerprint(action);
  }

  anchor(): string {
    return this.env.anchor();
  }

  close(): Promise<void> {
    return this.env.close();
  }
}
