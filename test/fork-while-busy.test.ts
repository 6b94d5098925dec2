import type { Action, Env } from '@turngym/spec';
import { Registry, TurnGymError } from '@turngym/core';
import { register as registerCoding } from '@turngym/env-coding-sandbox';
import { register as registerMathThought } from '@turngym/env-math-thought';
import { register as registerSeller } from '@turngym/env-seller';
import { register as registerWikiNavigator } from '@turngym/env-wiki-navigator';

// Envs with a native fork (a snapshot of their state rather than BaseEnv's replay) must refuse a fork while a step
// or reset has not settled, as the default fork does: a twin taken then got the episode halfway through the step.
// The unwrapped env is forked, as tree search and rollout code may hold it: `make()`'s OrderEnforcing wrapper
// already refuses on its own, which would hide a bare env that does not.
const registry = new Registry();
for (const register of [registerCoding, registerMathThought, registerSeller, registerWikiNavigator]) register(registry);

/** Every registered env whose fork is native (overridden), by id. */
const NATIVE_FORK_IDS = [
  'turngym/math-thought-v1',
  'turngym/math-thought-calc-v1',
  'turngym/seller-v1',
  'turngym/seller-commander-v1',
  'turngym/wiki-qa-v1',
  'turngym/wiki-qa-compact-v1',
  'turngym/wiki-race-v1',
  'turngym/coding-sandbox-v1',
  'turngym/coding-fix-v1',
];

/** An action of the space's type: its content may be malformed, which a step answers with feedback. */
function someAction(env: Env<unknown, Action>): Action {
  return env.spec.actionSpace.type === 'discrete' ? 0 : 'not a valid move';
}

/** The error code of a fork() (undefined when it succeeded; the twin is closed then). */
async function forkCode(env: Env<unknown, Action>): Promise<string | undefined> {
  try {
    await (await env.fork()).close();
    return undefined;
  } catch (error) {
    return TurnGymError.isInstance(error) ? error.code : String(error);
  }
}

describe('a native fork while a step or reset is in flight', () => {
  it('the listed envs are registered', () => {
    expect(registry.list()).toEqual(expect.arrayContaining(NATIVE_FORK_IDS));
  });

  it.each(NATIVE_FORK_IDS)('%s: fork() raises ENV_BUSY, then forks the settled episode', async (id) => {
    const wrapped = await registry.make(id);
    const env = wrapped.unwrapped as Env<unknown, Action>;
    // Settled before close() whatever the assertions do, so a failure here is a failed test, not a crash.
    const pending: Promise<unknown>[] = [];
    const started = <T>(call: Promise<T>): Promise<T> => {
      pending.push(call.catch(() => undefined));
      return call;
    };
    try {
      const resetting = started(env.reset({ seed: 3 }));
      expect(await forkCode(env)).toBe('ENV_BUSY');
      await resetting;
      const stepping = started(env.step(someAction(env))); // not awaited: a caller that forgot, or a second caller
      expect(await forkCode(env)).toBe('ENV_BUSY');
      await stepping;
      const twin = await env.fork();
      expect(twin.anchor()).toBe(env.anchor());
      await twin.close();
    } finally {
      await Promise.all(pending);
      await wrapped.close();
    }
  });
});
