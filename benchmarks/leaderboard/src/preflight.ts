import { TurnGymError, type EnvDependencies, type Registry } from '@turngym/core';
import { PreflightError } from './leaderboard-errors';
import type { LoadedSuite, SuiteEnv } from './suite';
import type { SuiteAgent } from './suite-agent';

/** An env of the suite that will run: its options with the env's defaults filled in, and its version. */
export interface RunnableEnv extends SuiteEnv {
  resolvedOptions: Record<string, unknown>;
  packageName: string | null;
  packageVersion: string | null;
}

export interface SkippedEnv {
  envId: string;
  reason: string;
}

export interface PreflightPlan {
  envs: RunnableEnv[];
  skipped: SkippedEnv[];
}

export interface PreflightOptions {
  /** Run only these env ids of the suite (the others are skipped, and the result says so). */
  only?: readonly string[];
  /** Build each env once and close it, so a broken install fails here rather than mid-run (default true). */
  buildEnvs?: boolean;
  dependencies?: (envId: string) => EnvDependencies | undefined;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Everything that can be known before the first episode: which envs are installed (an env that is not is
 * skipped, with a note naming its package), whether the suite's options fit each env's schema, whether the
 * agent exists for every env, and whether a chat model's endpoint answers. Throws `PreflightError`, one line.
 */
export async function preflightSuite(
  suite: LoadedSuite,
  agent: SuiteAgent,
  registry: Registry,
  options: PreflightOptions = {},
): Promise<PreflightPlan> {
  if (options.only) {
    const unknown = options.only.filter((id) => !suite.envs.some((env) => env.envId === id));
    if (unknown.length > 0) {
      throw new PreflightError(
        `Suite ${suite.id} has no env ${unknown.join(', ')}; its envs are ${suite.envs.map((env) => env.envId).join(', ')}.`,
      );
    }
  }
  const envs: RunnableEnv[] = [];
  const skipped: SkippedEnv[] = [];
  for (const env of suite.envs) {
    if (options.only && !options.only.includes(env.envId)) {
      skipped.push({ envId: env.envId, reason: 'not selected' });
      continue;
    }
    if (!registry.has(env.envId)) {
      const install = env.package ? `npm i ${env.package}` : 'install its package';
      skipped.push({ envId: env.envId, reason: `not installed (${install})` });
      continue;
    }
    const registration = registry.get(env.envId);
    const fixed = (registration.fixedOptions ?? {}) as Record<string, unknown>;
    const clash = Object.keys(env.options).find((key) => key in fixed);
    if (clash) {
      throw new PreflightError(
        `Suite ${suite.id}: ${env.envId} fixes options.${clash}; remove it from the suite entry.`,
      );
    }
    let resolvedOptions: Record<string, unknown>;
    try {
      resolvedOptions = registry.resolveOptions(env.envId, env.options);
    } catch (error) {
      throw new PreflightError(`Suite ${suite.id}: ${oneLine(error)}`, { cause: error });
    }
    if (!agent.supports(registry, env.envId)) {
      const offered = Object.keys(registration.agents ?? {});
      const known = [...new Set([...offered, 'random'])].sort().join(', ');
      throw new PreflightError(
        `Unknown agent "${agent.spec}" for ${env.envId}: its baselines are ${known}; or use a chat-model spec (openai:<model>, local:<checkpoint>).`,
      );
    }
    envs.push({
      ...env,
      resolvedOptions,
      packageName: registration.packageName ?? null,
      packageVersion: registration.packageVersion ?? null,
    });
  }
  if (envs.length === 0) {
    const reasons = skipped.map((env) => `${env.envId}: ${env.reason}`).join('; ');
    throw new PreflightError(`None of suite ${suite.id}'s envs can run (${reasons}).`);
  }
  if (options.buildEnvs !== false) {
    for (const env of envs) {
      try {
        const dependencies = options.dependencies?.(env.envId);
        const built = await registry.make(env.envId, {
          options: env.options,
          ...(env.maxTurns !== null ? { maxTurns: env.maxTurns } : {}),
          ...(dependencies ? { dependencies } : {}),
        });
        await built.close();
      } catch (error) {
        if (TurnGymError.isInstance(error) && error.code === 'PREFLIGHT') throw error;
        throw new PreflightError(`${env.envId} cannot be built with suite ${suite.id}'s options: ${oneLine(error)}`, {
          cause: error,
        });
      }
    }
  }
  await agent.check();
  return { envs, skipped };
}
