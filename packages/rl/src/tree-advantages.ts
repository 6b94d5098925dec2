import { groupAdvantages, ADVANTAGE_EPSILON, isTiedGroup } from './group-advantages';
import { assertFinite, type Numbers } from './internal/checks';
import { actionSpans, hasActionTokens, recordLength, type TokenRecord } from './loss-mask';
import type { UpdateSample } from './ppo-update';
import { NON_FINITE_GROUP_ADVICE } from './group-advantage-samples';
import { assertFiniteRewards } from './trainer-kit/trainer-errors';
import type { Trajectory } from './trajectory';

/**
 * Tree-GRPO's rollouts for one prompt (ALGORITHMS.md §1): M trees whose nodes are whole agent steps
 * (turns); each leaf is one complete episode, trained as its own full sequence.
 */
export interface TreeLeaf {
  /** The episode's return R_i. */
  readonly reward: number;
  /**
   * Ids of the turns (tree nodes) from the first turn to this leaf's last, in order. Leaves that branched
   * from the same node share a leading run of ids: the shared prefix. Needed only for the broadcasts.
   */
  readonly turns?: readonly string[];
}

export interface RolloutTree {
  readonly leaves: readonly TreeLeaf[];
}

/** All trees sampled for one prompt: M·(1 + N·L) leaves in all. */
export interface PromptTrees {
  readonly trees: readonly RolloutTree[];
}

/** Per tree, per leaf (same order as the input): the two parts and their sum. */
export interface TreeAdvantage {
  readonly inter: Float64Array;
  readonly intra: Float64Array;
  readonly advantage: Float64Array;
}

/**
 * Tree-GRPO's advantage (ALGORITHMS.md §1, reference `adv_estimator=tree`), for leaf i of tree T_j:
 *   A_inter(i) = (R_i − mean_p R) / (std_p R + 1e-6)      over all leaves of the prompt,
 *   A_intra(i) = (R_i − mean_Tj R) / (std_Tj R + 1e-6)    over the leaves of its own tree,
 *   A(i) = A_inter(i) + A_intra(i),
 * with the unbiased std and a group of one at mean 0, std 1 (see `groupStatistics`). Both parts matter:
 * the paper's ablation has intra alone collapse (avg EM 1.2), inter alone 33.8, both 36.8.
 */
export function treeAdvantages(prompt: PromptTrees, epsilon: number = ADVANTAGE_EPSILON): TreeAdvantage[] {
  if (prompt.trees.length === 0)
    throw new RangeError('treeAdvantages: trees is empty; a prompt needs at least one tree.');
  const all: number[] = [];
  prompt.trees.forEach((tree, treeIndex) => {
    if (tree.leaves.length === 0) throw new RangeError(`treeAdvantages: trees[${treeIndex}].leaves is empty.`);
    for (const leaf of tree.leaves) all.push(leaf.reward);
  });
  assertFinite('treeAdvantages', 'rewards of the leaves', all);
  const inter = groupAdvantages(all, epsilon);
  let offset = 0;
  return prompt.trees.map((tree) => {
    const treeInter = inter.slice(offset, offset + tree.leaves.length);
    offset += tree.leaves.length;
    const intra = groupAdvantages(
      tree.leaves.map((leaf) => leaf.reward),
      epsilon,
    );
    const advantage = new Float64Array(tree.leaves.length);
    for (let index = 0; index < advantage.length; index += 1) {
      advantage[index] = (treeInter[index] as number) + (intra[index] as number);
    }
    return { inter: treeInter, intra, advantage };
  });
}

/**
 * Tree-GRPO's update samples straight from the sampled trajectories: per prompt (`group`), its leaves
 * grouped by tree (`tree.tree`; a chain is a one-leaf tree 0), `treeAdvantages` over them, each leaf
 * with its A = A_inter + A_intra. Rollouts the env failed on are reported, never scored; a scored leaf whose
 * return (`totalReward`) is not finite is refused (`NonFiniteRewardError`, naming its episode); a branch the
 * budget stopped before its first action is no leaf (`isStarvedBranch`) and is left out too; a prompt whose
 * leaves are tied (`isTiedGroup`) gives no samples. Prompts and trees come in ascending order, leaves in
 * the order given (the collector's sampling order).
 */
export function treeAdvantageSamples(
  trajectories: readonly Trajectory[],
  epsilon: number = ADVANTAGE_EPSILON,
): UpdateSample[] {
  const scored = trajectories.filter((trajectory) => trajectory.stopReason !== 'error' && !isStarvedBranch(trajectory));
  assertFiniteRewards(scored, 'treeAdvantageSamples', { steps: false, advice: NON_FINITE_GROUP_ADVICE });
  const prompts = new Map<number, Map<number, Trajectory[]>>();
  for (const trajectory of scored) {
    const trees = prompts.get(trajectory.group) ?? new Map<number, Trajectory[]>();
    prompts.set(trajectory.group, trees);
    const tree = trajectory.tree?.tree ?? 0;
    trees.set(tree, [...(trees.get(tree) ?? []), trajectory]);
  }
  const ascending = <T>(map: Map<number, T>): T[] => [...map].sort(([a], [b]) => a - b).map(([, value]) => value);
  const samples: UpdateSample[] = [];
  for (const trees of ascending(prompts)) {
    const leaves = ascending(trees);
    if (isTiedGroup(leaves.flat().map((leaf) => leaf.totalReward))) continue;
    const advantages = treeAdvantages(
      { trees: leaves.map((tree) => ({ leaves: tree.map((leaf) => ({ reward: leaf.totalReward })) })) },
      epsilon,
    );
    advantages.forEach((tree, treeIndex) =>
      tree.advantage.forEach((advantage, leaf) => {
        // A leaf with no action token (cut before its first) is scored, but there is nothing of it to train.
        const trajectory = leaves[treeIndex]![leaf]!;
        if (hasActionTokens(trajectory)) samples.push({ trajectory, advantage });
      }),
    );
  }
  return samples;
}

/**
 * A branch that took no turn of its own: the per-prompt token budget (or the context, or the tool-call budget)
 * stopped it before its first action. Its record is its node's prefix again, with the prefix's reward: scored,
 * it would be a leaf that "ended" at the branch node (§1 expands a drawn node to the end of its episode; this one
 * was never expanded) and its prefix's actions would be trained with that made-up return. It is reported
 * (`trajectories.jsonl`, Tree-GRPO's `budget/starved_branches`) and left out of the advantages. A branch the
 * budget stopped after it acted is a leaf like a chain a budget cut: scored with the reward it reached.
 */
export function isStarvedBranch(trajectory: Pick<Trajectory, 'tree' | 'turns' | 'stopReason'>): boolean {
  const { tree } = trajectory;
  return (
    tree !== undefined && tree.round > 0 && trajectory.stopReason !== 'error' && trajectory.turns <= tree.sharedTurns
  );
}

/**
 * Checks that the leaves' turn paths form one tree: a turn id always follows the same parent at the same
 * depth. A path that breaks this is a bookkeeping bug in the collector (ids reused across branches), and
 * would make the shared-prefix statistics below silently wrong.
 */
export function checkTreePaths(tree: RolloutTree): void {
  const parentOf = new Map<string, string | null>();
  tree.leaves.forEach((leaf, leafIndex) => {
    if (leaf.turns === undefined)
      throw new RangeError(`leaves[${leafIndex}].turns is missing; the broadcast needs each leaf's turn ids.`);
    leaf.turns.forEach((id, depth) => {
      const parent = depth === 0 ? null : (leaf.turns?.[depth - 1] as string);
      const known = parentOf.get(id);
      if (known === undefined) parentOf.set(id, parent);
      else if (known !== parent) {
        throw new RangeError(
          `leaves[${leafIndex}].turns[${depth}] is "${id}" after ${parent === null ? 'the root' : `"${parent}"`}, ` +
            `but another leaf has "${id}" after ${known === null ? 'the root' : `"${known}"`}; turn ids must be unique per tree node.`,
        );
      }
    });
  });
}

/**
 * The shared-prefix broadcast at turn level (ALGORITHMS.md §1): each leaf is trained as its own full
 * sequence, so a shared turn appears once per leaf through it, and each copy carries *that leaf's*
 * advantage — not an average. Returns, per leaf, one advantage per turn of its path.
 */
export function leafTurnAdvantages(tree: RolloutTree, advantages: Numbers): Float64Array[] {
  if (advantages.length !== tree.leaves.length) {
    throw new RangeError(
      `leafTurnAdvantages: advantages and tree.leaves must have the same length (advantages has ${advantages.length}, tree.leaves has ${tree.leaves.length}).`,
    );
  }
  checkTreePaths(tree);
  return tree.leaves.map((leaf, index) => new Float64Array(leaf.turns?.length ?? 0).fill(advantages[index] as number));
}

/**
 * The same broadcast at token level: leaf i's advantage on every action token of its sequence, 0 on
 * prompt, observation and critic-prompt tokens. Works for plain GRPO too (a chain is a one-leaf tree).
 */
export function leafTokenAdvantages(records: readonly TokenRecord[], advantages: Numbers): Float64Array[] {
  if (advantages.length !== records.length) {
    throw new RangeError(
      `leafTokenAdvantages: advantages and records must have the same length (advantages has ${advantages.length}, records has ${records.length}).`,
    );
  }
  return records.map((record, index) => {
    const perToken = new Float64Array(recordLength(record));
    for (const span of actionSpans(record)) perToken.fill(advantages[index] as number, span.start, span.end + 1);
    return perToken;
  });
}

/** What one tree node receives once every leaf sequence through it is trained. */
export interface SharedTurnWeight {
  /** How many leaf sequences contain this turn (copies of it in the batch). */
  readonly copies: number;
  /** The sum of those leaves' advantages: the net weight on this turn's tokens in the summed loss. */
  readonly sum: number;
}

/**
 * Where the step-level signal comes from (ALGORITHMS.md §1, "Why it works"): a turn shared by a good
 * and a bad branch gets copies with opposite advantages that largely cancel, while the turns after the
 * branch point keep their sign. For analysis and the rollout-tree viewer; training uses the broadcasts.
 */
export function sharedTurnWeights(tree: RolloutTree, advantages: Numbers): Map<string, SharedTurnWeight> {
  leafTurnAdvantages(tree, advantages);
  const weights = new Map<string, SharedTurnWeight>();
  tree.leaves.forEach((leaf, index) => {
    for (const id of leaf.turns ?? []) {
      const known = weights.get(id) ?? { copies: 0, sum: 0 };
      weights.set(id, { copies: known.copies + 1, sum: known.sum + (advantages[index] as number) });
    }
  });
  return weights;
}
