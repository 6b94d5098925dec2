/**
 * Plan/Act dual agent (ALGORITHMS.md §4; seed plan-act-dual-agent-report.md), in CleanRL's shape: Args →
 * collect → advantages → update. A planner writes the next sub-task (or finishes with the env's answer
 * action), an actor steps the env until it reports back; one scalar reward at the end is every sample's.
 * The plumbing (set-up, resume, evaluation, metrics, checkpoints) is `@turngym/rl`'s `runTrainer`; the
 * roles, their turns and their KV caches are the rollout engine's (`RolloutPolicy.roles`).
 *
 * `policies: 'shared'` is the seed's path 1 (one set of parameters, the role only in the prompt's cue and
 * the records); `'independent'` its path 2 as §4's [choice]: a LoRA adapter per role on one base in memory.
 */
import { InvalidOptionsError, type JSONSchemaType } from '@turngym/core';
import type { Trainer } from '@turngym/lm';
import {
  collectChains,
  defineTrainerArgs,
  groupAdvantageSamples,
  lossMask,
  POLICY_ADAPTER,
  ppoUpdate,
  ppoUpdateOptions,
  roleStats,
  runTrainer,
  type PpoUpdateStats,
  type TrainerAlgorithm,
  type TrainerArgs,
  type TrainerHooks,
  type TrainResult,
  type Trajectory,
} from '@turngym/rl';
import { ACTOR, DEFAULT_PROTOCOL, PLANNER, planActRoles, type PlanActRoleName } from './plan-act-protocol';

/** Plan/Act's own arguments; the shared ones are `TrainerArgs`. */
export interface PlanActOwnArgs {
  /** G: rollouts per prompt; the group of the group-relative advantage. */
  groupSize: number;
  /** `shared`: one policy, the role only in its cue (seed path 1); `independent`: a LoRA adapter per role (path 2). */
  policies: 'shared' | 'independent';
  /** Loss weight of the planner's tokens (0 freezes the planner). */
  plannerLossWeight: number;
  /** Loss weight of the actor's tokens (0 freezes the actor). */
  actorLossWeight: number;
  /** Most planner turns per episode (sub-tasks and the final answer). */
  plannerMaxTurns: number;
  /** Most actor turns per episode. */
  actorMaxTurns: number;
  /** Most actor turns per sub-task before the planner speaks again without a report. */
  actorTurnsPerTask: number;
}

export type PlanActArgs = TrainerArgs & PlanActOwnArgs;

const planActOwnProperties: JSONSchemaType<PlanActOwnArgs>['properties'] = {
  groupSize: { type: 'integer', minimum: 2, default: 4 },
  policies: { type: 'string', enum: ['shared', 'independent'], default: 'shared' },
  plannerLossWeight: { type: 'number', minimum: 0, default: 1 },
  actorLossWeight: { type: 'number', minimum: 0, default: 1 },
  plannerMaxTurns: { type: 'integer', minimum: 1, default: 4 },
  actorMaxTurns: { type: 'integer', minimum: 1, default: 8 },
  actorTurnsPerTask: { type: 'integer', minimum: 1, default: 3 },
};

const planActArgs = defineTrainerArgs<PlanActOwnArgs>('plan-act', planActOwnProperties);
export const planActArgsSchema = planActArgs.schema;
export const validatePlanActArgs = planActArgs.validate;

/** The adapter each role samples and trains with: path 2's planner has its own; the rest use the policy's. */
export function roleAdapter(policies: PlanActArgs['policies'], role: PlanActRoleName): string {
  return policies === 'independent' && role === PLANNER ? PLANNER : POLICY_ADAPTER;
}

/** The update's statistics of each role (one update per adapter), for the metrics row. */
type RoleUpdates = Partial<Record<PlanActRoleName, PpoUpdateStats>>;

/**
 * The algorithm for one of the seed's two paths (the extra planner adapter exists only in path 2, so the
 * runner's checkpoint holds exactly the adapters that are trained).
 */
export function planActAlgorithm(
  policies: PlanActArgs['policies'],
): TrainerAlgorithm<PlanActArgs, { trajectories: Trajectory[] }> {
  let lastUpdates: RoleUpdates = {};
  return {
    name: 'plan-act',
    args: planActArgs,
    ...(policies === 'independent' ? { adapters: { [PLANNER]: {} } } : {}),

    // ALGO LOGIC: the two roles on the one model (§4): the planner's sub-tasks and final answer, the actor's
    // env actions and report, one history and one system prompt for both (one KV-cache prefix per adapter).
    roles: (args) =>
      planActRoles(
        {
          plannerMaxTurns: args.plannerMaxTurns,
          actorMaxTurns: args.actorMaxTurns,
          actorTurnsPerTask: args.actorTurnsPerTask,
        },
        policies === 'independent' ? { planner: PLANNER } : {},
        DEFAULT_PROTOCOL,
      ),

    // Both roles frozen is a run that spends rollouts and never trains: said before the run is written.
    check: (args) => {
      if (args.plannerLossWeight === 0 && args.actorLossWeight === 0) {
        throw new InvalidOptionsError('plan-act', [
          'plannerLossWeight and actorLossWeight are both 0, so neither role would ever train; set at least one above 0',
        ]);
      }
      // Path 2 updates each adapter on its own role's tokens alone, whose weighted token mean Σ w·l / Σ w
      // cancels w (and Adam would undo a constant scale of the loss anyway): a weight there only turns its
      // role's update on or off. Any other value would be silently read as 1.
      if (policies === 'independent') {
        const ignored = (['plannerLossWeight', 'actorLossWeight'] as const).filter(
          (field) => args[field] !== 0 && args[field] !== 1,
        );
        if (ignored.length > 0) {
          throw new InvalidOptionsError(
            'plan-act',
            ignored.map(
              (field) =>
                `${field} is ${args[field]} with policies 'independent', where each role's adapter trains on its own tokens alone, so a loss weight only turns the role on (1) or freezes it (0); use 0 or 1, or policies 'shared' for weights relative to the other role`,
            ),
          );
        }
      }
    },

    // ALGO LOGIC: rollouts — G Plan/Act episodes for each of P tasks drawn from the train split.
    collect: async (request, { args }) => ({
      trajectories: await collectChains({ ...request, groupSize: args.groupSize }),
    }),

    // ALGO LOGIC: one final reward R_i per episode, written to every planner and actor sample of it (§4):
    // A_i = (R_i − mean_g R) / (std_g R + 1e-6) on every action token of both roles (§0).
    advantages: ({ trajectories }, { args }) => groupAdvantageSamples(trajectories, args.promptsPerIteration),

    // ALGO LOGIC: PPO-clip + β_KL·k3 on each role's tokens with its loss weight (§4's per-role weights; 0
    // freezes the role). Path 1: one update of the shared adapter with both weights. Path 2: one update
    // per role's adapter, the other role's tokens at weight 0 (π_old of a token is its own adapter's).
    update: async (trainer, samples, { args, iteration, trainers }) => {
      const weights: Record<PlanActRoleName, number> = {
        [PLANNER]: args.plannerLossWeight,
        [ACTOR]: args.actorLossWeight,
      };
      const updates: RoleUpdates = {};
      const base = ppoUpdateOptions(args, iteration);
      if (policies === 'shared') {
        if (weights.planner > 0 || weights.actor > 0) {
          updates.actor = await ppoUpdate(trainer, samples, { ...base, roleWeights: weights });
          updates.planner = updates.actor;
        }
      } else {
        for (const role of [ACTOR, PLANNER] as const) {
          if (weights[role] === 0) continue; // frozen: its adapter and its Adam state stay as they are
          const roleTrainer: Trainer = role === PLANNER ? trainers[PLANNER]! : trainer;
          const own = samples.filter((sample) => lossMask(sample.trajectory, { role }).some((bit) => bit > 0));
          if (own.length === 0) continue;
          const other = role === PLANNER ? ACTOR : PLANNER;
          updates[role] = await ppoUpdate(roleTrainer, own, {
            ...base,
            roleWeights: { [role]: weights[role], [other]: 0 },
          });
        }
      }
      lastUpdates = updates;
      const primary = updates.actor ?? updates.planner;
      if (primary === undefined) return frozenStats();
      if (policies === 'shared') return primary;
      // Path 2 ran one update per adapter within the iteration's training time: the runner's token counts
      // (charts/training_tokens_per_second) are both roles', its losses the actor's (the planner's if frozen).
      const ran = [updates.actor, updates.planner].filter((update) => update !== undefined);
      return {
        ...primary,
        actionTokens: ran.reduce((sum, update) => sum + update.actionTokens, 0),
        trainedTokens: ran.reduce((sum, update) => sum + update.trainedTokens, 0),
      };
    },

    // Per role: turns, env steps and the KV-cache prefix reuse of §4's last line, and each adapter's update.
    metrics: ({ trajectories }) => {
      const metrics: Record<string, number> = {};
      const stats = roleStats(trajectories);
      const episodes = Math.max(trajectories.length, 1);
      let turns = 0;
      let hits = 0;
      let reused = 0;
      for (const role of [PLANNER, ACTOR] as const) {
        const entry = stats[role];
        if (!entry) continue;
        metrics[`roles/${role}_turns`] = entry.turns / episodes;
        metrics[`roles/${role}_env_steps`] = entry.envSteps / episodes;
        metrics[`roles/${role}_action_tokens`] = entry.actionTokens / episodes;
        turns += entry.turns;
        hits += entry.cacheHits;
        reused += entry.reusedTokens;
      }
      metrics['cache/hit_rate'] = turns > 0 ? hits / turns : 0;
      metrics['cache/reused_tokens_per_episode'] = reused / episodes;
      if (policies === 'independent') {
        for (const role of [PLANNER, ACTOR] as const) {
          const update = lastUpdates[role];
          if (update) metrics[`losses/${role}_policy_loss`] = update.policyLoss;
        }
      }
      lastUpdates = {};
      return metrics;
    },
  };
}

/** What the runner logs for an iteration in which no role trained (one frozen, the other without samples). */
function frozenStats(): PpoUpdateStats {
  return {
    policyLoss: 0,
    klRef: 0,
    approxKl: 0,
    clipFraction: 0,
    entropy: 0,
    gradNorm: 0,
    steps: 0,
    stoppedEarly: false,
    actionTokens: 0,
    trainedTokens: 0,
  };
}

/** Trains a Plan/Act pair on the env (`policies` picks the seed's path); a run found in `runDir` is resumed. */
export async function trainPlanAct(input: Partial<PlanActArgs>, hooks: TrainerHooks = {}): Promise<TrainResult> {
  // Validated here first only to pick the path; runTrainer validates the same input again.
  const { policies } = validatePlanActArgs({ ...input });
  return runTrainer(planActAlgorithm(policies), input, hooks);
}
