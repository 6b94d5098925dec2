import { mixSeed, SeededRng } from '@turngym/core';
import { startEpisodes, type EnvFactory } from './chain-rollouts';
import { resetPrefix, runRollouts, type NodeSnapshot, type RolloutPolicy, type RolloutStart } from './rollout-engine';
import { validateRolloutOptions } from './rollout-options';
import type { RolloutOptions } from './rollout-options';
import type { Trajectory } from './trajectory';

/** Tree-GRPO's sampling shape (ALGORITHMS.md §1): M trees, N nodes drawn per tree per round, L rounds. */
export interface TreeShape {
  /** M: independent chains per prompt, each the first leaf of its tree. */
  readonly trees: number;
  /** N: nodes drawn (uniformly, with replacement) from each tree per round, each expanded once. */
  readonly branches: number;
  /** L: rounds of draw-and-expand. */
  readonly rounds: number;
}

export interface TreeRolloutRequest {
  readonly policy: RolloutPolicy;
  readonly makeEnv: EnvFactory;
  readonly envId: string;
  /** One env seed per prompt. */
  readonly seeds: readonly number[];
  readonly shape: TreeShape;
  readonly options?: Partial<RolloutOptions>;
  readonly idPrefix?: string;
}

export interface TreeRollouts {
  /**
   * Every leaf, prompt by prompt, tree by tree, in the order sampled; each carries its place (`group`,
   * `tree`), so `treeAdvantageSamples` takes them as they are.
   */
  readonly trajectories: Trajectory[];
}

function checkShape(shape: TreeShape): void {
  for (const [field, minimum] of [
    ['trees', 1],
    ['branches', 0],
    ['rounds', 0],
  ] as const) {
    const value = shape[field];
    if (!Number.isInteger(value) || value < minimum) {
      throw new RangeError(`shape.${field} is ${String(value)}; expected an integer >= ${minimum}.`);
    }
  }
}

/**
 * Tree rollouts at agent-step nodes (ALGORITHMS.md §1): per prompt, M chains start M trees; then L times,
 * from each tree N nodes are drawn uniformly with replacement from its root and its non-leaf nodes, and
 * each drawn node is continued to the end of the episode by the current policy. A branch starts from a
 * fork of the env at that node and a fork of the KV cache of the prefix, so the prefix is neither
 * re-generated nor re-computed; only what the branch generates counts against the budget. With N·L = 0
 * this is exactly `collectChains` with groupSize M (no env or cache is forked at any node).
 *
 * `options.promptTokenBudget` holds for all of a prompt's leaves together: each round's branches of a prompt
 * share what its chains and earlier rounds left (one generation call per prompt then), and a prompt with
 * nothing left draws no more branches.
 */
export async function collectTrees(request: TreeRolloutRequest): Promise<TreeRollouts> {
  const options = validateRolloutOptions(request.options ?? {});
  checkShape(request.shape);
  const { shape } = request;
  const idPrefix = request.idPrefix ? `${request.idPrefix}/` : '';
  // snapshots[group][tree]: the nodes reached so far, each a fork of the env and of the cache.
  const snapshots: NodeSnapshot[][][] = request.seeds.map(() => Array.from({ length: shape.trees }, () => []));
  const counters = request.seeds.map(() => Array.from({ length: shape.trees }, () => 0));
  const hooksFor = (group: number, tree: number): NonNullable<RolloutStart['snapshots']> => ({
    nextNode: () => `g${group}/t${tree}/n${++counters[group]![tree]!}`,
    onNode: (snapshot) => snapshots[group]![tree]!.push(snapshot),
  });
  const branching = shape.branches > 0 && shape.rounds > 0;
  const trajectories: Trajectory[] = [];
  try {
    const chains = await startEpisodes(
      request.seeds.flatMap((seed, group) => Array.from({ length: shape.trees }, (_, tree) => ({ seed, group, tree }))),
      request.makeEnv,
      async (env, { seed, group, tree }): Promise<RolloutStart> => ({
        id: `${idPrefix}g${group}/t${tree}/r0/b0`,
        envId: request.envId,
        seed,
        group,
        sampleSeed: mixSeed(mixSeed(options.seed, group), tree),
        env,
        prefix: await resetPrefix(env, seed, request.policy, options),
        tree: { tree, branchedFrom: `g${group}/t${tree}/n0`, sharedTurns: 0, round: 0 },
        // With N·L = 0 no node is ever drawn: name the nodes, but fork no env or cache at them.
        snapshots: branching
          ? { ...hooksFor(group, tree), root: `g${group}/t${tree}/n0` }
          : { nextNode: hooksFor(group, tree).nextNode },
      }),
    );
    trajectories.push(...(await runRollouts(request.policy, chains, options)));

    for (let round = 1; round <= shape.rounds && shape.branches > 0; round++) {
      const internal = internalNodes(trajectories);
      const left = budgetLeft(trajectories, request.seeds.length, options.promptTokenBudget);
      const draws: { snapshot: NodeSnapshot; group: number; tree: number; branch: number }[] = [];
      request.seeds.forEach((_, group) => {
        // A prompt that has spent its budget gets no more branches: they could generate nothing.
        if (left !== undefined && left[group]! < 1) return;
        for (let tree = 0; tree < shape.trees; tree++) {
          // Root ∪ non-leaf nodes: a node some rollout went on from (a leaf has nothing left to branch).
          const candidates = snapshots[group]![tree]!.filter((snapshot) => internal.has(snapshot.node));
          if (candidates.length === 0) continue;
          const rng = new SeededRng(mixSeed(mixSeed(mixSeed(options.seed, group), tree), round));
          for (let branch = 0; branch < shape.branches; branch++) {
            draws.push({ snapshot: candidates[rng.int(0, candidates.length - 1)]!, group, tree, branch });
          }
        }
      });
      const branches = await startBranches(
        draws.map(async ({ snapshot, group, tree, branch }): Promise<RolloutStart> => ({
          id: `${idPrefix}g${group}/t${tree}/r${round}/b${branch}`,
          envId: request.envId,
          seed: request.seeds[group]!,
          group,
          sampleSeed: mixSeed(mixSeed(mixSeed(mixSeed(options.seed, group), tree), round), branch + 1),
          env: await snapshot.env.fork(),
          prefix: snapshot.prefix,
          ...(snapshot.cache ? { cache: snapshot.cache.fork() } : {}),
          tree: { tree, branchedFrom: snapshot.node, sharedTurns: snapshot.prefix.steps.length, round },
          forkOf: { episodeId: snapshot.episodeId, turn: snapshot.prefix.steps.length },
          // The last round's nodes are never drawn: name them, but fork no env or cache for them.
          snapshots: round < shape.rounds ? hooksFor(group, tree) : { nextNode: hooksFor(group, tree).nextNode },
        })),
      );
      if (left === undefined) trajectories.push(...(await runRollouts(request.policy, branches, options)));
      else {
        // The engine counts promptTokenBudget within one call; each prompt's branches get what its earlier
        // rounds left, so all of a prompt's leaves together stay within the budget.
        let waiting = branches;
        try {
          for (const [group, remaining] of left.entries()) {
            const own = waiting.filter((branch) => branch.group === group);
            waiting = waiting.filter((branch) => branch.group !== group);
            if (own.length === 0) continue;
            trajectories.push(
              ...(await runRollouts(request.policy, own, { ...options, promptTokenBudget: remaining })),
            );
          }
        } finally {
          // Branches never run (a call before them threw) still hold a fork of the env and of the cache.
          for (const branch of waiting) branch.cache?.dispose();
          await Promise.all(waiting.map((branch) => branch.env.close().catch(() => undefined)));
        }
      }
    }
  } finally {
    for (const snapshot of snapshots.flat(2)) snapshot.cache?.dispose();
    await Promise.all(snapshots.flat(2).map((snapshot) => snapshot.env.close().catch(() => undefined)));
  }

  return { trajectories: sortByTree(trajectories) };
}

/**
 * Waits for every branch's start (each a fork of its node's env and cache). When one fork fails, the forks
 * that succeeded are closed before its error is thrown: nothing else holds them yet.
 */
async function startBranches(starting: readonly Promise<RolloutStart>[]): Promise<RolloutStart[]> {
  const settled = await Promise.allSettled(starting);
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed === undefined) return settled.map((result) => (result as PromiseFulfilledResult<RolloutStart>).value);
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  for (const start of started) start.cache?.dispose();
  await Promise.all(started.map((start) => start.env.close().catch(() => undefined)));
  throw failed.reason;
}

/**
 * Per prompt, the tokens `promptTokenBudget` still allows after these trajectories; undefined without a
 * budget. A branch's `generatedTokens` are its own, so the sum over a prompt's leaves is what it spent.
 */
function budgetLeft(
  trajectories: readonly Trajectory[],
  prompts: number,
  budget: number | undefined,
): number[] | undefined {
  if (budget === undefined) return undefined;
  const left = new Array<number>(prompts).fill(budget);
  for (const trajectory of trajectories) left[trajectory.group] = left[trajectory.group]! - trajectory.generatedTokens;
  return left;
}

/**
 * The nodes a round may draw (§1: {root} ∪ non-leaf nodes): every tree's root, whatever its chain did, and each
 * turn's node that a later turn of a rollout follows. The root is always one: a chain whose env threw on its
 * first step (or that stopped before it) left the root with no child, and reading that as "nothing to draw"
 * gave its tree no branches at all, so a transient env error cost the task a whole tree's leaves.
 */
function internalNodes(trajectories: readonly Trajectory[]): Set<string> {
  const internal = new Set<string>();
  for (const trajectory of trajectories) {
    if (trajectory.tree && (trajectory.tree.round === 0 || trajectory.turns > 0))
      internal.add(trajectory.tree.branchedFrom);
    trajectory.steps.slice(0, -1).forEach((step) => internal.add(step.node));
  }
  return internal;
}

function sortByTree(trajectories: readonly Trajectory[]): Trajectory[] {
  return [...trajectories].sort(
    (a, b) =>
      a.group - b.group || (a.tree?.tree ?? 0) - (b.tree?.tree ?? 0) || (a.tree?.round ?? 0) - (b.tree?.round ?? 0),
  );
}
