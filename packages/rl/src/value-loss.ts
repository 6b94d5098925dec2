import * as tf from '@tensorflow/tfjs';
import { defineOptions, type JSONSchemaType } from '@turngym/core';
import { assertBinaryMask, assertFinite, assertSameLength, type Numbers } from './internal/checks';
import { assertSameShape, maskedTokenMeanTf } from './internal/tensor-checks';
import { EmptyLossMaskError } from './rl-errors';

/**
 * A value head's regression loss: the masked mean squared error between the head's values V and their
 * targets R (returns, TD targets, or AlphaZero's game outcome z: ALGORITHMS.md §5's MSE(v, z)),
 *   L = Σ_t mask_t·(V_t − R_t)² / Σ_t mask_t,
 * and, with `clipRange` ε_V, PPO's clipped value loss (CleanRL `ppo.py`, `clip_vloss`):
 *   V_clip = V_old + clip(V − V_old, −ε_V, ε_V),   L = masked mean of max((V − R)², (V_clip − R)²),
 * which keeps the value head from moving far from the values the advantages were computed with.
 * CleanRL multiplies by 0.5 and then by `vf_coef`; here the 0.5 is left to the coefficient.
 */
export interface ValueLossInputs<T> {
  /** V: the value head's outputs, one per position. */
  readonly values: T;
  /** R: the regression targets (no gradient flows into them). */
  readonly returns: T;
  /** 0/1 per position; 1 where a value is trained. */
  readonly mask: T;
  /** V_old: the values at rollout time; required with `clipRange`. */
  readonly oldValues?: T;
}

export interface ValueLossOptions {
  /** ε_V of the clipped value loss: V may move at most this far from V_old before its gradient stops. Unset = plain MSE. */
  clipRange?: number;
}

export const valueLossOptionsSchema: JSONSchemaType<ValueLossOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    clipRange: { type: 'number', exclusiveMinimum: 0, nullable: true },
  },
};

export const validateValueLossOptions = defineOptions<ValueLossOptions>('value loss', valueLossOptionsSchema);

/** One position's loss: (V − R)², or with ε_V the larger of that and (V_clip − R)². */
export function valueTokenLoss(value: number, target: number, oldValue?: number, clipRange?: number): number {
  const unclipped = (value - target) ** 2;
  if (clipRange === undefined || oldValue === undefined) return unclipped;
  const clipped = oldValue + Math.min(Math.max(value - oldValue, -clipRange), clipRange);
  return Math.max(unclipped, (clipped - target) ** 2);
}

/** The masked mean value loss on plain numbers; rows of a batch are concatenated. */
export function valueLoss(inputs: ValueLossInputs<Numbers>, options: ValueLossOptions = {}): number {
  const settings = validateValueLossOptions(options);
  const what = 'valueLoss';
  const oldValues = requireOldValues(what, inputs.oldValues, settings);
  assertSameLength(what, {
    values: inputs.values,
    returns: inputs.returns,
    mask: inputs.mask,
    ...(oldValues ? { oldValues } : {}),
  });
  assertFinite(what, 'values', inputs.values);
  assertFinite(what, 'returns', inputs.returns);
  if (oldValues) assertFinite(what, 'oldValues', oldValues);
  const count = assertBinaryMask(what, 'mask', inputs.mask);
  if (count === 0) throw new EmptyLossMaskError(what);
  let sum = 0;
  for (let t = 0; t < inputs.mask.length; t += 1) {
    if (inputs.mask[t] === 0) continue;
    sum += valueTokenLoss(inputs.values[t] as number, inputs.returns[t] as number, oldValues?.[t], settings.clipRange);
  }
  return sum / count;
}

/** The same on tensors of one shape; a scalar whose gradient flows into `values` only. */
export function valueLossTf(inputs: ValueLossInputs<tf.Tensor>, options: ValueLossOptions = {}): tf.Scalar {
  const settings = validateValueLossOptions(options);
  const what = 'valueLossTf';
  const oldValues = requireOldValues(what, inputs.oldValues, settings);
  assertSameShape(what, {
    values: inputs.values,
    returns: inputs.returns,
    mask: inputs.mask,
    ...(oldValues ? { oldValues } : {}),
  });
  return tf.tidy(() => {
    const unclipped = tf.square(tf.sub(inputs.values, inputs.returns));
    if (oldValues === undefined || settings.clipRange === undefined) {
      return maskedTokenMeanTf(what, unclipped, inputs.mask);
    }
    const step = tf.clipByValue(tf.sub(inputs.values, oldValues), -settings.clipRange, settings.clipRange);
    const clipped = tf.square(tf.sub(tf.add(oldValues, step), inputs.returns));
    return maskedTokenMeanTf(what, tf.maximum(unclipped, clipped), inputs.mask);
  });
}

function requireOldValues<T>(what: string, oldValues: T | undefined, options: ValueLossOptions): T | undefined {
  if (options.clipRange === undefined) return undefined;
  if (oldValues === undefined) {
    throw new RangeError(`${what}: clipRange clips around the rollout's values, so oldValues is required with it.`);
  }
  return oldValues;
}
