import { mixSeed } from '@turngym/core';
import type { Action, Env } from '@turngym/spec';
import { resetPrefix, runRollouts, type RolloutPolicy } from './rollout-engine';
import { validateRolloutOptions, type RolloutOptions } from './rollout-options';
import type { Trajectory } from './trajectory';

/** Builds a fresh env for one rollout (each rollout owns its env; the engine closes it). */
export type EnvFactory = () => Promise<Env<string, Action>>;

export interface ChainRolloutRequest {
  readonly policy: RolloutPolicy;
  readonly makeEnv: EnvFactory;
  readonly envId: string;
  /** One env seed per prompt (group). */
  readonly seeds: readonly number[];
  /** Independent rollouts per prompt (GRPO's G). */
  readonly groupSize: number;
  readonly options?: Partial<RolloutOptions>;
  /** Prefix of every rollout id (e.g. the iteration). */
  readonly idPrefix?: string;
}

/**
 * GRPO's rollouts: `groupSize` independent episodes per prompt, all prompts' episodes sampled together
 * in lockstep batches. Returns them prompt by prompt, in order.
 */
export async function collectChains(request: ChainRolloutRequest): Promise<Trajectory[]> {
  const options = validateRolloutOptions(request.options ?? {});
  if (!Number.isInteger(request.groupSize) || request.groupSize < 1) {
    throw new RangeError(`groupSize is ${String(request.groupSize)}; expected an integer >= 1.`);
  }
  const prefix = request.idPrefix ? `${request.idPrefix}/` : '';
  const starts = await startEpisodes(
    request.seeds.flatMap((seed, group) =>
      Array.from({ length: request.groupSize }, (_, member) => ({ seed, group, member })),
    ),
    request.makeEnv,
    async (env, { seed, group, member }) => ({
      id: `${prefix}g${group}/c${member}`,
      envId: request.envId,
      seed,
      group,
      sampleSeed: mixSeed(mixSeed(options.seed, group), member),
      env,
      prefix: await resetPrefix(env, seed, request.policy, options),
    }),
  );
  return runRollouts(request.policy, starts, options);
}

/**
 * Opens one env per item and builds its start; if any env fails to open or reset, every env opened so far
 * is closed before the error is thrown (a half-started batch leaks nothing).
 */
export async function startEpisodes<T, S>(
  items: readonly T[],
  makeEnv: EnvFactory,
  build: (env: Env<string, Action>, item: T) => Promise<S>,
): Promise<S[]> {
  const opened: Env<string, Action>[] = [];
  const settled = await Promise.allSettled(
    items.map(async (item) => {
      const env = await makeEnv();
      opened.push(env);
      return build(env, item);
    }),
  );
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(opened.map((env) => env.close().catch(() => undefined)));
    throw failed.reason;
  }
  return settled.map((result) => (result as PromiseFulfilledResult<S>).value);
}
