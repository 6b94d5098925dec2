/**
 * GiGPO for multi-turn agents (ALGORITHMS.md §5b; reference: verl-agent `gigpo/core_gigpo.py`), in CleanRL's
 * shape: Args → collect (G rollouts per task) → advantages (episode groups, and anchor-state step groups inside
 * each task group) → update (PPO-clip + KL). The plumbing is `@turngym/rl`'s `runTrainer`. It is CCAPO's
 * baseline: where CCAPO compares a step with the history store, GiGPO compares it with the steps of the same
 * batch that stood in the same state — and at small batches most such groups hold one step.
 */
import type { JSONSchemaType } from '@turngym/core';
import {
  anchorText,
  collectChains,
  defineTrainerArgs,
  hasActionTokens,
  ppoUpdate,
  ppoUpdateOptions,
  runTrainer,
  type TrainerAlgorithm,
  type TrainerArgs,
  type TrainerHooks,
  type TrainResult,
  type Trajectory,
  type UpdateSample,
} from '@turngym/rl';
import { combineGigpo, gigpoGroupAdvantages } from './gigpo-advantages';

/** GiGPO's own arguments (ALGORITHMS.md §5b); the shared ones are `TrainerArgs`. */
export interface GigpoOwnArgs {
  /** G: rollouts per task; the episode group, and the pool the step groups are drawn from. */
  groupSize: number;
  /** γ of the discounted step returns. */
  gamma: number;
  /** ω: the weight of the step advantage in A = A_episode + ω·A_step. */
  omega: number;
  /**
   * What makes two steps the same state: `observation` (§5b: the observation the step was taken on, without
   * history — the task's prompt for the first step) or `anchor` (the env's abstract location, `info.anchor`
   * of the state the previous step reached; the first step's is the start).
   */
  stepGroupKey: 'observation' | 'anchor';
}

export type GigpoArgs = TrainerArgs & GigpoOwnArgs;

const gigpoOwnProperties: JSONSchemaType<GigpoOwnArgs>['properties'] = {
  groupSize: { type: 'integer', minimum: 2, default: 4 },
  gamma: { type: 'number', minimum: 0, maximum: 1, default: 0.95 },
  omega: { type: 'number', minimum: 0, default: 1 },
  stepGroupKey: { type: 'string', enum: ['observation', 'anchor'], default: 'observation' },
};

const gigpoArgs = defineTrainerArgs<GigpoOwnArgs>('gigpo', gigpoOwnProperties);
export const gigpoArgsSchema = gigpoArgs.schema;
export const validateGigpoArgs = gigpoArgs.validate;

/**
 * The anchor state of each step of a rollout: what it saw when it acted (never its history). States are
 * compared as strings (an object anchor as JSON with its keys sorted: `anchorText`); the first step's
 * observation is the task itself, so a task group's first steps always share a group.
 */
export function stepStates(trajectory: Trajectory, key: GigpoOwnArgs['stepGroupKey']): string[] {
  const first = trajectory.initialObservation;
  const start = typeof first === 'string' ? first : JSON.stringify(first ?? null);
  return trajectory.steps.map((_, t) => {
    const observation = t === 0 ? start : trajectory.steps[t - 1]!.observation;
    if (key === 'observation') return `obs:${observation}`;
    const anchor = t === 0 ? '^' : anchorText(trajectory.steps[t - 1]!.info?.anchor);
    // An env without the anchor hook falls back to the observation.
    return anchor !== null ? `anchor:${anchor}` : `obs:${observation}`;
  });
}

/** How the last batch's steps grouped (logged every iteration). */
interface GroupingStats {
  stepGroups: number;
  singletonGroups: number;
  steps: number;
}

/** The GiGPO algorithm on the runner; `trainGigpo` runs it. A fresh object per run (it keeps batch stats). */
export function gigpoAlgorithm(): TrainerAlgorithm<GigpoArgs, { trajectories: Trajectory[] }> {
  let grouping: GroupingStats = { stepGroups: 0, singletonGroups: 0, steps: 0 };
  return {
    name: 'gigpo',
    args: gigpoArgs,

    // ALGO LOGIC: rollouts — G episodes for each of P tasks drawn from the train split.
    collect: async (request, { args }) => ({
      trajectories: await collectChains({ ...request, groupSize: args.groupSize }),
    }),

    advantages: ({ trajectories }, { args }) => {
      const samples: UpdateSample[] = [];
      grouping = { stepGroups: 0, singletonGroups: 0, steps: 0 };
      for (let group = 0; group < args.promptsPerIteration; group++) {
        // A rollout the env failed on is reported, never scored: it leaves its group.
        const members = trajectories.filter((t) => t.group === group && t.stopReason !== 'error');
        if (members.length === 0) continue;

        // ALGO LOGIC: A_episode = group z-score of R_i; A_step = z-score of the discounted return R_t
        // (γ = 0.95) among the group's steps taken in the same anchor state, 0 for a singleton (§5b lines
        // 143–146).
        const levels = gigpoGroupAdvantages(
          members.map((t) => ({
            episodeReturn: t.totalReward,
            anchors: stepStates(t, args.stepGroupKey),
            rewards: t.steps.map((step) => step.reward),
          })),
          args.gamma,
        );
        grouping.stepGroups += levels.stepGroups;
        grouping.singletonGroups += levels.singletonGroups;
        grouping.steps += members.reduce((sum, t) => sum + t.steps.length, 0);

        // ALGO LOGIC: A(i, t) = A_episode(i) + ω·A_step(i, t), one advantage per turn (line 147).
        members.forEach((trajectory, i) => {
          const turnAdvantages = combineGigpo(levels.episode[i]!, levels.step[i]!, args.omega);
          // A rollout cut before its first action counts in the statistics but has nothing to train.
          if (!hasActionTokens(trajectory) || turnAdvantages.every((value) => value === 0)) return;
          samples.push({ trajectory, advantage: levels.episode[i]!, turnAdvantages });
        });
      }
      return samples;
    },

    // ALGO LOGIC: PPO-clip on each turn's advantage + β_KL·k3 KL to the adapters-off reference.
    update: (trainer, samples, { args, iteration }) => ppoUpdate(trainer, samples, ppoUpdateOptions(args, iteration)),

    // How much step-level signal the batch had: the seed's point is that at small batches it mostly vanishes.
    metrics: () => ({
      'gigpo/step_groups': grouping.stepGroups,
      'gigpo/singleton_group_share': grouping.stepGroups > 0 ? grouping.singletonGroups / grouping.stepGroups : 0,
      'gigpo/singleton_step_share': grouping.steps > 0 ? grouping.singletonGroups / grouping.steps : 0,
      'gigpo/mean_step_group_size': grouping.stepGroups > 0 ? grouping.steps / grouping.stepGroups : 0,
    }),
  };
}

/** Trains with GiGPO; a run found in `runDir` is resumed. */
export function trainGigpo(input: Partial<GigpoArgs>, hooks: TrainerHooks = {}): Promise<TrainResult> {
  return runTrainer(gigpoAlgorithm(), input, hooks);
}
