import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel, type LanguageModel } from '@turngym/lm';
import {
  ChatTurnFormat,
  collectChains,
  installedEnvRegistry,
  type RolloutPolicy,
  type RolloutRoles,
  type Trajectory,
} from '@turngym/rl';
import type { Action, Env } from '@turngym/spec';
import { planActRoles } from '@turngym/trainer-plan-act';

/**
 * Plan/Act's prefix reuse (ALGORITHMS.md §4, last line; issue 26 item 3): every role call carries the same
 * system prompt and history, so each call continues a KV cache instead of running its context again. Per
 * episode: role calls, the share of calls that continued a cache (hit rate), the context tokens read from
 * it (saved), the tokens run, and what a server without prefix reuse would have run (run + saved). Shared
 * parameters keep one cache; an adapter per role keeps one per adapter, so a role re-runs the other's turns.
 * A single-agent chain on the same tasks is the reference. Tokens are counted, not timed: the ratios hold on
 * any machine; the seconds are this machine's.
 */

const MODELS = join(__dirname, '..', '..', 'learning', 'models');
const PROMPTS = 4;
const GROUP_SIZE = 4;
const CAPS = { plannerMaxTurns: 4, actorMaxTurns: 8, actorTurnsPerTask: 3 };

interface ReuseCase {
  readonly label: string;
  readonly envId: string;
  readonly envOptions: Record<string, unknown>;
  /** The committed warm starts to act with, the first that exists. */
  readonly checkpoints: readonly string[];
  readonly maxActionTokens: number;
  readonly maxRolloutTokens: number;
}

const CASES: readonly ReuseCase[] = [
  {
    label: 'wiki bridge (wiki-qa-compact-v1)',
    envId: 'turngym/wiki-qa-compact-v1',
    envOptions: { questionTypes: ['bridge'], minHops: 2, maxHops: 2, articles: 20000 },
    checkpoints: [join(MODELS, 'wiki-plan-act-warm-start'), join(MODELS, 'wiki-warm-start')],
    maxActionTokens: 48,
    maxRolloutTokens: 256,
  },
  {
    label: 'math (math-thought-v1)',
    envId: 'turngym/math-thought-v1',
    envOptions: { difficulties: [1], kinds: ['arithmetic'] },
    checkpoints: [join(MODELS, 'math-warm-start')],
    maxActionTokens: 32,
    maxRolloutTokens: 256,
  },
];

export interface PrefixReuseRow {
  readonly env: string;
  readonly mode: string;
  readonly episodes: number;
  readonly callsPerEpisode: number;
  readonly hitRate: number;
  readonly savedPerEpisode: number;
  readonly runPerEpisode: number;
  /** saved / (run + saved): the share of context work the cache spared. */
  readonly savedShare: number;
  readonly seconds: number;
}

function summarize(env: string, mode: string, trajectories: readonly Trajectory[], seconds: number): PrefixReuseRow {
  const episodes = trajectories.length;
  let calls = 0;
  let hits = 0;
  let saved = 0;
  let run = 0;
  for (const trajectory of trajectories) {
    for (const step of trajectory.steps) {
      calls += 1;
      // A one-policy chain records no reusedTokens; its cache is continued on every turn after the first.
      const reused = step.reusedTokens ?? 0;
      if (reused > 0) hits += 1;
      saved += reused;
    }
    run += trajectory.computedTokens;
  }
  return {
    env,
    mode,
    episodes,
    callsPerEpisode: calls / episodes,
    hitRate: calls > 0 ? hits / calls : 0,
    savedPerEpisode: saved / episodes,
    runPerEpisode: run / episodes,
    savedShare: saved / Math.max(run + saved, 1),
    seconds,
  };
}

/** A one-policy chain's reuse: each turn continues the previous turn's cache (as the engine does). */
function singleAgentSaved(trajectories: readonly Trajectory[]): Trajectory[] {
  return trajectories.map((trajectory) => {
    let offset = 0;
    let turn = 0;
    let end = 0;
    const steps = [...trajectory.steps];
    for (const segment of trajectory.segments) {
      if (segment.kind === 'action') {
        steps[turn] = { ...steps[turn]!, reusedTokens: turn === 0 ? 0 : end - 1 };
        turn += 1;
        end = offset + segment.tokenCount;
      }
      offset += segment.tokenCount;
    }
    return { ...trajectory, steps };
  });
}

async function rollouts(
  model: LanguageModel,
  reuseCase: ReuseCase,
  roles: RolloutRoles | undefined,
  adapter: string | undefined,
): Promise<{ trajectories: Trajectory[]; seconds: number }> {
  const registry = installedEnvRegistry();
  const policy: RolloutPolicy = { model, format: new ChatTurnFormat(model.tokenizer), ...(roles ? { roles } : {}) };
  const started = performance.now();
  const trajectories = await collectChains({
    policy,
    makeEnv: async () =>
      (await registry.make(reuseCase.envId, { options: reuseCase.envOptions })) as Env<string, Action>,
    envId: reuseCase.envId,
    seeds: Array.from({ length: PROMPTS }, (_, i) => 7 + i),
    groupSize: GROUP_SIZE,
    options: {
      maxActionTokens: reuseCase.maxActionTokens,
      maxRolloutTokens: reuseCase.maxRolloutTokens,
      instructions: false,
      temperature: 1,
      topP: 1,
      seed: 3,
      maxBatch: 16,
      ...(adapter ? { adapter } : {}),
    },
  });
  return { trajectories, seconds: (performance.now() - started) / 1000 };
}

/** The rows: per env, a single-agent chain, Plan/Act with shared parameters, Plan/Act with an adapter per role. */
export async function planActPrefixReuse(): Promise<{ rows: PrefixReuseRow[]; checkpoints: string[] }> {
  const rows: PrefixReuseRow[] = [];
  const checkpoints: string[] = [];
  for (const reuseCase of CASES) {
    const checkpoint = reuseCase.checkpoints.find((candidate) => existsSync(candidate));
    if (!checkpoint) continue;
    checkpoints.push(checkpoint);
    const model = await loadModel(checkpoint, { backend: 'wasm', seed: 1 });
    try {
      // Fresh LoRA adapters (B = 0) sample as the base does: the runs differ in their caches, not their text.
      model.addAdapter('policy', { rank: 16, alpha: 32, seed: 1 });
      model.addAdapter('planner', { rank: 16, alpha: 32, seed: 2 });
      const single = await rollouts(model, reuseCase, undefined, 'policy');
      rows.push(
        summarize(reuseCase.label, 'single agent (reference)', singleAgentSaved(single.trajectories), single.seconds),
      );
      const shared = await rollouts(model, reuseCase, planActRoles(CAPS), 'policy');
      rows.push(summarize(reuseCase.label, 'Plan/Act, shared parameters', shared.trajectories, shared.seconds));
      const independent = await rollouts(model, reuseCase, planActRoles(CAPS, { planner: 'planner' }), 'policy');
      rows.push(
        summarize(reuseCase.label, 'Plan/Act, an adapter per role', independent.trajectories, independent.seconds),
      );
    } finally {
      model.dispose();
    }
  }
  return { rows, checkpoints };
}
