import * as tf from '@tensorflow/tfjs';
import { assertBinaryMask, assertFinite, assertSameLength, type Numbers } from './internal/checks';
import { assertSameShape, maskedTokenMeanTf } from './internal/tensor-checks';
import { EmptyLossMaskError } from './rl-errors';

/** ALGORITHMS.md §0: the KL term's coefficient β_KL. */
export const KL_COEFFICIENT = 0.001;

export interface KlInputs<T> {
  /** Log-probs of the sampled tokens under π_θ. */
  readonly logp: T;
  /** The same tokens under the reference policy (with LoRA: the adapters disabled). */
  readonly refLogp: T;
  readonly mask: T;
}

/**
 * The k3 ("low-var") estimator of KL(π_θ ‖ π_ref) for one token (ALGORITHMS.md §0), d = ref − logp:
 *   k3 = exp(d) − d − 1 ≥ 0, zero exactly when the two agree.
 */
export function k3KlToken(logp: number, refLogp: number): number {
  const d = refLogp - logp;
  return Math.exp(d) - d - 1;
}

/** Masked token-mean of k3 over action tokens; plain numbers in, one number out. */
export function k3Kl(inputs: KlInputs<Numbers>): number {
  const what = 'k3Kl';
  assertSameLength(what, { logp: inputs.logp, refLogp: inputs.refLogp, mask: inputs.mask });
  assertFinite(what, 'logp', inputs.logp);
  assertFinite(what, 'refLogp', inputs.refLogp);
  const count = assertBinaryMask(what, 'mask', inputs.mask);
  if (count === 0) throw new EmptyLossMaskError(what);
  let sum = 0;
  for (let t = 0; t < inputs.mask.length; t += 1) {
    if (inputs.mask[t] === 1) sum += k3KlToken(inputs.logp[t] as number, inputs.refLogp[t] as number);
  }
  return sum / count;
}

/** The same on tensors of one shape; a scalar to add to the loss as β_KL · KL. */
export function k3KlTf(inputs: KlInputs<tf.Tensor>): tf.Scalar {
  const what = 'k3KlTf';
  assertSameShape(what, { logp: inputs.logp, refLogp: inputs.refLogp, mask: inputs.mask });
  return tf.tidy(() => {
    const d = tf.sub(inputs.refLogp, inputs.logp);
    const perToken = tf.sub(tf.sub(tf.exp(d), d), 1);
    return maskedTokenMeanTf(what, perToken, inputs.mask);
  });
}
