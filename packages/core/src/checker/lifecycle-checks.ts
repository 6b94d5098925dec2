import type { Action } from '@turngym/spec';
import { TurnGymError } from '../errors';
import { malformedActions, type CheckContext } from './episode-checks';

// Errors are matched by code, not by class: an env built against another copy of @turngym/core throws
// that copy's classes.

/** After the episode ends (within maxTurns), step() raises ResetNeeded. */
export async function checkStepAfterEnd({ make, seed, actions }: CheckContext): Promise<string | undefined> {
  const env = await make();
  try {
    await env.reset({ seed });
    let ended = false;
    for (let i = 0; i < env.spec.maxTurns + 1 && !ended; i++) {
      const action = actions[i] ?? (malformedActions(env.spec.actionSpace)[1] as Action);
      const result = await env.step(action);
      ended = result.terminated || result.truncated;
    }
    if (!ended) return `the episode did not end within maxTurns (${env.spec.maxTurns})`;
    try {
      await env.step(actions[0] as Action);
    } catch (error) {
      return TurnGymError.isInstance(error) && error.code === 'RESET_NEEDED'
        ? undefined
        : `step after the end threw ${(error as Error).name}, expected ResetNeededError`;
    }
    return 'step after the end did not raise';
  } finally {
    await env.close();
  }
}

/** step() on a fresh env, before any reset(), raises ResetNeeded. */
export async function checkStepBeforeReset({ make, actions }: CheckContext): Promise<string | undefined> {
  const env = await make();
  try {
    await env.step(actions[0] as Action);
    return 'step before reset did not raise';
  } catch (error) {
    return TurnGymError.isInstance(error) && error.code === 'RESET_NEEDED'
      ? undefined
      : `threw ${(error as Error).name}, expected ResetNeededError`;
  } finally {
    await env.close();
  }
}

/** close() twice is fine; reset() after close raises EnvClosed. */
export async function checkCloseIdempotent({ make, seed }: CheckContext): Promise<string | undefined> {
  const env = await make();
  await env.reset({ seed });
  await env.close();
  try {
    await env.close();
  } catch (error) {
    return `second close() threw ${describe(error)}; close() must be idempotent`;
  }
  try {
    await env.reset({ seed });
    return 'reset after close did not raise';
  } catch (error) {
    return TurnGymError.isInstance(error) && error.code === 'ENV_CLOSED'
      ? undefined
      : `reset after close threw ${(error as Error).name}, expected EnvClosedError`;
  }
}

function describe(error: unknown): string {
  return TurnGymError.isInstance(error)
    ? `${error.code}: ${error.message}`
    : `${(error as Error)?.name ?? 'a non-error'}: ${(error as Error)?.message ?? String(error)}`;
}
