import * as tf from '@tensorflow/tfjs';
import { assertBinaryMask, assertFinite, assertSameLength, type Numbers } from './internal/checks';
import { validatePpoLossOptions, type PpoLossOptions } from './ppo-loss-options';
import { EmptyLossMaskError } from './rl-errors';
import { assertSameShape, maskedTokenMeanTf } from './internal/tensor-checks';

/**
 * PPO-clip (ALGORITHMS.md §0) at token level, with Tree-GRPO's dual clip and token-mean aggregation (§1),
 * and GSPO's sequence-level ratio (§0). Every loss comes twice: on plain numbers (for tests, logging and
 * checking a trainer by hand) and on tfjs tensors (for `tf.grad` / `optimizer.minimize`). They compute the
 * same thing; a test holds them together.
 *
 * Inputs are log-probabilities of the tokens that were sampled: `logp` under π_θ, `oldLogp` under the
 * policy that generated the rollout. Masked-out positions are ignored but must hold finite numbers
 * (pad with 0): 0 × NaN is NaN, in the loss and in its gradient.
 */
export interface PpoLossInputs<T> {
  readonly logp: T;
  readonly oldLogp: T;
  /** Per token: each rollout's advantage broadcast over its action tokens (`leafTokenAdvantages`). */
  readonly advantages: T;
  /** 0/1 per token; 1 on action tokens (`lossMask`). */
  readonly mask: T;
}

/**
 * One token's clipped loss:
 *   l = −min(ρ·A, clip(ρ, 1−ε, 1+ε)·A) = max(−ρ·A, −clip(ρ)·A),   ρ = exp(logp − oldLogp),
 * and with dual clip, for A < 0 only: l = min(l, −c·A).
 */
export function ppoClipTokenLoss(logRatio: number, advantage: number, options: PpoLossOptions): number {
  const clamped = Math.min(Math.max(logRatio, -options.logRatioClamp), options.logRatioClamp);
  const ratio = Math.exp(clamped);
  const clipped = Math.min(Math.max(ratio, 1 - options.clipEpsilon), 1 + options.clipEpsilon);
  const loss = Math.max(-ratio * advantage, -clipped * advantage);
  if (options.dualClip !== undefined && advantage < 0) return Math.min(loss, -options.dualClip * advantage);
  return loss;
}

/**
 * Token-level PPO-clip loss, token-mean over the mask (ALGORITHMS.md §0–1):
 *   L = Σ_t mask_t · l_t / Σ_t mask_t.
 * Plain numbers in, one number out. Rows of a batch are concatenated: the token-mean is over all of them.
 */
export function ppoClipLoss(inputs: PpoLossInputs<Numbers>, options: Partial<PpoLossOptions> = {}): number {
  const settings = validatePpoLossOptions(options);
  const what = 'ppoClipLoss';
  assertSameLength(what, {
    logp: inputs.logp,
    oldLogp: inputs.oldLogp,
    advantages: inputs.advantages,
    mask: inputs.mask,
  });
  for (const name of ['logp', 'oldLogp', 'advantages'] as const) assertFinite(what, name, inputs[name]);
  const count = assertBinaryMask(what, 'mask', inputs.mask);
  if (count === 0) throw new EmptyLossMaskError(what);
  let sum = 0;
  for (let t = 0; t < inputs.mask.length; t += 1) {
    if (inputs.mask[t] === 0) continue;
    const logRatio = (inputs.logp[t] as number) - (inputs.oldLogp[t] as number);
    sum += ppoClipTokenLoss(logRatio, inputs.advantages[t] as number, settings);
  }
  return sum / count;
}

/** The same loss on tensors of one shape (typically [batch, tokens]); returns a scalar to differentiate. */
export function ppoClipLossTf(inputs: PpoLossInputs<tf.Tensor>, options: Partial<PpoLossOptions> = {}): tf.Scalar {
  const settings = validatePpoLossOptions(options);
  const what = 'ppoClipLossTf';
  assertSameShape(what, {
    logp: inputs.logp,
    oldLogp: inputs.oldLogp,
    advantages: inputs.advantages,
    mask: inputs.mask,
  });
  return tf.tidy(() => {
    const loss = ppoClipTokenLossTf(tf.sub(inputs.logp, inputs.oldLogp), inputs.advantages, settings);
    return maskedTokenMeanTf(what, loss, inputs.mask);
  });
}

/**
 * `ppoClipTokenLoss` elementwise on tensors: log-ratios and advantages of one shape in, unreduced losses out.
 * The token, turn and sequence losses differ only in what the log-ratio sums over; they share this.
 */
export function ppoClipTokenLossTf(logRatio: tf.Tensor, advantages: tf.Tensor, options: PpoLossOptions): tf.Tensor {
  return tf.tidy(() => {
    const advantage = advantages.toFloat();
    const ratio = tf.exp(tf.clipByValue(logRatio, -options.logRatioClamp, options.logRatioClamp));
    const clipped = tf.clipByValue(ratio, 1 - options.clipEpsilon, 1 + options.clipEpsilon);
    const loss = tf.maximum(tf.neg(tf.mul(ratio, advantage)), tf.neg(tf.mul(clipped, advantage)));
    if (options.dualClip === undefined) return loss;
    return tf.where(tf.less(advantage, 0), tf.minimum(loss, tf.mul(advantage, -options.dualClip)), loss);
  });
}

/** One sequence for GSPO: its tokens' log-probs and mask, and its one (sequence-level) advantage. */
export interface GspoSequence {
  readonly logp: Numbers;
  readonly oldLogp: Numbers;
  readonly mask: Numbers;
  readonly advantage: number;
}

/**
 * GSPO's sequence-level ratio (ALGORITHMS.md §0): ρ_i = exp(mean_t(logp_θ − logp_old)) over the action
 * tokens of sequence i — the geometric mean of the token ratios, so long and short answers are comparable.
 */
export function gspoSequenceRatio(
  logp: Numbers,
  oldLogp: Numbers,
  mask: Numbers,
  options: Partial<PpoLossOptions> = {},
): number {
  const settings = validatePpoLossOptions(options);
  return Math.exp(clampLogRatio(meanLogRatio('gspoSequenceRatio', logp, oldLogp, mask), settings));
}

/**
 * GSPO loss: the clipped objective on sequence ratios, averaged over sequences:
 *   L = (1/G) Σ_i max(−ρ_i·A_i, −clip(ρ_i, 1−ε, 1+ε)·A_i)   (dual clip as in PPO when set).
 * The GSPO paper clips far tighter than PPO (ε ≈ 3e-4 to 4e-4): pass `clipEpsilon` accordingly.
 */
export function gspoLoss(sequences: readonly GspoSequence[], options: Partial<PpoLossOptions> = {}): number {
  const settings = validatePpoLossOptions(options);
  if (sequences.length === 0) throw new RangeError('gspoLoss: sequences is empty.');
  let sum = 0;
  sequences.forEach((sequence, index) => {
    assertFinite('gspoLoss', `sequences[${index}].advantage`, [sequence.advantage]);
    const logRatio = meanLogRatio(`gspoLoss: sequences[${index}]`, sequence.logp, sequence.oldLogp, sequence.mask);
    sum += ppoClipTokenLoss(logRatio, sequence.advantage, settings);
  });
  return sum / sequences.length;
}

/**
 * GSPO on tensors: logp, oldLogp, mask of shape [batch, tokens]; advantages of shape [batch] (one per
 * sequence). Returns a scalar.
 */
export function gspoLossTf(inputs: PpoLossInputs<tf.Tensor>, options: Partial<PpoLossOptions> = {}): tf.Scalar {
  const settings = validatePpoLossOptions(options);
  const what = 'gspoLossTf';
  assertSameShape(what, { logp: inputs.logp, oldLogp: inputs.oldLogp, mask: inputs.mask });
  if (inputs.logp.rank !== 2 || inputs.advantages.rank !== 1 || inputs.advantages.shape[0] !== inputs.logp.shape[0]) {
    throw new RangeError(
      `${what}: logp must be [batch, tokens] and advantages [batch] (logp is [${inputs.logp.shape.join(', ')}], advantages is [${inputs.advantages.shape.join(', ')}]).`,
    );
  }
  return tf.tidy(() => {
    const mask = inputs.mask.toFloat();
    const perSequence = tf.sum(mask, 1);
    const counts = perSequence.dataSync();
    counts.forEach((count, index) => {
      if (count === 0) throw new EmptyLossMaskError(`${what}: sequence ${index}`);
    });
    const meanLog = tf.div(tf.sum(tf.mul(tf.sub(inputs.logp, inputs.oldLogp), mask), 1), perSequence);
    return tf.mean(ppoClipTokenLossTf(meanLog, inputs.advantages, settings)) as tf.Scalar;
  });
}

function meanLogRatio(what: string, logp: Numbers, oldLogp: Numbers, mask: Numbers): number {
  assertSameLength(what, { logp, oldLogp, mask });
  assertFinite(what, 'logp', logp);
  assertFinite(what, 'oldLogp', oldLogp);
  const count = assertBinaryMask(what, 'mask', mask);
  if (count === 0) throw new EmptyLossMaskError(what);
  let sum = 0;
  for (let t = 0; t < mask.length; t += 1) if (mask[t] === 1) sum += (logp[t] as number) - (oldLogp[t] as number);
  return sum / count;
}

function clampLogRatio(logRatio: number, options: PpoLossOptions): number {
  return Math.min(Math.max(logRatio, -options.logRatioClamp), options.logRatioClamp);
}
