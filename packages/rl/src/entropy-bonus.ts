import * as tf from '@tensorflow/tfjs';
import { assertBinaryMask, type Numbers } from './internal/checks';
import { legalLogSoftmax, legalLogSoftmaxTf } from './internal/legal-log-softmax';
import { assertSameShape, maskedTokenMeanTf } from './internal/tensor-checks';
import { EmptyLossMaskError } from './rl-errors';

/**
 * The entropy bonus (ALGORITHMS.md §1: Tree-GRPO's objective subtracts 0.001·H; §5: AlphaZero's loss
 * subtracts 1e-4·H of its policy head). Returns the masked mean entropy H̄ ≥ 0; the update adds −c_H·H̄ to
 * its loss, so a larger entropy lowers the loss and keeps the policy from collapsing early.
 *
 * Inputs are the logits of each position's next-token (or next-action) distribution, one row per position.
 * `legal` (0/1 per logit, optional) restricts a row's distribution to its legal actions — a policy head over
 * a masked discrete action set (§5's action mask); token distributions leave it out.
 */
export interface EntropyInputs {
  /** Logits, one row per position. */
  readonly logits: readonly Numbers[];
  /** 0/1 per position; 1 where the entropy counts (the action tokens, `lossMask`). */
  readonly mask: Numbers;
  /** 0/1 per logit, one row per position; 1 on legal actions. Absent: every entry is legal. */
  readonly legal?: readonly Numbers[];
}

/** `EntropyInputs` on tensors: logits [..., V], mask [...] (logits' shape without V), legal like logits. */
export interface EntropyTensors {
  readonly logits: tf.Tensor;
  readonly mask: tf.Tensor;
  readonly legal?: tf.Tensor;
}

/**
 * The entropy of one distribution given by its logits:
 *   H = −Σ_a p_a·log p_a,   log p = logits − logsumexp(logits over the legal actions),
 * with illegal actions (p = 0) contributing 0.
 */
export function tokenEntropy(logits: Numbers, legal?: Numbers): number {
  const logProbabilities = legalLogSoftmax('tokenEntropy', 0, logits, legal);
  return entropyOf(logProbabilities);
}

/** Masked mean of `tokenEntropy` over positions: H̄ = Σ_t mask_t·H_t / Σ_t mask_t. Plain numbers in, a number out. */
export function entropyBonus(inputs: EntropyInputs): number {
  const what = 'entropyBonus';
  if (inputs.logits.length !== inputs.mask.length) {
    throw new RangeError(
      `${what}: mask and logits must have one entry per position (logits has ${inputs.logits.length} rows, mask has ${inputs.mask.length}).`,
    );
  }
  if (inputs.legal !== undefined && inputs.legal.length !== inputs.logits.length) {
    throw new RangeError(
      `${what}: legal and logits must have the same rows (logits has ${inputs.logits.length}, legal has ${inputs.legal.length}).`,
    );
  }
  const count = assertBinaryMask(what, 'mask', inputs.mask);
  if (count === 0) throw new EmptyLossMaskError(what);
  let sum = 0;
  for (let t = 0; t < inputs.mask.length; t += 1) {
    // Every row is checked, masked or not, as the tensor twin checks the whole legal mask.
    const entropy = entropyOf(legalLogSoftmax(what, t, inputs.logits[t] as Numbers, inputs.legal?.[t]));
    if (inputs.mask[t] === 1) sum += entropy;
  }
  return sum / count;
}

/** The same on tensors (`EntropyTensors`). Returns the scalar H̄; its gradient flows into the logits. */
export function entropyBonusTf(inputs: EntropyTensors): tf.Scalar {
  const what = 'entropyBonusTf';
  const positions = inputs.logits.shape.slice(0, -1);
  if (!tf.util.arraysEqual(positions, inputs.mask.shape)) {
    throw new RangeError(
      `${what}: mask must have logits' shape without its last axis (logits is [${inputs.logits.shape.join(', ')}], mask is [${inputs.mask.shape.join(', ')}]).`,
    );
  }
  if (inputs.legal !== undefined) assertSameShape(what, { logits: inputs.logits, legal: inputs.legal });
  return tf.tidy(() => {
    const logProbabilities = legalLogSoftmaxTf(what, inputs.logits, inputs.legal);
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logProbabilities), logProbabilities), -1));
    return maskedTokenMeanTf(what, entropy, inputs.mask);
  });
}

function entropyOf(logProbabilities: Float64Array): number {
  let entropy = 0;
  for (const logProbability of logProbabilities) {
    if (logProbability !== Number.NEGATIVE_INFINITY) entropy -= Math.exp(logProbability) * logProbability;
  }
  return entropy;
}
