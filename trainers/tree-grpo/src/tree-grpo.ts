/**
 * Tree-GRPO for multi-turn agents (ALGORITHMS.md §1), in CleanRL's shape: Args → collect (tree rollouts
 * at agent-step nodes) → advantages (intra + inter tree, broadcast over each leaf's tokens) → update
 * (dual-clip PPO with KL to the adapters-off reference and an entropy bonus). The plumbing (set-up,
 * resume, evaluation, metrics, checkpoints) is `@turngym/rl`'s `runTrainer`; this file holds only the
 * algorithm.
 *
 * `ratio: 'sequence'` trains with GSPO's sequence-level ratio on the same tree advantages.
 */
import { InvalidOptionsError, type JSONSchemaType } from '@turngym/core';
import {
  collectTrees,
  defineTrainerArgs,
  isStarvedBranch,
  ppoUpdate,
  ppoUpdateOptions,
  runTrainer,
  TREE_GRPO_DUAL_CLIP,
  treeAdvantageSamples,
  type TrainerAlgorithm,
  type TrainerArgs,
  type TrainerHooks,
  type TrainResult,
  type Trajectory,
  type TreeRollouts,
} from '@turngym/rl';

/** Tree-GRPO's own arguments (ALGORITHMS.md §1); the shared ones are `TrainerArgs`. */
export interface TreeGrpoOwnArgs {
  /** M: trees per prompt (each starts as an independent chain). */
  trees: number;
  /** N: nodes drawn per tree per round, each expanded to the end of its episode. */
  branches: number;
  /** L: rounds of draw-and-expand. Rollouts per prompt: M·(1 + N·L). */
  rounds: number;
}

export type TreeGrpoArgs = TrainerArgs & TreeGrpoOwnArgs;

const treeGrpoOwnProperties: JSONSchemaType<TreeGrpoOwnArgs>['properties'] = {
  trees: { type: 'integer', minimum: 1, default: 2 },
  branches: { type: 'integer', minimum: 0, default: 2 },
  rounds: { type: 'integer', minimum: 0, default: 1 },
};

// The reference's objective: dual clip c = 3 and an entropy bonus of 0.001 (ALGORITHMS.md §1).
const treeGrpoArgs = defineTrainerArgs<TreeGrpoOwnArgs>('tree-grpo', treeGrpoOwnProperties, {
  dualClip: TREE_GRPO_DUAL_CLIP,
  entropyCoefficient: 0.001,
});
export const treeGrpoArgsSchema = treeGrpoArgs.schema;
export const validateTreeGrpoArgs = treeGrpoArgs.validate;

export const treeGrpo: TrainerAlgorithm<TreeGrpoArgs, TreeRollouts> = {
  name: 'tree-grpo',
  args: treeGrpoArgs,

  // One leaf per task is a group of one: every task ties (isTiedGroup), so the run would spend its rollouts
  // and never train. Said before the run is written.
  check: (args) => {
    if (args.trees * (1 + args.branches * args.rounds) < 2) {
      throw new InvalidOptionsError('tree-grpo', [
        `trees is ${args.trees} with branches · rounds = ${args.branches * args.rounds}: M·(1 + N·L) = 1 leaf per task, which never trains (a task needs two leaves to compare); set trees >= 2, or branches and rounds >= 1`,
      ]);
    }
  },

  // ALGO LOGIC: tree rollouts — per task M chains, then L rounds of N branches per tree from nodes drawn
  // uniformly (with replacement) from {root} ∪ non-leaf nodes; branches fork the env and the KV cache.
  collect: (request, { args }) =>
    collectTrees({ ...request, shape: { trees: args.trees, branches: args.branches, rounds: args.rounds } }),

  // ALGO LOGIC: A(i) = A_inter(i) + A_intra(i) (ALGORITHMS.md §1): z-scores over all leaves of the prompt
  // and over the leaves of the leaf's own tree. Each leaf trains as its own full sequence, so a shared
  // prefix is trained once per leaf through it, each copy with that leaf's advantage.
  // A prompt whose leaves are all tied has no signal and is not trained on (its rollouts still count as spent).
  advantages: ({ trajectories }) => treeAdvantageSamples(trajectories),

  // ALGO LOGIC: dual-clip PPO-clip (token ratio, or GSPO's sequence ratio) + β_KL·k3 KL − c_H·entropy.
  update: (trainer, samples, { args, iteration }) => ppoUpdate(trainer, samples, ppoUpdateOptions(args, iteration)),

  // Branches a token budget stopped before their first action are no leaves (`isStarvedBranch`): left out of the
  // advantages above, and said here rather than only in `trajectories.jsonl`. Absent while there are none, so the
  // metric rows of runs that never starve a branch stay what they were.
  metrics: ({ trajectories }): Record<string, number> => {
    const starved = trajectories.filter(isStarvedBranch).length;
    return starved > 0 ? { 'budget/starved_branches': starved } : {};
  },
};

/** Trains with Tree-GRPO; a run found in `runDir` is resumed. */
export function trainTreeGrpo(input: Partial<TreeGrpoArgs>, hooks: TrainerHooks = {}): Promise<TrainResult> {
  return runTrainer(treeGrpo, input, hooks);
}

export type { Trajectory };
