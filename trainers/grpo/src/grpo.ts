/**
 * GRPO for multi-turn agents (ALGORITHMS.md §0), in CleanRL's shape: Args → collect → advantages →
 * update. The plumbing (set-up, resume, evaluation, metrics, checkpoints) is `@turngym/rl`'s `runTrainer`;
 * this file holds only the algorithm.
 *
 * `ratio: 'sequence'` turns it into GSPO (sequence-level ratio, same advantages).
 */
import type { JSONSchemaType } from '@turngym/core';
import {
  collectChains,
  defineTrainerArgs,
  groupAdvantageSamples,
  ppoUpdate,
  ppoUpdateOptions,
  runTrainer,
  type TrainerAlgorithm,
  type TrainerArgs,
  type TrainerHooks,
  type TrainResult,
  type Trajectory,
} from '@turngym/rl';

/** GRPO's own argument; the shared ones are `TrainerArgs`. */
export interface GrpoOwnArgs {
  /** G: rollouts per prompt; the group of the group-relative advantage. */
  groupSize: number;
}

export type GrpoArgs = TrainerArgs & GrpoOwnArgs;

const grpoOwnProperties: JSONSchemaType<GrpoOwnArgs>['properties'] = {
  groupSize: { type: 'integer', minimum: 2, default: 4 },
};

const grpoArgs = defineTrainerArgs<GrpoOwnArgs>('grpo', grpoOwnProperties);
export const grpoArgsSchema = grpoArgs.schema;
export const validateGrpoArgs = grpoArgs.validate;

export const grpo: TrainerAlgorithm<GrpoArgs, { trajectories: Trajectory[] }> = {
  name: 'grpo',
  args: grpoArgs,

  // ALGO LOGIC: rollouts — G episodes for each of P tasks drawn from the train split.
  collect: async (request, { args }) => ({
    trajectories: await collectChains({ ...request, groupSize: args.groupSize }),
  }),

  // ALGO LOGIC: group-relative advantages, A_i = (R_i − mean_g R) / (std_g R + 1e-6) (ALGORITHMS.md §0).
  // A rollout the env failed on leaves its group; a tied group (fewer than two, or all rewards equal) has
  // no signal and is not trained on (DAPO's dynamic-sampling filter), its rollouts still count against the
  // budget; a rollout cut before its first action counts in the statistics but has nothing to train.
  advantages: ({ trajectories }, { args }) => groupAdvantageSamples(trajectories, args.promptsPerIteration),

  // ALGO LOGIC: PPO-clip (or GSPO) on the action tokens + β_KL·k3 KL to the adapters-off reference.
  update: (trainer, samples, { args, iteration }) => ppoUpdate(trainer, samples, ppoUpdateOptions(args, iteration)),
};

/** Trains with GRPO (or GSPO); a run found in `runDir` is resumed. */
export function trainGrpo(input: Partial<GrpoArgs>, hooks: TrainerHooks = {}): Promise<TrainResult> {
  return runTrainer(grpo, input, hooks);
}

export type { Trajectory };
