import * as tf from '@tensorflow/tfjs';

/**
 * The identity with a zero gradient (PyTorch's `.detach()`, which tfjs lacks): for semi-gradient targets
 * computed from the same tensor that is being trained.
 */
const detached = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const x = args[0] as tf.Tensor;
  return { value: tf.clone(x), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) };
});

export function stopGradient<T extends tf.Tensor>(x: T): T {
  return detached(x) as T;
}
