/**
 * Central finite differences of a plain-number loss, in float64: the reference a tensor loss's `tf.grad`
 * (float32) is checked against, which also ties the tensor loss to its plain twin.
 */
export function numericGradient(loss: (x: number[]) => number, x: readonly number[], step = 1e-6): number[] {
  return x.map((_, index) => {
    const up = [...x];
    const down = [...x];
    up[index] = (up[index] as number) + step;
    down[index] = (down[index] as number) - step;
    return (loss(up) - loss(down)) / (2 * step);
  });
}
