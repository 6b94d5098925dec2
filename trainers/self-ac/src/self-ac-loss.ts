import { defineOptions, type JSONSchemaType } from '@turngym/core';
import { tf } from '@turngym/lm';
import {
  ppoTurnClipLoss,
  ppoTurnClipLossTf,
  SELF_AC_TD_HORIZONS,
  tdCriticLoss,
  tdCriticLossTf,
  tdTarget,
  type TurnSpan,
} from '@turngym/rl';
import { bootstrappedReturns, episodeDiscount, lastStateLive, tdRewards, type EpisodeBatch } from './episode-vectors';
import type { PackedEpisode } from './packed-episode';

/**
 * Self-AC's loss (ALGORITHMS.md §2) over packed episodes:
 *   Loss_Critic = (Loss_TD(1) + … + Loss_TD(N))/N   (rl's `tdCriticLoss`, semi-gradient targets, N = 5),
 *   A_k = R_k − V(s_k).detach(),
 *   Loss_Actor  = turn-level PPO-clip on ρ_k = exp(clamp(Σ_{t∈a_k}(log π_θ − log π_old), ±20))  (rl's `ppoTurnClipLoss`),
 *   Loss = α·Loss_Critic + (1 − α)·Loss_Actor.
 * V(s_n) of a terminal episode is 0, not the head's output, and so is a cut episode's, whose known return
 * closes its rewards instead (`tdRewards`); the critic trains V(s_0 … s_(n−1)) (see `EpisodeBatch.live`,
 * `criticMask`). A truncated episode's V(s_n) stands in for the rewards after it: every TD target reaching past
 * s_n stops there and bootstraps from it, and R_k takes λ^(n−k)·V(s_n).detach() (`bootstrappedReturns`). The TD loss is the masked mean, not §2's plain squared norm
 * **[choice]**: it keeps the critic term on the actor's scale (a turn mean) whatever the batch size.
 */
export interface SelfAcLossOptions {
  /** α of §2: the critic's share of the loss. */
  alpha: number;
  /**
   * λ of §2: the discount of the TD targets and of R. Read from the episodes (`packEpisode`'s `discount`, which
   * R was computed with) when left out; given, it must equal theirs (`episodeDiscount`). 1 when neither says.
   */
  discount?: number;
  /** N of §2: the critic averages TD(1) … TD(N). */
  horizons: number;
  /** ε of the PPO clip. */
  clipEpsilon: number;
  /** c of dual-clip PPO; omitted = plain PPO-clip (§2). */
  dualClip?: number;
}

export const selfAcLossOptionsSchema: JSONSchemaType<SelfAcLossOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    alpha: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
    discount: { type: 'number', minimum: 0, maximum: 1, nullable: true },
    horizons: { type: 'integer', minimum: 1, default: SELF_AC_TD_HORIZONS },
    clipEpsilon: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.2 },
    dualClip: { type: 'number', exclusiveMinimum: 1, nullable: true },
  },
};

export const validateSelfAcLossOptions = defineOptions<SelfAcLossOptions>('Self-AC loss', selfAcLossOptionsSchema);

export interface SelfAcLossParts<T> {
  readonly loss: T;
  /** Loss_Critic: the mean of TD(1) … TD(N). */
  readonly critic: T;
  readonly actor: T;
}

/**
 * The critic's view of one episode: V with a terminal or cut s_n set to 0, the rewards its targets read
 * (`tdRewards`), its loss mask (s_0 … s_(n−1)), and a truncated episode's s_n marked as its bootstrap.
 */
function criticRow(
  episode: PackedEpisode,
  values: ArrayLike<number>,
): { values: number[]; rewards: number[]; mask: number[]; bootstrap: number[] } {
  const { vectors } = episode;
  const n = vectors.aStart.length;
  const live = lastStateLive(vectors);
  return {
    values: Array.from({ length: n + 1 }, (_, k) => (k === n && !live ? 0 : (values[k] as number))),
    rewards: tdRewards(vectors),
    mask: Array.from({ length: n + 1 }, (_, k) => (k < n ? 1 : 0)),
    bootstrap: Array.from({ length: n + 1 }, (_, k) => (k === n && live ? 1 : 0)),
  };
}

/**
 * The loss on plain numbers: `values[b]` is V(s_0 … s_n) of episode b, `logprobs[b]` log π_θ of each of its
 * packed tokens (as `episode.row.tokens`).
 */
export function selfAcLoss(
  episodes: readonly PackedEpisode[],
  values: readonly ArrayLike<number>[],
  logprobs: readonly ArrayLike<number>[],
  input: Partial<SelfAcLossOptions> = {},
): SelfAcLossParts<number> {
  const options = validateSelfAcLossOptions(input);
  const discount = discountOf(episodes, options.discount, 'Self-AC loss');
  const rows = episodes.map((episode, b) => criticRow(episode, values[b]!));
  const critic = tdCriticLoss(
    {
      values: rows.map((row) => row.values),
      rewards: rows.map((row) => row.rewards),
      mask: rows.map((row) => row.mask),
      bootstrap: rows.map((row) => row.bootstrap),
    },
    { discount, horizons: options.horizons, reduction: 'mean' },
  );
  const actor = ppoTurnClipLoss(
    episodes.map((episode, b) => {
      const { vectors } = episode;
      const row = rows[b]!;
      const returns = bootstrappedReturns(vectors, row.values[vectors.aStart.length]!, discount);
      return {
        logp: logprobs[b]!,
        oldLogp: episode.oldLogprobs,
        turns: turnSpans(episode),
        advantages: vectors.aStart.map((_, k) => returns[k]! - row.values[k]!),
      };
    }),
    clipOptions(options),
  );
  return { loss: options.alpha * critic + (1 - options.alpha) * actor, critic, actor };
}

/** λ of packed episodes: theirs, or the option when they do not say (`episodeDiscount`), else 1. */
export function discountOf(episodes: readonly PackedEpisode[], given: number | undefined, subject: string): number {
  return (
    episodeDiscount(
      episodes.map((episode) => episode.vectors.discount),
      given,
      subject,
    ) ?? 1
  );
}

/** Each action's token span in the packed row (a_start … a_end, inclusive). */
export function turnSpans(episode: PackedEpisode): TurnSpan[] {
  return episode.vectors.aStart.map((start, k) => ({ start, end: episode.vectors.aEnd[k]! }));
}

function clipOptions(options: SelfAcLossOptions): { clipEpsilon: number; dualClip?: number } {
  return {
    clipEpsilon: options.clipEpsilon,
    ...(options.dualClip !== undefined ? { dualClip: options.dualClip } : {}),
  };
}

/**
 * V(s_k) read out of a forward's per-token values at the end of every critic prompt: [B, S], 0 on padding
 * and on a terminal s_n (`batch.live`). Differentiable: the gradient reaches the value head and the body.
 */
export function stateValuesTf(values: tf.Tensor2D, batch: EpisodeBatch): tf.Tensor2D {
  const [B, T] = values.shape;
  const S = batch.states;
  const index = new Int32Array(B * S);
  for (let b = 0; b < B; b += 1) for (let k = 0; k < S; k += 1) index[b * S + k] = b * T + batch.cpEnd[b * S + k]!;
  return tf.tidy(
    () =>
      tf.mul(
        tf.reshape(tf.gather(tf.reshape(values, [B * T]), tf.tensor1d(index, 'int32')), [B, S]),
        tf.tensor2d(batch.live, [B, S]),
      ) as tf.Tensor2D,
  );
}

/**
 * The same on a packed forward's outputs (logprobs and values [B, T]), for the episodes of `batch` in order;
 * `oldLogprobs` [B, T] is π_old per packed token. Also returns V [B, S] (for statistics).
 */
export function selfAcLossTf(
  outputs: { readonly logprobs: tf.Tensor2D; readonly values: tf.Tensor2D },
  batch: EpisodeBatch,
  oldLogprobs: tf.Tensor2D,
  turns: readonly (readonly TurnSpan[])[],
  input: Partial<SelfAcLossOptions> = {},
): SelfAcLossParts<tf.Scalar> & { readonly stateValues: tf.Tensor2D } {
  const options = validateSelfAcLossOptions(input);
  const discount = episodeDiscount([batch.discount], options.discount, 'Self-AC loss') ?? 1;
  const B = batch.episodes;
  const { states: S, turns: K } = batch;
  const stateValues = stateValuesTf(outputs.values, batch);
  const parts = tf.tidy(() => {
    const critic = tdCriticLossTf(
      {
        values: stateValues,
        rewards: tf.tensor2d(batch.rewards, [B, S]),
        mask: tf.tensor2d(batch.criticMask, [B, S]),
        bootstrap: tf.tensor2d(batch.bootstrap, [B, S]),
      },
      { discount, horizons: options.horizons, reduction: 'mean' },
    );
    // A = R − V.detach(): a copy of V's numbers, as the slide's `.detach().clone()`; a truncated episode's R_k
    // takes λ^(n−k)·V(s_n) (`bootstrappedReturns`).
    const detached = tf.tensor2d(stateValues.dataSync(), [B, S]);
    const tail = new Float32Array(B * S);
    for (let b = 0; b < B; b += 1) {
      const n = batch.bootstrap.subarray(b * S, (b + 1) * S).indexOf(1);
      for (let k = 0; k < n; k += 1) tail[b * S + k] = discount ** (n - k);
    }
    const lastValue = tf.sum(tf.mul(detached, tf.tensor2d(batch.bootstrap, [B, S])), 1, true);
    const returns = tf.add(tf.tensor2d(batch.returns, [B, S]), tf.mul(tf.tensor2d(tail, [B, S]), lastValue));
    const advantages = tf.slice(tf.sub(returns, detached), [0, 0], [B, K]) as tf.Tensor2D;
    const actor = ppoTurnClipLossTf(
      { logp: outputs.logprobs, oldLogp: oldLogprobs, advantages, turns },
      clipOptions(options),
    );
    const loss = tf.add(tf.mul(critic, options.alpha), tf.mul(actor, 1 - options.alpha)) as tf.Scalar;
    return { loss, critic, actor };
  });
  return { ...parts, stateValues };
}

/**
 * Loss_TD(1) … Loss_TD(N) separately (the `losses/td_n` metrics), summed over the masked states of the
 * episodes, with the count to average by: plain numbers, from V as read out of a forward.
 */
export function tdLossesByHorizon(
  episodes: readonly PackedEpisode[],
  values: readonly ArrayLike<number>[],
  options: Pick<SelfAcLossOptions, 'discount' | 'horizons'>,
): { sums: number[]; count: number } {
  const discount = discountOf(episodes, options.discount, 'tdLossesByHorizon');
  const sums = new Array<number>(options.horizons).fill(0);
  let count = 0;
  episodes.forEach((episode, b) => {
    const row = criticRow(episode, values[b]!);
    count += row.mask.reduce((sum, m) => sum + m, 0);
    const bootstrapAt = row.bootstrap.indexOf(1);
    for (let steps = 1; steps <= options.horizons; steps += 1) {
      const target = tdTarget(row.rewards, row.values, steps, discount, bootstrapAt);
      row.mask.forEach((m, k) => {
        if (m === 1) sums[steps - 1] = sums[steps - 1]! + (row.values[k]! - target[k]!) ** 2;
      });
    }
  });
  return { sums, count };
}
