import * as tf from '@tensorflow/tfjs';
import { defineOptions, type JSONSchemaType } from '@turngym/core';
import { assertBinaryMask, assertFinite, assertSameLength, type Numbers } from './internal/checks';
import { stopGradient } from './internal/stop-gradient';
import { assertSameShape } from './internal/tensor-checks';
import { EmptyLossMaskError } from './rl-errors';

/**
 * Self-AC's critic loss (ALGORITHMS.md §2). With ≪k a shift left by k (index t reads t + k, 0 past the end
 * of the row) and λ the discount, the TD(n) target of every state k of an episode is
 *   Y_n = r + λ(r≪1) + … + λ^{n−1}(r≪(n−1)) + λ^n(V≪n),
 *   Loss_TD(n) = ‖(V − Y_n)·mask‖²,   Loss_Critic = (Loss_TD(1) + … + Loss_TD(N))/N,  N = 5.
 * V inside Y_n is detached (§2's [choice]: semi-gradient TD), so the gradient is 2·Σ_n (V − Y_n)·mask / N.
 * Batched rows are right-padded with r = V = 0 (§2), so reading past an episode's end gives 0 either way.
 *
 * `reduction: 'sum'` is §2's ‖·‖² as written; `'mean'` divides by the masked count so the loss does not
 * grow with batch size and episode length (the scale of the other terms, which are means).
 */
export interface TdCriticInputs<T> {
  /** V(s_k), one row per episode. */
  readonly values: T;
  /** r_k, aligned with values. */
  readonly rewards: T;
  /** 0/1 aligned with values; 1 on the states whose value is trained. */
  readonly mask: T;
}

export interface TdCriticLossOptions {
  /** λ of §2: the discount of later rewards and of the bootstrap value. */
  discount: number;
  /** N of §2: the loss averages TD(1) … TD(N). */
  horizons: number;
  /** `sum` (§2's squared norm) or `mean` over masked states. */
  reduction: 'sum' | 'mean';
}

/** §2's N = 5. */
export const SELF_AC_TD_HORIZONS = 5;

export const tdCriticLossOptionsSchema: JSONSchemaType<TdCriticLossOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['discount'],
  properties: {
    discount: { type: 'number', minimum: 0, maximum: 1 },
    horizons: { type: 'integer', minimum: 1, default: SELF_AC_TD_HORIZONS },
    reduction: { type: 'string', enum: ['sum', 'mean'], default: 'sum' },
  },
};

export const validateTdCriticLossOptions = defineOptions<TdCriticLossOptions>(
  'TD critic loss',
  tdCriticLossOptionsSchema,
);

/** Y_n of one episode (plain numbers): Σ_{j<n} λ^j r_{t+j} + λ^n V_{t+n}, 0 past the end of the row. */
export function tdTarget(rewards: Numbers, values: Numbers, steps: number, discount: number): Float64Array {
  const what = 'tdTarget';
  const length = assertSameLength(what, { rewards, values });
  if (!Number.isInteger(steps) || steps < 1)
    throw new RangeError(`${what}: steps is ${steps}; it must be an integer ≥ 1.`);
  const read = (array: Numbers, index: number) => (index < length ? (array[index] as number) : 0);
  const target = new Float64Array(length);
  for (let t = 0; t < length; t += 1) {
    let sum = 0;
    for (let j = 0; j < steps; j += 1) sum += discount ** j * read(rewards, t + j);
    target[t] = sum + discount ** steps * read(values, t + steps);
  }
  return target;
}

/** Y_n on tensors [episodes, states]; V is detached inside, so no gradient flows through the target. */
export function tdTargetTf(rewards: tf.Tensor2D, values: tf.Tensor2D, steps: number, discount: number): tf.Tensor2D {
  assertSameShape('tdTargetTf', { rewards, values });
  if (!Number.isInteger(steps) || steps < 1) {
    throw new RangeError(`tdTargetTf: steps is ${steps}; it must be an integer ≥ 1.`);
  }
  return tf.tidy(() => {
    const fixed = stopGradient(values);
    let target = tf.mul(shiftLeft(fixed, steps), discount ** steps);
    for (let j = 0; j < steps; j += 1) target = tf.add(target, tf.mul(shiftLeft(rewards, j), discount ** j));
    return target as tf.Tensor2D;
  });
}

/** Loss_Critic on plain numbers: rows are episodes (rows may differ in length; each row's arrays agree). */
export function tdCriticLoss(
  inputs: TdCriticInputs<readonly Numbers[]>,
  options: Partial<TdCriticLossOptions> & Pick<TdCriticLossOptions, 'discount'>,
): number {
  const settings = validateTdCriticLossOptions(options);
  const what = 'tdCriticLoss';
  if (inputs.values.length !== inputs.rewards.length || inputs.values.length !== inputs.mask.length) {
    throw new RangeError(
      `${what}: values, rewards and mask must have one row per episode (values has ${inputs.values.length}, rewards has ${inputs.rewards.length}, mask has ${inputs.mask.length}).`,
    );
  }
  let count = 0;
  let sum = 0;
  inputs.values.forEach((values, row) => {
    const rewards = inputs.rewards[row] as Numbers;
    const mask = inputs.mask[row] as Numbers;
    assertSameLength(`${what}: row ${row}`, { values, rewards, mask });
    assertFinite(what, `values[${row}]`, values);
    assertFinite(what, `rewards[${row}]`, rewards);
    count += assertBinaryMask(what, `mask[${row}]`, mask);
    for (let steps = 1; steps <= settings.horizons; steps += 1) {
      const target = tdTarget(rewards, values, steps, settings.discount);
      for (let t = 0; t < mask.length; t += 1) if (mask[t] === 1) sum += ((values[t] as number) - target[t]!) ** 2;
    }
  });
  if (count === 0) throw new EmptyLossMaskError(what);
  return (settings.reduction === 'mean' ? sum / count : sum) / settings.horizons;
}

/** The same on tensors [episodes, states]; the gradient flows into `values` (not through the targets). */
export function tdCriticLossTf(
  inputs: TdCriticInputs<tf.Tensor2D>,
  options: Partial<TdCriticLossOptions> & Pick<TdCriticLossOptions, 'discount'>,
): tf.Scalar {
  const settings = validateTdCriticLossOptions(options);
  const what = 'tdCriticLossTf';
  assertSameShape(what, { values: inputs.values, rewards: inputs.rewards, mask: inputs.mask });
  if (inputs.values.rank !== 2) {
    throw new RangeError(`${what}: values must be [episodes, states] (it is [${inputs.values.shape.join(', ')}]).`);
  }
  return tf.tidy(() => {
    const mask = inputs.mask.toFloat();
    const count = tf.sum(mask).dataSync()[0] as number;
    if (count === 0) throw new EmptyLossMaskError(what);
    let sum: tf.Tensor = tf.scalar(0);
    for (let steps = 1; steps <= settings.horizons; steps += 1) {
      const error = tf.mul(
        tf.sub(inputs.values, tdTargetTf(inputs.rewards, inputs.values, steps, settings.discount)),
        mask,
      );
      sum = tf.add(sum, tf.sum(tf.square(error)));
    }
    return tf.div(sum, (settings.reduction === 'mean' ? count : 1) * settings.horizons) as tf.Scalar;
  });
}

/** x≪k along the last axis: column t reads column t + k, zeros past the end. */
function shiftLeft(x: tf.Tensor2D, k: number): tf.Tensor2D {
  if (k === 0) return x;
  const [rows, columns] = x.shape;
  if (k >= columns) return tf.zeros([rows, columns]);
  return tf.concat([tf.slice(x, [0, k], [rows, columns - k]), tf.zeros([rows, k])], 1);
}
