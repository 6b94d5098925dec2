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
 *
 * An episode cut short of its end (a time limit, a budget: `truncated`, not `terminated`) goes on past its
 * last state s_e, so "0 past the end" would be wrong for it: `bootstrap` marks s_e, and every target of an
 * earlier state k whose horizon reaches past s_e stops there and bootstraps from it,
 *   Y_n(k) = Σ_{j<e−k} λ^j r_{k+j} + λ^{e−k} V(s_e)   when k < e < k + n,
 * the n-step return truncated at the episode's end (Sutton & Barto §7.1), which bootstraps from V(s_e) where
 * the episode was cut rather than ended (Pardo et al. 2018, "Time Limits in Reinforcement Learning"). Without
 * it only the target landing exactly on s_e would see V(s_e): state e − 1's TD(2…5) targets would read the
 * time limit as a terminal state with no reward after it. s_e itself has no target (mask 0 from it on).
 */
export interface TdCriticInputs<T> {
  /** V(s_k), one row per episode. */
  readonly values: T;
  /** r_k, aligned with values. */
  readonly rewards: T;
  /** 0/1 aligned with values; 1 on the states whose value is trained. */
  readonly mask: T;
  /**
   * 0/1 aligned with values, at most one 1 per row: the last state of an episode that was cut short rather
   * than ended (truncated), whose value stands in for everything after it. Omitted or all 0: the row ends in
   * a terminal state (0 past the end). The mask must be 0 from this state on.
   */
  readonly bootstrap?: T;
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

/**
 * Y_n of one episode (plain numbers): Σ_{j<n} λ^j r_{t+j} + λ^n V_{t+n}, 0 past the end of the row; with
 * `bootstrapAt` = e (a truncated episode's last state), a target with t < e < t + n stops at s_e:
 * Σ_{j<e−t} λ^j r_{t+j} + λ^{e−t} V_e.
 */
export function tdTarget(
  rewards: Numbers,
  values: Numbers,
  steps: number,
  discount: number,
  bootstrapAt = -1,
): Float64Array {
  const what = 'tdTarget';
  const length = assertSameLength(what, { rewards, values });
  assertSteps(what, steps);
  assertBootstrapIndex(what, bootstrapAt, length);
  // A NaN reward or value would make every target that reads it NaN (and so the returns a caller builds from it).
  assertFinite(what, 'rewards', rewards);
  assertFinite(what, 'values', values);
  const read = (array: Numbers, index: number) => (index < length ? (array[index] as number) : 0);
  const target = new Float64Array(length);
  for (let t = 0; t < length; t += 1) {
    const reach = t < bootstrapAt && t + steps > bootstrapAt ? bootstrapAt - t : steps;
    let sum = 0;
    for (let j = 0; j < reach; j += 1) sum += discount ** j * read(rewards, t + j);
    target[t] = sum + discount ** reach * read(values, t + reach);
  }
  return target;
}

/**
 * Y_n on tensors [episodes, states]; V is detached inside, so no gradient flows through the target.
 * `bootstrapAt`: per row, the index of its bootstrap state (−1: none), as `tdTarget`'s.
 */
export function tdTargetTf(
  rewards: tf.Tensor2D,
  values: tf.Tensor2D,
  steps: number,
  discount: number,
  bootstrapAt: readonly number[] = [],
): tf.Tensor2D {
  const what = 'tdTargetTf';
  assertSameShape(what, { rewards, values });
  assertSteps(what, steps);
  const [rows, columns] = values.shape;
  if (bootstrapAt.length !== 0 && bootstrapAt.length !== rows) {
    throw new RangeError(`${what}: bootstrapAt has ${bootstrapAt.length} entries for ${rows} rows.`);
  }
  bootstrapAt.forEach((index, row) => assertBootstrapIndex(`${what}: row ${row}`, index, columns));
  return tf.tidy(() => {
    const fixed = stopGradient(values);
    const target = (r: tf.Tensor2D): tf.Tensor2D => {
      let sum = tf.mul(shiftLeft(fixed, steps), discount ** steps);
      for (let j = 0; j < steps; j += 1) sum = tf.add(sum, tf.mul(shiftLeft(r, j), discount ** j));
      return sum as tf.Tensor2D;
    };
    if (bootstrapAt.every((index) => index < 0)) return target(rewards);
    // Where t < e < t + n the target is the rewards up to s_e (the rewards from s_e on zeroed) and λ^{e−t}·V_e.
    const over = new Float32Array(rows * columns);
    const reach = new Float32Array(rows * columns);
    const kept = new Float32Array(rows * columns).fill(1);
    const last = new Float32Array(rows * columns);
    bootstrapAt.forEach((e, row) => {
      if (e < 0) return;
      last[row * columns + e] = 1;
      for (let t = 0; t < columns; t += 1) {
        if (t >= e) kept[row * columns + t] = 0;
        else if (t + steps > e) {
          over[row * columns + t] = 1;
          reach[row * columns + t] = discount ** (e - t);
        }
      }
    });
    const overMask = tf.tensor2d(over, [rows, columns]);
    let partial: tf.Tensor = tf.zeros([rows, columns]);
    const cut = tf.mul(rewards, tf.tensor2d(kept, [rows, columns])) as tf.Tensor2D;
    for (let j = 0; j < steps; j += 1) partial = tf.add(partial, tf.mul(shiftLeft(cut, j), discount ** j));
    const lastValue = tf.sum(tf.mul(fixed, tf.tensor2d(last, [rows, columns])), 1, true);
    return tf.addN([
      tf.mul(target(rewards), tf.sub(1, overMask)),
      tf.mul(partial, overMask),
      tf.mul(tf.tensor2d(reach, [rows, columns]), lastValue),
    ]) as tf.Tensor2D;
  });
}

function assertSteps(what: string, steps: number): void {
  if (!Number.isInteger(steps) || steps < 1)
    throw new RangeError(`${what}: steps is ${steps}; it must be an integer ≥ 1.`);
}

function assertBootstrapIndex(what: string, index: number, length: number): void {
  if (!Number.isInteger(index) || index < -1 || index >= length) {
    throw new RangeError(
      `${what}: the bootstrap state is at ${index}; it must be a state of the row (0 … ${length - 1}) or −1 for none.`,
    );
  }
}

/**
 * The index of a row's bootstrap state (−1: none), checking that the row marks at most one and trains no
 * state from it on (such a state has no target: what follows it is unknown).
 */
function bootstrapIndex(what: string, bootstrap: Numbers | undefined, mask: Numbers): number {
  if (bootstrap === undefined) return -1;
  assertSameLength(what, { bootstrap, mask });
  const marked = assertBinaryMask(what, 'bootstrap', bootstrap);
  if (marked > 1) throw new RangeError(`${what}: bootstrap marks ${marked} states; a row has at most one last state.`);
  const index = Array.prototype.indexOf.call(bootstrap, 1) as number;
  if (index < 0) return -1;
  for (let t = index; t < mask.length; t += 1) {
    if (mask[t] === 1) {
      throw new RangeError(
        `${what}: mask[${t}] is 1 at or past the bootstrap state ${index}; a state from it on has no target (what follows it is unknown).`,
      );
    }
  }
  return index;
}

/** Loss_Critic on plain numbers: rows are episodes (rows may differ in length; each row's arrays agree). */
export function tdCriticLoss(
  inputs: TdCriticInputs<readonly Numbers[]>,
  options: Partial<TdCriticLossOptions> & Pick<TdCriticLossOptions, 'discount'>,
): number {
  const settings = validateTdCriticLossOptions(options);
  const what = 'tdCriticLoss';
  if (
    inputs.values.length !== inputs.rewards.length ||
    inputs.values.length !== inputs.mask.length ||
    (inputs.bootstrap !== undefined && inputs.bootstrap.length !== inputs.values.length)
  ) {
    throw new RangeError(
      `${what}: values, rewards, mask (and bootstrap) must have one row per episode (values has ${inputs.values.length}, rewards has ${inputs.rewards.length}, mask has ${inputs.mask.length}${inputs.bootstrap !== undefined ? `, bootstrap has ${inputs.bootstrap.length}` : ''}).`,
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
    const bootstrapAt = bootstrapIndex(`${what}: row ${row}`, inputs.bootstrap?.[row], mask);
    for (let steps = 1; steps <= settings.horizons; steps += 1) {
      const target = tdTarget(rewards, values, steps, settings.discount, bootstrapAt);
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
  assertSameShape(what, {
    values: inputs.values,
    rewards: inputs.rewards,
    mask: inputs.mask,
    ...(inputs.bootstrap !== undefined ? { bootstrap: inputs.bootstrap } : {}),
  });
  if (inputs.values.rank !== 2) {
    throw new RangeError(`${what}: values must be [episodes, states] (it is [${inputs.values.shape.join(', ')}]).`);
  }
  // Small read-backs, as the mask's count below: a NaN or infinite reward would make every target reading it,
  // and so the loss, NaN with no sign of where; the bootstrap states are plain indices for the targets.
  inputs.rewards.arraySync().forEach((row, index) => assertFinite(what, `rewards[${index}]`, row));
  const bootstrapRows = inputs.bootstrap?.arraySync();
  const maskRows = bootstrapRows !== undefined ? inputs.mask.arraySync() : [];
  const bootstrapAt = (bootstrapRows ?? []).map((row, index) =>
    bootstrapIndex(`${what}: row ${index}`, row, maskRows[index]!),
  );
  return tf.tidy(() => {
    const mask = inputs.mask.toFloat();
    const count = tf.sum(mask).dataSync()[0] as number;
    if (count === 0) throw new EmptyLossMaskError(what);
    let sum: tf.Tensor = tf.scalar(0);
    for (let steps = 1; steps <= settings.horizons; steps += 1) {
      const error = tf.mul(
        tf.sub(inputs.values, tdTargetTf(inputs.rewards, inputs.values, steps, settings.discount, bootstrapAt)),
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
