import { defineOptions, SeededRng, type JSONSchemaType } from '@turngym/core';
import { eventLoopYielder, tf, type ForwardOutputs, type Trainer } from '@turngym/lm';
import { explainedVariance, k3KlTf, packMinibatches, turnLogRatios, type PpoUpdateStats } from '@turngym/rl';
import { bootstrappedReturns, padEpisodeVectors } from './episode-vectors';
import type { PackedEpisode } from './packed-episode';
import { SelfAcSetupError } from './self-ac-errors';
import {
  discountOf,
  selfAcLossOptionsSchema,
  selfAcLossTf,
  tdLossesByHorizon,
  turnSpans,
  type SelfAcLossOptions,
} from './self-ac-loss';

/** How the actor and critic are updated from one batch of packed episodes. */
export interface SelfAcUpdateOptions extends SelfAcLossOptions {
  /** Passes over the batch. */
  epochs: number;
  /** Episodes per optimiser step. */
  minibatchSize: number;
  /** Most padded tokens per forward pass; a bigger minibatch is run in passes whose gradients are summed. */
  minibatchTokens: number;
  /** β_KL on the k3 KL to the reference policy (`klReference`); 0 (§2 has none) skips the reference pass. */
  klCoefficient: number;
  /**
   * The policy the KL term holds the actor to: `base`, the model with its adapter off (the usual KL to a
   * reference model), or `current`, the trained adapter as it is when the update starts — Phasic Policy
   * Gradient's behavioural-cloning term, which lets critic-only passes change the shared features while
   * keeping the actor's action probabilities where they were.
   */
  klReference: 'base' | 'current';
  /** Weight of the entropy bonus on action tokens. */
  entropyCoefficient: number;
  /** Seeds the minibatch shuffling. */
  seed: number;
}

const properties = selfAcLossOptionsSchema.properties as Record<string, unknown>;
export const selfAcUpdateOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    ...properties,
    epochs: { type: 'integer', minimum: 1, default: 1 },
    minibatchSize: { type: 'integer', minimum: 1, default: 8 },
    minibatchTokens: { type: 'integer', minimum: 1, default: 4096 },
    klCoefficient: { type: 'number', minimum: 0, default: 0 },
    klReference: { type: 'string', enum: ['base', 'current'], default: 'base' },
    entropyCoefficient: { type: 'number', minimum: 0, default: 0 },
    seed: { type: 'integer', default: 0 },
  },
} as unknown as JSONSchemaType<SelfAcUpdateOptions>;

export const validateSelfAcUpdateOptions = defineOptions<SelfAcUpdateOptions>(
  'Self-AC update',
  selfAcUpdateOptionsSchema,
);

/** The shared PPO statistics (over turns, not tokens: the ratio is per turn) and the critic's. */
export interface SelfAcUpdateStats extends PpoUpdateStats {
  /** Loss_Critic, averaged over the gradient steps. */
  readonly valueLoss: number;
  /** Loss_TD(1) … Loss_TD(N), each a mean over the trained states. */
  readonly tdLosses: readonly number[];
  /** 1 − Var(R − V)/Var(R) over s_0 … s_(n−1), V as the first epoch's forward passes read it (NaN if Var(R) = 0). */
  readonly explainedVariance: number;
  /** The alpha-mixed loss, averaged over the gradient steps. */
  readonly totalLoss: number;
  readonly episodes: number;
  /** Actions (turns) in the batch. */
  readonly turns: number;
  /** Sequences through the model's forward and backward, all epochs: episodes × epochs (the cost claim). */
  readonly sequencesForwarded: number;
  /** Forward/backward calls (a minibatch longer than `minibatchTokens` takes several). */
  readonly forwardPasses: number;
}

/**
 * One Self-AC update: per minibatch of packed episodes, one forward (per `minibatchTokens` piece) gives
 * log π_θ of every action and V of every state, the α-mixed loss is taken, and one Adam step moves the
 * trainer's LoRA adapter and value head (nothing else: the base stays frozen). π_old is each rollout's
 * own sampling logprob, as in `ppoUpdate`.
 */
export async function selfAcUpdate(
  trainer: Trainer,
  episodes: readonly PackedEpisode[],
  input: Partial<SelfAcUpdateOptions> = {},
): Promise<SelfAcUpdateStats> {
  const options = validateSelfAcUpdateOptions(input);
  // λ has one value: the episodes' (packEpisode's), which a given `discount` must equal.
  const discount = discountOf(episodes, options.discount, 'Self-AC update');
  const lossOptions: SelfAcLossOptions = {
    alpha: options.alpha,
    discount,
    horizons: options.horizons,
    clipEpsilon: options.clipEpsilon,
    ...(options.dualClip !== undefined ? { dualClip: options.dualClip } : {}),
  };
  if (!trainer.options.valueHead || !trainer.options.adapter || trainer.options.base) {
    throw new SelfAcSetupError(
      'selfAcUpdate needs a trainer of a LoRA adapter and the value head, not of the base weights (Trainer options adapter, valueHead: true).',
    );
  }
  if (episodes.length === 0) throw new SelfAcSetupError('selfAcUpdate: no episode to train on.');
  const rows = episodes.map((episode) => episode.row);
  const lengths = rows.map((row) => row.tokens.length);
  const turnsOf = (index: number): number => episodes[index]!.vectors.aStart.length;
  const reference: (readonly number[])[] = new Array(episodes.length);
  // Let the event loop run between batches and steps, as ppoUpdate does: a Ctrl-C waited for the whole update.
  const pause = eventLoopYielder();
  if (options.klCoefficient > 0) {
    for (const batch of packMinibatches(
      rows.map((_, index) => index),
      lengths,
      options,
    )) {
      const scored = await trainer.model.score(
        batch.map((index) => rows[index]!),
        { adapter: options.klReference === 'current' ? trainer.options.adapter! : null },
      );
      batch.forEach((index, b) => (reference[index] = scored.logprobs[b]!.map((value) => value ?? 0)));
      await pause();
    }
  }

  const rng = new SeededRng(options.seed);
  const totals = {
    loss: 0,
    policyLoss: 0,
    valueLoss: 0,
    klRef: 0,
    entropy: 0,
    gradNorm: 0,
    steps: 0,
    approxKl: 0,
    clipped: 0,
    trainedTurns: 0,
    trainedTokens: 0,
    sequences: 0,
    passes: 0,
  };
  const td = { sums: new Array<number>(options.horizons).fill(0), count: 0 };
  const explained: { value: number; target: number }[] = [];
  for (let epoch = 0; epoch < options.epochs; epoch += 1) {
    const order = rng.shuffle(episodes.map((_, index) => index));
    for (let first = 0; first < order.length; first += options.minibatchSize) {
      const minibatch = order.slice(first, first + options.minibatchSize);
      const stepTurns = minibatch.reduce((sum, index) => sum + turnsOf(index), 0);
      const step = { loss: 0, policyLoss: 0, valueLoss: 0, klRef: 0, entropy: 0 };
      const parts = packMinibatches(minibatch, lengths, {
        minibatchSize: minibatch.length,
        minibatchTokens: options.minibatchTokens,
      }).map((pass) => {
        const share = pass.reduce((sum, index) => sum + turnsOf(index), 0) / stepTurns;
        totals.sequences += pass.length;
        totals.passes += 1;
        return {
          rows: pass.map((index) => rows[index]!),
          loss: (outputs: ForwardOutputs): tf.Scalar => {
            const passEpisodes = pass.map((index) => episodes[index]!);
            const [B, T] = outputs.logprobs.shape;
            const batch = padEpisodeVectors(passEpisodes.map((episode) => episode.vectors));
            const oldLogprobs = tf.tensor2d(
              padRows(
                passEpisodes.map((episode) => episode.oldLogprobs),
                T,
              ),
              [B, T],
            );
            const terms = selfAcLossTf(
              { logprobs: outputs.logprobs, values: outputs.values! },
              batch,
              oldLogprobs,
              passEpisodes.map(turnSpans),
              lossOptions,
            );
            const mask = outputs.weights;
            const tokens = tf.sum(mask);
            const entropy = outputs.entropy ? tf.div(tf.sum(tf.mul(outputs.entropy, mask)), tokens) : tf.scalar(0);
            const kl =
              options.klCoefficient > 0
                ? k3KlTf({
                    logp: outputs.logprobs,
                    refLogp: tf.tensor2d(
                      padRows(
                        pass.map((index) => reference[index]!),
                        T,
                      ),
                      [B, T],
                    ),
                    mask,
                  })
                : tf.scalar(0);
            // Side statistics, read eagerly (they carry no gradient).
            const stateValues = terms.stateValues.arraySync();
            const logprobs = outputs.logprobs.arraySync();
            const values = passEpisodes.map((episode, b) => stateValues[b]!.slice(0, episode.vectors.cpEnd.length));
            const byHorizon = tdLossesByHorizon(passEpisodes, values, lossOptions);
            byHorizon.sums.forEach((sum, n) => (td.sums[n] = td.sums[n]! + sum));
            td.count += byHorizon.count;
            passEpisodes.forEach((episode, b) => {
              if (epoch === 0) {
                const n = episode.vectors.aStart.length;
                const returns = bootstrappedReturns(episode.vectors, values[b]![n]!, discount);
                episode.vectors.aStart.forEach((_, k) =>
                  explained.push({ value: values[b]![k]!, target: returns[k]! }),
                );
              }
              turnLogRatios(logprobs[b]!, padRows([episode.oldLogprobs], T), turnSpans(episode)).forEach((logRatio) => {
                // approx_kl is (ρ − 1) − log ρ on the true ratio: the clamp to ±20 is the loss's guard against exp
                // overflowing, and with it a turn past it read exp(20) − 21 whatever its log-ratio (a metric that
                // under-reports exactly when the policy has moved most). Inside ±20 the two are the same numbers.
                totals.approxKl += Math.exp(logRatio) - 1 - logRatio;
                // Whether the clip acts: the clamp cannot change that (exp(±20) lies far outside [1 − ε, 1 + ε]).
                const ratio = Math.exp(Math.min(Math.max(logRatio, -20), 20));
                if (Math.abs(ratio - 1) > options.clipEpsilon) totals.clipped += 1;
                totals.trainedTurns += 1;
              });
            });
            totals.trainedTokens += tokens.dataSync()[0]!;
            step.loss += terms.loss.dataSync()[0]! * share;
            step.policyLoss += terms.actor.dataSync()[0]! * share;
            step.valueLoss += terms.critic.dataSync()[0]! * share;
            step.klRef += kl.dataSync()[0]! * share;
            step.entropy += entropy.dataSync()[0]! * share;
            return tf.mul(
              tf.add(
                terms.loss,
                tf.sub(tf.mul(kl, options.klCoefficient), tf.mul(entropy, options.entropyCoefficient)),
              ),
              share,
            ) as tf.Scalar;
          },
        };
      });
      const result = await trainer.stepAccumulated(parts, { entropy: true });
      totals.loss += step.loss;
      totals.policyLoss += step.policyLoss;
      totals.valueLoss += step.valueLoss;
      totals.klRef += step.klRef;
      totals.entropy += step.entropy;
      totals.gradNorm += result.gradNorm;
      totals.steps += 1;
      await pause();
    }
  }
  const steps = Math.max(1, totals.steps);
  const turns = episodes.reduce((sum, episode) => sum + episode.vectors.aStart.length, 0);
  return {
    policyLoss: totals.policyLoss / steps,
    klRef: totals.klRef / steps,
    approxKl: totals.approxKl / Math.max(1, totals.trainedTurns),
    clipFraction: totals.clipped / Math.max(1, totals.trainedTurns),
    entropy: totals.entropy / steps,
    gradNorm: totals.gradNorm / steps,
    steps: totals.steps,
    stoppedEarly: false,
    actionTokens: episodes.reduce((sum, episode) => sum + episode.row.weights.reduce((a, b) => a + b, 0), 0),
    trainedTokens: totals.trainedTokens,
    valueLoss: totals.valueLoss / steps,
    tdLosses: td.sums.map((sum) => sum / Math.max(1, td.count)),
    explainedVariance: explainedVariance(
      explained.map((pair) => pair.value),
      explained.map((pair) => pair.target),
    ),
    totalLoss: totals.loss / steps,
    episodes: episodes.length,
    turns,
    sequencesForwarded: totals.sequences,
    forwardPasses: totals.passes,
  };
}

/** The critic's explained variance: `@turngym/rl`'s, kept exported here for this package's users. */
export { explainedVariance };

/** Right-pads per-row numbers to [B, T]. */
function padRows(rows: readonly (readonly number[])[], length: number): Float32Array {
  const data = new Float32Array(rows.length * length);
  rows.forEach((row, b) => data.set(row.slice(0, length), b * length));
  return data;
}
