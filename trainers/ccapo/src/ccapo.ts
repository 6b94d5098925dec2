/**
 * CCAPO v4.1 for multi-turn agents (ALGORITHMS.md §3; seed `ccapo-v4.1.md`), in CleanRL's shape: Args →
 * collect (G rollouts per task) → advantages (a macro stream over each task group, a micro stream against the
 * persistent history store, fused per turn) → update (PPO-clip + KL). The plumbing is `@turngym/rl`'s
 * `runTrainer`; the history store (STDB) is a SQLite file in the run directory, checkpointed with the run.
 *
 * Fingerprints and anchors come from the env's hooks in every step's info; nothing here knows an env.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatEnvId, InvalidOptionsError, parseEnvId, type JSONSchemaType } from '@turngym/core';
import {
  collectChains,
  defineTrainerArgs,
  hasActionTokens,
  ppoUpdate,
  ppoUpdateOptions,
  RUN_FILES,
  runTrainer,
  type TrainerAlgorithm,
  type TrainerArgs,
  type TrainerHooks,
  type TrainResult,
  type Trajectory,
  type UpdateSample,
} from '@turngym/rl';
import {
  fuseAdvantages,
  macroAdvantages,
  macroReward,
  microAdvantages,
  microStatistics,
  rawMicroAdvantage,
} from './dual-stream-advantage';
import { edgeScore } from './edge-score';
import { episodePath, type PathStep } from './episode-path';
import { StdbError } from './stdb-error';
import { checkWarmStart, StdbStore } from './stdb-store';

/** CCAPO's own arguments (ALGORITHMS.md §3); the shared ones are `TrainerArgs`. */
export interface CcapoOwnArgs {
  /** G: rollouts per task; the group of the macro stream's z-score. */
  groupSize: number;
  /** β: weight of the micro stream in A_total = A_macro + β·A_micro (the seed recommends 0.5–1). */
  beta: number;
  /** R_terminal of the macro reward R_τ = 1[success]·R_terminal + N_step·R_penalty. */
  terminalReward: number;
  /** R_penalty: the macro reward's cost of every step (≤ 0). */
  stepPenalty: number;
  /** σ_min: the least std the micro stream is divided by. */
  sigmaMin: number;
  /** α of I(E)'s Bayesian smoothing (a Beta(α, α) prior). */
  priorCount: number;
  /** λ: the weight of C(E) in Q(E) = sigmoid(log(I·(1 + λC)·D)). */
  criticalityWeight: number;
  /** The exponent of D(E) = 1/(d_goal + 1)^exponent. */
  distanceExponent: number;
  /** η: the rate at which V̄(u) moves towards the score of a successful episode's edge. */
  baselineRate: number;
  /** A history store to start from (an earlier run's `stdb.sqlite`); omitted = an empty store. */
  stdbWarmStart?: string;
}

export type CcapoArgs = TrainerArgs & CcapoOwnArgs;

const ccapoOwnProperties: JSONSchemaType<CcapoOwnArgs>['properties'] = {
  groupSize: { type: 'integer', minimum: 2, default: 4 },
  beta: { type: 'number', minimum: 0, default: 0.5 },
  terminalReward: { type: 'number', default: 10 },
  stepPenalty: { type: 'number', maximum: 0, default: -0.1 },
  sigmaMin: { type: 'number', exclusiveMinimum: 0, default: 0.1 },
  priorCount: { type: 'number', exclusiveMinimum: 0, default: 1 },
  criticalityWeight: { type: 'number', minimum: 0, default: 1 },
  distanceExponent: { type: 'number', minimum: 0, default: 0.5 },
  baselineRate: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.1 },
  stdbWarmStart: { type: 'string', minLength: 1, nullable: true },
};

const ccapoArgs = defineTrainerArgs<CcapoOwnArgs>('ccapo', ccapoOwnProperties);
export const ccapoArgsSchema = ccapoArgs.schema;
export const validateCcapoArgs = ccapoArgs.validate;

/** The history store's file in the run directory. */
export const STDB_FILE = 'stdb.sqlite';

/** The env a run's store records (`StdbOptions.env`): its id as the registry writes it. */
function storeEnv(envId: string): string {
  try {
    return formatEnvId(parseEnvId(envId));
  } catch {
    return envId;
  }
}

/** What the last `advantages` saw of the store, logged by `metrics`. */
interface MicroStats {
  steps: number;
  anchorHits: number;
  edgeHits: number;
  loops: number;
  rawMean: number;
  rawStd: number;
}

/** The CCAPO algorithm on the runner; `trainCcapo` runs it. A fresh object per run (it keeps batch stats). */
export function ccapoAlgorithm(): TrainerAlgorithm<CcapoArgs, { trajectories: Trajectory[] }> {
  let stats: MicroStats = { steps: 0, anchorHits: 0, edgeHits: 0, loops: 0, rawMean: 0, rawStd: 0 };
  const storeOf = (stores: Readonly<Record<string, unknown>>) => stores.stdb as StdbStore;

  return {
    name: 'ccapo',
    args: ccapoArgs,

    // The run's history store: <runDir>/stdb.sqlite, empty or a copy of the warm start, in every checkpoint.
    stores: (args) => ({
      stdb: new StdbStore(join(args.runDir, STDB_FILE), {
        ...(args.stdbWarmStart !== undefined ? { warmStart: args.stdbWarmStart } : {}),
        score: {
          priorCount: args.priorCount,
          criticalityWeight: args.criticalityWeight,
          distanceExponent: args.distanceExponent,
        },
        baselineRate: args.baselineRate,
        env: storeEnv(args.envId),
      }),
    }),

    // A warm start that is missing, not a store, damaged or the run's own store must fail before run.json
    // records it: the corrected command would otherwise be refused as another run. A run already recorded is
    // resumed with its store from the checkpoint and needs the warm start no more (it may be gone since); one
    // killed before its first checkpoint starts over, and `StdbStore.reset` checks the warm start then.
    check: (args) => {
      if (args.stdbWarmStart === undefined || existsSync(join(args.runDir, RUN_FILES.info))) return;
      try {
        checkWarmStart(args.stdbWarmStart, join(args.runDir, STDB_FILE), storeEnv(args.envId));
      } catch (error) {
        if (!(error instanceof StdbError)) throw error;
        throw new InvalidOptionsError('ccapo', [`stdbWarmStart: ${error.message}`]);
      }
    },

    // ALGO LOGIC: rollouts — G episodes for each of P tasks drawn from the train split.
    collect: async (request, { args }) => ({
      trajectories: await collectChains({ ...request, groupSize: args.groupSize }),
    }),

    advantages: ({ trajectories }, { args, stores }) =>
      storeOf(stores).use((stdb) => {
        // A rollout the env failed on is reported, never scored.
        const scored = trajectories.filter((t) => t.stopReason !== 'error');
        const paths = scored.map((trajectory) => episodePath(trajectory));

        // ALGO LOGIC: macro stream — R_τ = 1[success]·R_terminal + N_step·R_penalty, z-scored in each task group
        // (ALGORITHMS.md §3 lines 100–101).
        const macro = new Map<Trajectory, number>();
        for (let group = 0; group < args.promptsPerIteration; group++) {
          const members = scored.filter((t) => t.group === group);
          if (members.length === 0) continue;
          const rewards = members.map((t) =>
            macroReward(t.success, t.turns, { terminalReward: args.terminalReward, stepPenalty: args.stepPenalty }),
          );
          const advantages = macroAdvantages(rewards);
          members.forEach((t, index) => macro.set(t, advantages[index]!));
        }

        // ALGO LOGIC: micro stream — A_micro_raw = Q(E) − V̄(anchor) against the history before this batch,
        // 0 at unknown anchors and on loops (line 102–103), then one z-score over every step of the batch with
        // the std floored at σ_min (line 104).
        const global = stdb.globals();
        const raw: number[] = [];
        let anchorHits = 0;
        let edgeHits = 0;
        let loops = 0;
        const rawByTrajectory = scored.map((trajectory, index) => {
          const path = paths[index];
          if (!path) {
            // No hooks on this env's steps: no micro signal, but the steps still count in the batch's z-score.
            const zeros = trajectory.steps.map(() => 0);
            raw.push(...zeros);
            return zeros;
          }
          return path.map((step: PathStep) => {
            const baseline = stdb.baseline(step.anchor);
            const edge = stdb.edge(step.anchor, step.fingerprint);
            if (baseline !== null) anchorHits += 1;
            if (edge) edgeHits += 1;
            if (step.loop) loops += 1;
            const value = rawMicroAdvantage({
              edgeScore: edge ? edgeScore(edge, global, stdb.score) : 0,
              baseline,
              loop: step.loop,
            });
            raw.push(value);
            return value;
          });
        });
        const micro = microAdvantages(raw, args.sigmaMin);
        // The statistics the z-score used (the unbiased std): the population std logged before read below σ_min
        // on batches whose z-score σ_min did not touch (raw [0, 0.15]: 0.075 logged, 0.106 used).
        const { mean: rawMean, std: rawStd } = microStatistics(raw);
        stats = { steps: raw.length, anchorHits, edgeHits, loops, rawMean, rawStd };

        // ALGO LOGIC: fusion — A_total(t) = A_macro(i) + β·A_micro(i, t), one advantage per turn (line 105).
        const samples: UpdateSample[] = [];
        let offset = 0;
        scored.forEach((trajectory, index) => {
          const steps = rawByTrajectory[index]!.length;
          const turnAdvantages = fuseAdvantages(
            macro.get(trajectory) ?? 0,
            Array.from(micro.subarray(offset, offset + steps)),
            args.beta,
          );
          offset += steps;
          // A rollout cut before its first action counts in the statistics but has nothing to train.
          if (!hasActionTokens(trajectory) || turnAdvantages.every((value) => value === 0)) return;
          samples.push({ trajectory, advantage: macro.get(trajectory) ?? 0, turnAdvantages });
        });

        // ALGO LOGIC: the batch enters the history (line 106–107), one transaction: every edge N_total += 1;
        // successes also N_succ += 1, d_goal, and V̄ of the anchor; failures touch nothing else. An episode cut
        // before its first action (its prompt past the context) took no edge: the policy never acted, so it is no
        // failure of the policy's, and counted in N_total^global it lowered the base rate C(E) divides by.
        stdb.record(
          scored.flatMap((trajectory, index) => {
            const path = paths[index];
            return path && path.length > 0 ? [{ success: trajectory.success, path }] : [];
          }),
        );
        return samples;
      }),

    // ALGO LOGIC: PPO-clip on each turn's A_total + β_KL·k3 KL to the adapters-off reference (line 108).
    update: (trainer, samples, { args, iteration }) => ppoUpdate(trainer, samples, ppoUpdateOptions(args, iteration)),

    // The store's reach: how much of the batch it could judge, and its best edges so far.
    metrics: (_rollouts, { stores }) =>
      storeOf(stores).use((stdb) => {
        const summary = stdb.summary();
        const [top] = stdb.topEdges(1, 2);
        return {
          'stdb/anchor_hit_rate': stats.steps > 0 ? stats.anchorHits / stats.steps : 0,
          'stdb/edge_hit_rate': stats.steps > 0 ? stats.edgeHits / stats.steps : 0,
          'stdb/loop_rate': stats.steps > 0 ? stats.loops / stats.steps : 0,
          'stdb/micro_raw_mean': stats.rawMean,
          'stdb/micro_raw_std': stats.rawStd,
          'stdb/edges': summary.edges,
          'stdb/anchors': summary.anchors,
          'stdb/episodes': summary.episodes,
          'stdb/success_rate': summary.episodes > 0 ? summary.successes / summary.episodes : 0,
          'stdb/top_edge_score': top?.score ?? 0,
          'stdb/top_edge_visits': top?.total ?? 0,
        };
      }),
  };
}

/** Trains with CCAPO; a run found in `runDir` is resumed, its history store with it. */
export function trainCcapo(input: Partial<CcapoArgs>, hooks: TrainerHooks = {}): Promise<TrainResult> {
  return runTrainer(ccapoAlgorithm(), input, hooks);
}
