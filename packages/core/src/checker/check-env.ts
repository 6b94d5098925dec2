import type { Action, Env } from '@turngym/spec';
import { RandomAgent } from '../agents/random-agent';
import { checkSeed } from '../check-seed';
import { InvalidOptionsError, TurnGymError } from '../errors';
import { registry as defaultRegistry, type EnvDependencies, type Registry } from '../registry';
import {
  checkFingerprintHooks,
  checkForkEquivalence,
  checkMalformedActions,
  checkReset,
  checkSeedDeterminism,
  checkStepResults,
  type Check,
  type CheckContext,
  type CheckNote,
} from './episode-checks';
import { scriptActions, type MakeAgent, type MakeEnv } from './episode-trace';
import { checkCloseIdempotent, checkStepAfterEnd, checkStepBeforeReset } from './lifecycle-checks';
import { checkSpec } from './spec-check';

export interface CheckOptions {
  /** Registry to make ids from (default: the process-wide one). */
  registry?: Registry;
  /** Env options for `make()` (an id target only). */
  options?: Record<string, unknown>;
  /** Dependencies for `make()` (an id target only). */
  dependencies?: EnvDependencies;
  /** First seed used (default 7); the checker also uses seed + 1 to seed + 8, all within ±(2^53 − 1). */
  seed?: number;
  /** Longest scripted action sequence (default 12 steps). */
  maxSteps?: number;
  /**
   * The registered agent whose actions form the scripted sequence, for an id target (default: the env's
   * `scripted`, else a seeded random agent; an instance or factory target always plays a random agent). `random`
   * names core's seeded random agent where the env registers none of that name: the steps its expert never takes.
   */
  agent?: string;
}

export interface CheckResult {
  readonly name: string;
  /** True for a skipped check too: it found nothing wrong. */
  readonly passed: boolean;
  /** Not run, because the spec declares the env nondeterministic; `detail` says so. */
  readonly skipped?: boolean;
  /** Why it failed, why it was skipped, or what a passed check could not look at (a fork only at reset). */
  readonly detail?: string;
}

export interface CheckReport {
  readonly envId: string;
  readonly passed: boolean;
  readonly results: readonly CheckResult[];
}

/**
 * The checks after the spec and the scripted sequence, in the order they run and report. `replays`: the check
 * compares two runs of one seed, which an env whose spec says `nondeterministic` does not promise to repeat.
 */
const EPISODE_CHECKS: ReadonlyArray<{ name: string; check: Check; replays?: true }> = [
  { name: 'reset returns the task and instructions', check: checkReset },
  { name: 'seed determinism', check: checkSeedDeterminism, replays: true },
  { name: 'step results are well-formed', check: checkStepResults },
  { name: 'fork equivalence', check: checkForkEquivalence, replays: true },
  { name: 'malformed actions are ordinary steps', check: checkMalformedActions },
  { name: 'step after the end raises ResetNeeded', check: checkStepAfterEnd },
  { name: 'step before reset raises ResetNeeded', check: checkStepBeforeReset },
  { name: 'close is idempotent', check: checkCloseIdempotent },
  { name: 'fingerprint and anchor are pure and stable', check: checkFingerprintHooks },
];

const NONDETERMINISTIC_SKIP =
  'skipped: the spec declares nondeterministic (the same seed may not reproduce an episode)';

/**
 * The env checker (Gymnasium's `check_env`, for multi-turn text envs). Every registered env must pass it.
 * Determinism is checked over a scripted action sequence: the env's `scripted` agent (or a seeded random one)
 * plays once, and its actions are replayed; wall time (`info.cost.wallMs`) is the only field allowed to differ.
 * An env whose spec says `nondeterministic: true` makes no such promise: the checks that compare replays are
 * reported skipped, and every other check still runs.
 */
export async function checkEnv(
  target: string | Env<any, any> | (() => Promise<Env<any, any>>),
  options: CheckOptions = {},
): Promise<CheckReport> {
  const seed = options.seed ?? 7;
  // The checker plays seed + 1 … seed + FORK_SEED_TRIES too: a seed at the edge of the safe integers was reported as
  // the env failing a check, not as the bad argument it is.
  checkSeed(seed, 'checkEnv()');
  if (seed > Number.MAX_SAFE_INTEGER - FORK_SEED_TRIES)
    throw new InvalidOptionsError('checkEnv()', [
      `seed must be at most 2^53 − 1 − ${FORK_SEED_TRIES} (the checker also plays seeds seed + 1 to seed + ` +
        `${FORK_SEED_TRIES}), got ${seed}`,
    ]);
  const { make, agentFor } = await resolveTarget(target, options);
  const results: CheckResult[] = [];

  const probe = await make();
  let envId: string;
  let nondeterministic: boolean;
  try {
    envId = probe.spec.id;
    nondeterministic = probe.spec.nondeterministic === true;
    results.push(await runCheck('spec', async () => checkSpec(probe.spec)));
  } finally {
    await probe.close();
  }

  let actions: Action[] = [];
  results.push(
    await runCheck('scripted sequence', async () => {
      actions = await scriptActions(make, agentFor, seed, options.maxSteps ?? 12);
      return actions.length === 0 ? 'the agent produced no action' : undefined;
    }),
  );

  const context: CheckContext = { make, seed, actions, nondeterministic };
  if (actions.length === 1 && !nondeterministic)
    Object.assign(context, await findForkEpisode(make, agentFor, seed, options));
  for (const { name, check, replays } of EPISODE_CHECKS) {
    if (replays && nondeterministic) results.push({ name, passed: true, skipped: true, detail: NONDETERMINISTIC_SKIP });
    else results.push(await runCheck(name, () => check(context)));
  }

  return { envId, passed: results.every((result) => result.passed), results };
}

/** Further seeds scripted when the checker's seed gives a one-step episode, for a fork after a step. */
const FORK_SEED_TRIES = 8;

/**
 * The first of the next `FORK_SEED_TRIES` seeds whose scripted episode has two steps or more: the fork check
 * cuts it after a step, where a fork that forgets the episode's state shows. None (or an agent that fails on
 * another seed): the check forks at reset and says so.
 */
async function findForkEpisode(
  make: MakeEnv,
  agentFor: MakeAgent,
  seed: number,
  options: CheckOptions,
): Promise<Pick<CheckContext, 'forkEpisode' | 'forkSeedsTried'>> {
  for (let next = seed + 1; next <= seed + FORK_SEED_TRIES; next++) {
    let actions: Action[];
    try {
      actions = await scriptActions(make, agentFor, next, options.maxSteps ?? 12);
    } catch {
      return { forkSeedsTried: next === seed + 1 ? `${next}` : `${seed + 1}–${next}` };
    }
    if (actions.length >= 2) return { forkEpisode: { seed: next, actions } };
  }
  return { forkSeedsTried: `${seed + 1}–${seed + FORK_SEED_TRIES}` };
}

/** How the checker makes fresh envs of the target, and the agent that scripts the action sequence. */
async function resolveTarget(
  target: string | Env<any, any> | (() => Promise<Env<any, any>>),
  options: CheckOptions,
): Promise<{ make: MakeEnv; agentFor: MakeAgent }> {
  if (typeof target === 'string') {
    const registry = options.registry ?? defaultRegistry;
    const agents = registry.get(target).agents ?? {};
    const named = options.agent ?? (agents.scripted ? 'scripted' : undefined);
    const name = named === 'random' && !agents.random ? undefined : named;
    return {
      make: () =>
        registry.make(target, {
          ...(options.options ? { options: options.options } : {}),
          ...(options.dependencies ? { dependencies: options.dependencies } : {}),
        }),
      agentFor: (env, agentSeed) =>
        name ? registry.makeAgent(target, name, { env, seed: agentSeed }) : new RandomAgent(agentSeed),
    };
  }
  const randomAgent: MakeAgent = (_env, agentSeed) => new RandomAgent(agentSeed);
  if (typeof target === 'function') return { make: target as MakeEnv, agentFor: randomAgent };
  // A live instance: fresh copies come from fork() of the instance before it is ever reset.
  const pristine = await (target as Env<unknown, Action>).fork();
  return { make: () => pristine.fork(), agentFor: randomAgent };
}

/** Runs one check; a check that throws fails with what it threw, one that passes with a note keeps it. */
async function runCheck(name: string, check: () => Promise<string | CheckNote | undefined>): Promise<CheckResult> {
  let problem: string | CheckNote | undefined;
  try {
    problem = await check();
  } catch (error) {
    const message = TurnGymError.isInstance(error)
      ? `${error.code}: ${error.message}`
      : String((error as Error)?.stack ?? error);
    problem = `threw ${message}`;
  }
  if (problem === undefined) return { name, passed: true };
  if (typeof problem !== 'string') return { name, passed: true, detail: problem.note };
  return { name, passed: false, detail: problem };
}

/** One line per check, ✓ or ✗ with the reason; a last line with the verdict. */
export function formatCheckReport(report: CheckReport): string {
  const lines = report.results.map(
    (result) =>
      `${result.skipped ? '–' : result.passed ? '✓' : '✗'} ${result.name}${result.detail ? ` — ${result.detail}` : ''}`,
  );
  const failed = report.results.filter((result) => !result.passed).length;
  const skipped = report.results.filter((result) => result.skipped).length;
  const ran = report.results.length - skipped;
  const skippedNote = skipped > 0 ? ` (${skipped} skipped)` : '';
  lines.push(
    failed === 0
      ? `${report.envId}: all ${ran} checks passed${skippedNote}`
      : `${report.envId}: ${failed} of ${ran} checks failed${skippedNote}`,
  );
  return lines.join('\n');
}
