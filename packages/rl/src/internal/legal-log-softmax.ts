import * as tf from '@tensorflow/tfjs';
import { EmptyActionSetError } from '../rl-errors';
import { assertBinaryMask, assertFinite, assertSameLength, type Numbers } from './checks';

/**
 * Logits of an illegal action, before the softmax. Finite on purpose: with −∞ the softmax gives p = 0 and
 * log p = −∞, and 0 × −∞ is NaN in the entropy and in every gradient. exp(−1e9 − max) is exactly 0 in
 * float32, so the distribution is the same as with −∞.
 */
const ILLEGAL_LOGIT = -1e9;

/**
 * log softmax of one row of logits over its legal entries (all entries when `legal` is absent); illegal
 * entries get −Infinity. The plain twin of `legalLogSoftmaxTf`; log-sum-exp is shifted by the max so large
 * logits do not overflow.
 */
export function legalLogSoftmax(what: string, row: number, logits: Numbers, legal?: Numbers): Float64Array {
  assertFinite(what, `logits[${row}]`, logits);
  if (legal !== undefined) {
    assertSameLength(what, { [`logits[${row}]`]: logits, [`legal[${row}]`]: legal });
    if (assertBinaryMask(what, `legal[${row}]`, legal) === 0) throw new EmptyActionSetError(what, row);
  }
  if (logits.length === 0) throw new EmptyActionSetError(what, row);
  const isLegal = (index: number) => legal === undefined || legal[index] === 1;
  let max = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < logits.length; index += 1) {
    if (isLegal(index)) max = Math.max(max, logits[index] as number);
  }
  let sum = 0;
  for (let index = 0; index < logits.length; index += 1) {
    if (isLegal(index)) sum += Math.exp((logits[index] as number) - max);
  }
  const logNormaliser = max + Math.log(sum);
  const out = new Float64Array(logits.length);
  for (let index = 0; index < logits.length; index += 1) {
    out[index] = isLegal(index) ? (logits[index] as number) - logNormaliser : Number.NEGATIVE_INFINITY;
  }
  return out;
}

/**
 * log softmax over the last axis with illegal entries pushed to a finite −1e9 (see `ILLEGAL_LOGIT`); callers
 * multiply by a probability that is 0 there, so those entries contribute exactly 0 and no NaN. Reads the
 * legal mask back once to refuse a row with no legal action, as the plain twin does.
 */
export function legalLogSoftmaxTf(what: string, logits: tf.Tensor, legal?: tf.Tensor): tf.Tensor {
  if (legal === undefined) return tf.logSoftmax(logits);
  const counts = tf.tidy(() => tf.sum(legal.toFloat(), -1).dataSync());
  const values = tf.tidy(() => legal.dataSync());
  for (let index = 0; index < values.length; index += 1) {
    if (values[index] !== 0 && values[index] !== 1) {
      throw new RangeError(`${what}: legal holds ${String(values[index])}; a legal mask holds only 0 and 1.`);
    }
  }
  counts.forEach((count, row) => {
    if (count === 0) throw new EmptyActionSetError(what, row);
  });
  return tf.tidy(() => tf.logSoftmax(tf.where(tf.cast(legal, 'bool'), logits, tf.fill(logits.shape, ILLEGAL_LOGIT))));
}
