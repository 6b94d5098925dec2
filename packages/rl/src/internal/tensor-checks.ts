import * as tf from '@tensorflow/tfjs';
import { EmptyLossMaskError } from '../rl-errors';

export function assertSameShape(what: string, tensors: Record<string, tf.Tensor>): void {
  const entries = Object.entries(tensors);
  const [firstName, first] = entries[0] as [string, tf.Tensor];
  for (const [name, tensor] of entries.slice(1)) {
    if (!tf.util.arraysEqual(tensor.shape, first.shape)) {
      const shapes = entries.map(([n, t]) => `${n} is [${t.shape.join(', ')}]`).join(', ');
      throw new RangeError(`${what}: ${name} and ${firstName} must have the same shape (${shapes}).`);
    }
  }
}

/**
 * Σ mask·values / Σ mask as a scalar. Reading the mask's count back is one small sync per loss; it buys
 * the same clear error as the plain functions instead of a silent NaN (0/0) reaching the optimizer.
 */
export function maskedTokenMeanTf(what: string, values: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  const floatMask = mask.toFloat();
  const count = tf.sum(floatMask);
  if ((count.dataSync()[0] as number) === 0) throw new EmptyLossMaskError(what);
  return tf.div(tf.sum(tf.mul(values, floatMask)), count) as tf.Scalar;
}
