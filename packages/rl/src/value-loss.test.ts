import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError, SeededRng } from '@turngym/core';
import { numericGradient } from './__fixtures__/numeric-gradient';
import { EmptyLossMaskError } from './rl-errors';
import { valueLoss, valueLossTf } from './value-loss';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// Plain MSE over the three masked positions: ((1 − 1.5)² + (2 − 0)² + 0²)/3 = 4.25/3 = 1.4166667.
// Clipped, ε_V = 0.2, V_old = [1.1, 1.5, 0, ·]:
//   t0 V − V_old = −0.1 inside → both branches 0.25;
//   t1 V_clip = 1.7 → 2.89 < 4: the unclipped 4 counts;
//   t2 V_clip = 0.2 → (0.2 − 0.5)² = 0.09 > 0: the clipped 0.09 counts (and its gradient is 0).
// Clipped mean: (0.25 + 4 + 0.09)/3 = 1.4466667.
const values = [1, 2, 0.5, 3];
const returns = [1.5, 0, 0.5, 9];
const oldValues = [1.1, 1.5, 0, 0];
const mask = [1, 1, 1, 0];
const tensors = () => ({
  values: tf.tensor1d(values),
  returns: tf.tensor1d(returns),
  oldValues: tf.tensor1d(oldValues),
  mask: tf.tensor1d(mask),
});

describe('value loss (ALGORITHMS.md §5 MSE(v, z); CleanRL clipped value loss)', () => {
  it('matches the hand-computed masked MSE and clipped loss, plain and on tensors', () => {
    expect(valueLoss({ values, returns, mask })).toBeCloseTo(1.4166667, 7);
    expect(valueLoss({ values, returns, mask, oldValues }, { clipRange: 0.2 })).toBeCloseTo(1.4466667, 7);
    expect(valueLossTf(tensors()).arraySync()).toBeCloseTo(1.4166667, 5);
    expect(valueLossTf(tensors(), { clipRange: 0.2 }).arraySync()).toBeCloseTo(1.4466667, 5);
  });

  it('has gradient 2(V − R)/count where unclipped counts and 0 where the clipped branch counts', () => {
    const gradient = (options: { clipRange?: number }) =>
      Array.from(
        tf
          .grad((x: tf.Tensor) => valueLossTf({ ...tensors(), values: x }, options))(tf.tensor1d(values))
          .dataSync(),
      );
    [-0.3333333, 1.3333333, 0, 0].forEach((value, t) => expect(gradient({})[t]).toBeCloseTo(value, 5));
    [-0.3333333, 1.3333333, 0, 0].forEach((value, t) => expect(gradient({ clipRange: 0.2 })[t]).toBeCloseTo(value, 5));
    // Off the kinks, the tensor gradient is the finite difference of the plain twin.
    const start = [0.3, -0.4, 1.25, 2];
    const expected = numericGradient(
      (x) => valueLoss({ values: x, returns, mask, oldValues }, { clipRange: 0.2 }),
      start,
    );
    const actual = tf
      .grad((x: tf.Tensor) => valueLossTf({ ...tensors(), values: x }, { clipRange: 0.2 }))(tf.tensor1d(start))
      .dataSync();
    expected.forEach((value, t) => expect(actual[t]).toBeCloseTo(value, 4));
    expect(expected.filter((value) => value === 0)).toHaveLength(2);
  });

  it('agrees with the plain version on seeded random [batch, positions] values', () => {
    const rng = new SeededRng(9);
    const [rows, columns] = [3, 6];
    for (let trial = 0; trial < 5; trial += 1) {
      const draw = () => Array.from({ length: rows * columns }, () => 4 * (rng.next() - 0.5));
      const batch = {
        values: draw(),
        returns: draw(),
        oldValues: draw(),
        mask: Array.from({ length: rows * columns }, (_, index) => (index === 0 || rng.bool(0.6) ? 1 : 0)),
      };
      const asTensors = {
        values: tf.tensor2d(batch.values, [rows, columns]),
        returns: tf.tensor2d(batch.returns, [rows, columns]),
        oldValues: tf.tensor2d(batch.oldValues, [rows, columns]),
        mask: tf.tensor2d(batch.mask, [rows, columns]),
      };
      for (const options of [{}, { clipRange: 0.2 }, { clipRange: 1 }]) {
        expect(valueLossTf(asTensors, options).arraySync()).toBeCloseTo(valueLoss(batch, options), 5);
      }
    }
  });

  it('refuses an empty mask, clipping without old values, bad options and mismatched lengths', () => {
    expect(() => valueLoss({ values, returns, mask: [0, 0, 0, 0] })).toThrow(EmptyLossMaskError);
    expect(() => valueLossTf({ ...tensors(), mask: tf.zeros([4]) })).toThrow(EmptyLossMaskError);
    expect(() => valueLoss({ values, returns, mask }, { clipRange: 0.2 })).toThrow(/oldValues is required/);
    expect(() => valueLoss({ values, returns, mask }, { clipRange: 0 })).toThrow(InvalidOptionsError);
    expect(() => valueLoss({ values, returns: [1], mask })).toThrow(/returns and values must have the same length/);
    expect(() => valueLossTf({ ...tensors(), oldValues: tf.zeros([2]) }, { clipRange: 0.2 })).toThrow(
      /oldValues and values must have the same shape/,
    );
    expect(() => valueLoss({ values: [Number.NaN], returns: [0], mask: [1] })).toThrow(/values\[0\] is NaN/);
  });
});
