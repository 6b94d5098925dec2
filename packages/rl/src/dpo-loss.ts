import * as tf from '@tensorflow/tfjs';
import { defineOptions, type JSONSchemaType } from '@turngym/core';
import { assertBinaryMask, assertFinite, assertSameLength, type Numbers } from './internal/checks';
import { assertSameShape } from './internal/tensor-checks';
import { EmptyLossMaskError } from './rl-errors';

/**
 * DPO (Rafailov et al. 2023, "Direct Preference Optimization", eq. 7): for a preference pair — a chosen
 * (winning) sequence w and a rejected (losing) sequence l for the same prompt — with log π the *summed*
 * log-probability of a sequence's action tokens,
 *   m = β·((log π_θ(w) − log π_ref(w)) − (log π_θ(l) − log π_ref(l))),
 *   L = mean over pairs of −log σ(m) = softplus(−m).
 * softplus(−m) is computed stably (no exp overflow for large |m|). The gradient in log π_θ(w) is −β·σ(−m):
 * pairs the policy already ranks right by a wide margin stop pulling. ALGORITHMS.md §1 notes that Tree-GRPO's
 * intra-tree advantage is structurally a step-level DPO on sibling branches.
 */
export interface DpoInputs<T> {
  /** log π_θ(w): summed action-token log-probs of each chosen sequence (`sequenceLogprob`), one per pair. */
  readonly chosenLogp: T;
  /** log π_θ(l) of each rejected sequence. */
  readonly rejectedLogp: T;
  /** log π_ref(w): the chosen sequences under the frozen reference (with LoRA: the adapters disabled). */
  readonly referenceChosenLogp: T;
  /** log π_ref(l). */
  readonly referenceRejectedLogp: T;
}

export interface DpoLossOptions {
  /** β: how far from the reference the implicit reward lets the policy move (DPO's experiments: 0.1 to 0.5). */
  beta: number;
}

export const dpoLossOptionsSchema: JSONSchemaType<DpoLossOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    beta: { type: 'number', exclusiveMinimum: 0, default: 0.1 },
  },
};

export const validateDpoLossOptions = defineOptions<DpoLossOptions>('DPO loss', dpoLossOptionsSchema);

/** Σ_t mask_t·logp_t: the log-probability of one sequence's action tokens, DPO's log π(y | x). */
export function sequenceLogprob(logp: Numbers, mask: Numbers): number {
  const what = 'sequenceLogprob';
  assertSameLength(what, { logp, mask });
  assertFinite(what, 'logp', logp);
  if (assertBinaryMask(what, 'mask', mask) === 0) throw new EmptyLossMaskError(what);
  let sum = 0;
  for (let t = 0; t < mask.length; t += 1) if (mask[t] === 1) sum += logp[t] as number;
  return sum;
}

/** `sequenceLogprob` per row of [batch, tokens] tensors: a [batch] tensor, differentiable in `logp`. */
export function sequenceLogprobTf(logp: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor1D {
  const what = 'sequenceLogprobTf';
  assertSameShape(what, { logp, mask });
  return tf.tidy(() => {
    const floatMask = mask.toFloat();
    tf.sum(floatMask, 1)
      .dataSync()
      .forEach((count, row) => {
        if (count === 0) throw new EmptyLossMaskError(`${what}: row ${row}`);
      });
    return tf.sum(tf.mul(logp, floatMask), 1) as tf.Tensor1D;
  });
}

/** One pair's loss −log σ(m) = softplus(−m), stable for any m. */
export function dpoPairLoss(margin: number): number {
  return Math.max(-margin, 0) + Math.log1p(Math.exp(-Math.abs(margin)));
}

/** The DPO loss on plain numbers: one entry per pair in each array; mean over pairs. */
export function dpoLoss(inputs: DpoInputs<Numbers>, options: Partial<DpoLossOptions> = {}): number {
  const { beta } = validateDpoLossOptions(options);
  const what = 'dpoLoss';
  const pairs = assertSameLength(what, { ...inputs });
  if (pairs === 0) throw new RangeError(`${what}: there are no pairs.`);
  for (const [name, values] of Object.entries(inputs)) assertFinite(what, name, values as Numbers);
  let sum = 0;
  for (let pair = 0; pair < pairs; pair += 1) {
    const chosen = (inputs.chosenLogp[pair] as number) - (inputs.referenceChosenLogp[pair] as number);
    const rejected = (inputs.rejectedLogp[pair] as number) - (inputs.referenceRejectedLogp[pair] as number);
    sum += dpoPairLoss(beta * (chosen - rejected));
  }
  return sum / pairs;
}

/** The same on [pairs] tensors; a scalar whose gradient flows into the policy's log-probs. */
export function dpoLossTf(inputs: DpoInputs<tf.Tensor1D>, options: Partial<DpoLossOptions> = {}): tf.Scalar {
  const { beta } = validateDpoLossOptions(options);
  const what = 'dpoLossTf';
  assertSameShape(what, { ...inputs });
  if (inputs.chosenLogp.rank !== 1 || inputs.chosenLogp.shape[0] === 0) {
    throw new RangeError(
      `${what}: the log-probs must be [pairs] with at least one pair (chosenLogp is [${inputs.chosenLogp.shape.join(', ')}]).`,
    );
  }
  return tf.tidy(() => {
    const chosen = tf.sub(inputs.chosenLogp, inputs.referenceChosenLogp);
    const rejected = tf.sub(inputs.rejectedLogp, inputs.referenceRejectedLogp);
    const margin = tf.mul(tf.sub(chosen, rejected), beta);
    return tf.mean(tf.softplus(tf.neg(margin))) as tf.Scalar;
  });
}
