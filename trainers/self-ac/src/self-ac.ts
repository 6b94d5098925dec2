/**
 * Self-AC, one model as actor and critic (ALGORITHMS.md §2), in CleanRL's shape: Args → collect →
 * advantages → update. The plumbing (set-up, resume, evaluation, metrics, checkpoints) is `@turngym/rl`'s
 * `runTrainer`; this file holds only the algorithm. The runner adds the value head (`valueHead: true`) and
 * trains it with the `policy` LoRA adapter; the base weights stay frozen, so both can be dropped after
 * training and the model is the base again (or merged, the base plus one LoRA delta).
 */
import { InvalidOptionsError, mixSeed, type JSONSchemaType } from '@turngym/core';
import type { LanguageModel } from '@turngym/lm';
import {
  ChatTurnFormat,
  collectChains,
  defineTrainerArgs,
  hasActionTokens,
  runTrainer,
  SELF_AC_TD_HORIZONS,
  type TrainerAlgorithm,
  type TrainerArgs,
  type TrainerHooks,
  type TrainResult,
  type Trajectory,
  type UpdateSample,
} from '@turngym/rl';
import { criticPromptTokens } from './critic-prompt';
import { packEpisode, type PackedEpisode } from './packed-episode';
import { EpisodeTooLongError, SelfAcSetupError } from './self-ac-errors';
import { selfAcUpdate, type SelfAcUpdateStats } from './self-ac-update';

/** Self-AC's own arguments; the shared ones are `TrainerArgs`. */
export interface SelfAcOwnArgs {
  /** Rollouts per prompt (Self-AC needs no group; 4 spends what GRPO's default spends per iteration). */
  groupSize: number;
  /** α of §2: Loss = α·Loss_Critic + (1 − α)·Loss_Actor. */
  alpha: number;
  /** λ of §2: the discount of the TD targets and the returns R. */
  discount: number;
  /** N of §2: the critic averages TD(1) … TD(N). */
  tdHorizons: number;
  /**
   * Longest packed episode trained on (tokens + (n + 1)·|cp|): attention memory grows with its square, and
   * wasm's heap is bounded. A longer episode is cut at the last turn boundary that fits, with its return
   * (`perf/episodes_cut`); one whose first turn alone is longer is left out (`perf/episodes_too_long`).
   */
  maxPackedTokens: number;
  /**
   * Extra passes over the batch with the critic's loss alone (α = 1) after each update; 0 (the reference, §2)
   * takes none. The critic's features must be learnt in the shared adapter, and under the α mix the actor's
   * gradient shares it (docs/benchmarks/learning.md, "Why the critic does not learn"); each pass costs one more
   * forward/backward per episode.
   */
  criticEpochs: number;
  /**
   * Iterations at the start of the run whose update trains the critic alone (α = 1, then `criticEpochs` as
   * usual): a value warm-up on the warm start's own rollouts, so that the actor's first advantages
   * A = R − V come from a critic that has seen data rather than from a fresh value head. 0 (the reference,
   * §2) starts the α mix at once. The actor still moves through the shared adapter's features, as under
   * `criticEpochs`. With `criticCloneCoefficient` > 0 the warm-up updates carry the cloning term as well.
   */
  criticWarmupIterations: number;
  /**
   * β_clone of Phasic Policy Gradient's auxiliary phase (Cobbe et al., 2021): the critic-only passes
   * (`criticEpochs`) add β_clone·KL(π_before ‖ π_θ) on the action tokens (k3, π_before = the adapter as the
   * critic passes begin), so the critic reshapes the shared adapter without moving the actor. 0 (default) adds
   * no term; the α-mixed update itself is unchanged. The value warm-up's updates (`criticWarmupIterations`) are
   * critic passes too and carry it.
   */
  criticCloneCoefficient: number;
  /**
   * The value head's own Adam step size (a second parameter group, `Trainer.setValueLearningRate`): the critic's
   * head can need a larger step than the LoRA actor. Absent (the default) = `learningRate` for both.
   */
  valueLearningRate?: number;
}

export type SelfAcArgs = TrainerArgs & SelfAcOwnArgs;

const selfAcOwnProperties: JSONSchemaType<SelfAcOwnArgs>['properties'] = {
  groupSize: { type: 'integer', minimum: 1, default: 4 },
  alpha: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
  discount: { type: 'number', minimum: 0, maximum: 1, default: 1 },
  tdHorizons: { type: 'integer', minimum: 1, default: SELF_AC_TD_HORIZONS },
  maxPackedTokens: { type: 'integer', minimum: 1, default: 1024 },
  criticEpochs: { type: 'integer', minimum: 0, default: 0 },
  criticWarmupIterations: { type: 'integer', minimum: 0, default: 0 },
  criticCloneCoefficient: { type: 'number', minimum: 0, default: 0 },
  valueLearningRate: { type: 'number', exclusiveMinimum: 0, nullable: true },
};

// §2's loss has no KL term: the shared β_KL defaults to 0 here (set it to add k3 to the adapters-off base).
const selfAcArgs = defineTrainerArgs<SelfAcOwnArgs>('self-ac', selfAcOwnProperties, { klCoefficient: 0 });
export const selfAcArgsSchema = selfAcArgs.schema;
export const validateSelfAcArgs = selfAcArgs.validate;

/** The critic prompt of a model, rendered once per model (its chat template does not change). */
function criticPromptOf(model: LanguageModel, cache: WeakMap<LanguageModel, number[]>): number[] {
  let tokens = cache.get(model);
  if (!tokens) cache.set(model, (tokens = criticPromptTokens(model.tokenizer)));
  return tokens;
}

/** The Self-AC algorithm on the runner; each run gets its own (it keeps the last update's statistics). */
export function selfAcAlgorithm(): TrainerAlgorithm<SelfAcArgs, { trajectories: Trajectory[] }> {
  let last: SelfAcUpdateStats | null = null;
  let critic: SelfAcUpdateStats | null = null;
  let tooLong = 0;
  let cut = 0;
  let warmup = false;
  const prompts = new WeakMap<LanguageModel, number[]>();
  return {
    name: 'self-ac',
    args: selfAcArgs,
    valueHead: true,

    // The cloning term acts only in critic passes (`criticEpochs`, the value warm-up): without one it would be
    // accepted and do nothing. Said before the run is written.
    check: (args) => {
      if (args.criticCloneCoefficient > 0 && args.criticEpochs === 0 && args.criticWarmupIterations === 0) {
        throw new InvalidOptionsError('self-ac', [
          `criticCloneCoefficient is ${args.criticCloneCoefficient} but criticEpochs and criticWarmupIterations are 0: the cloning term acts only in the critic-only passes, so it would change nothing; set criticEpochs >= 1 or criticWarmupIterations >= 1, or leave criticCloneCoefficient at 0`,
        ]);
      }
    },

    // ALGO LOGIC: rollouts — G episodes for each of P tasks drawn from the train split.
    collect: async (request, { args }) => {
      last = null;
      critic = null;
      tooLong = 0;
      cut = 0;
      return { trajectories: await collectChains({ ...request, groupSize: args.groupSize }) };
    },

    // ALGO LOGIC: every rollout the env answered is trained. Its advantages A_k = R_k − V(s_k).detach() need
    // the critic's V, which the update's own packed forward computes (the slide's one pass), so the
    // samples carry no advantage here (`advantage` is unused by `update`).
    advantages: ({ trajectories }) =>
      trajectories
        .filter((t) => t.stopReason !== 'error' && hasActionTokens(t) && t.steps.length > 0)
        .map((trajectory): UpdateSample => ({ trajectory, advantage: 0 })),

    // ALGO LOGIC: pack each episode with ShadowPrompt → one forward per episode gives log π_θ(a_k|s_k) and
    // V(s_k) → α·TD(1..N) critic + (1 − α)·turn-level PPO with A = R − V.detach() → one Adam step of the
    // LoRA adapter and the value head per minibatch.
    update: async (trainer, samples, { args, iteration }) => {
      const model = trainer.model;
      // Set at every update (it is not in the optimiser's saved state), so a resumed run steps as the original.
      trainer.setValueLearningRate(args.valueLearningRate ?? null);
      const format = new ChatTurnFormat(model.tokenizer);
      const criticPrompt = criticPromptOf(model, prompts);
      // An episode longer than maxPackedTokens (one that loops to the turn limit) is cut at the last turn that
      // fits, keeping its return, so a policy that starts to loop is still told; only an episode whose first
      // turn alone does not fit is left out.
      const episodes: PackedEpisode[] = [];
      tooLong = 0;
      for (const { trajectory } of samples) {
        try {
          episodes.push(
            packEpisode(trajectory, {
              format,
              criticPrompt,
              discount: args.discount,
              maxPositions: model.config.maxPositions,
              maxPackedTokens: args.maxPackedTokens,
            }),
          );
        } catch (error) {
          if (!(error instanceof EpisodeTooLongError)) throw error;
          tooLong += 1;
        }
      }
      cut = episodes.filter((episode) => episode.vectors.cut).length;
      if (episodes.length === 0) {
        throw new SelfAcSetupError(
          `self-ac: the first turn of every episode of iteration ${iteration} packs to more than maxPackedTokens (${args.maxPackedTokens}), or its prompt and the critic prompt (${criticPrompt.length} tokens) pass the model's ${model.config.maxPositions} positions; lower maxRolloutTokens or the env's turn limit, raise maxPackedTokens, or use a model with a longer context.`,
        );
      }
      // The runner counts iterations from 0: iterations 0 … criticWarmupIterations − 1 warm the critic up.
      warmup = iteration < args.criticWarmupIterations;
      // A warm-up update is a critic pass like the `criticEpochs` ones, so PPG's cloning term holds the actor
      // there too: without it, hundreds of warm-up steps of the critic's loss alone move the shared adapter's
      // actor freely before the α mix begins.
      const cloneTerm = { klCoefficient: args.criticCloneCoefficient, klReference: 'current' as const };
      const options = {
        alpha: warmup ? 1 : args.alpha,
        discount: args.discount,
        horizons: args.tdHorizons,
        clipEpsilon: args.clipEpsilon,
        ...(args.dualClip !== undefined ? { dualClip: args.dualClip } : {}),
        epochs: args.updateEpochs,
        minibatchSize: args.minibatchSize,
        minibatchTokens: args.minibatchTokens,
        klCoefficient: args.klCoefficient,
        entropyCoefficient: warmup ? 0 : args.entropyCoefficient,
        seed: mixSeed(args.seed, iteration),
        ...(warmup && args.criticCloneCoefficient > 0 ? cloneTerm : {}),
      };
      last = await selfAcUpdate(trainer, episodes, options);
      if (args.criticEpochs > 0) {
        // The critic's loss alone (α = 1: the actor term has weight 0, so π moves only through shared features).
        critic = await selfAcUpdate(trainer, episodes, {
          ...options,
          alpha: 1,
          epochs: args.criticEpochs,
          ...cloneTerm,
          entropyCoefficient: 0,
          seed: mixSeed(options.seed, 1),
        });
      }
      return last;
    },

    // The critic's metrics (CleanRL's names); explained variance is left out when the returns do not vary.
    metrics: (_rollouts, { args }) => {
      if (!last) return {};
      const metrics: Record<string, number> = {
        'losses/value_loss': last.valueLoss,
        'losses/total_loss': last.totalLoss,
        'perf/update_episodes': last.episodes,
        'perf/update_turns': last.turns,
        'perf/sequences_forwarded': last.sequencesForwarded,
        'perf/episodes_too_long': tooLong,
        'perf/episodes_cut': cut,
        'charts/critic_warmup': warmup ? 1 : 0,
      };
      last.tdLosses.forEach((loss, n) => (metrics[`losses/td_${n + 1}`] = loss));
      if (Number.isFinite(last.explainedVariance)) metrics['losses/explained_variance'] = last.explainedVariance;
      if (critic) {
        metrics['losses/critic_only_value_loss'] = critic.valueLoss;
        metrics['perf/critic_sequences_forwarded'] = critic.sequencesForwarded;
        if (args.criticCloneCoefficient > 0) metrics['losses/critic_clone_kl'] = critic.klRef;
      }
      return metrics;
    },
  };
}

/** Trains with Self-AC; a run found in `runDir` is resumed. */
export function trainSelfAc(input: Partial<SelfAcArgs>, hooks: TrainerHooks = {}): Promise<TrainResult> {
  return runTrainer(selfAcAlgorithm(), input, hooks);
}
