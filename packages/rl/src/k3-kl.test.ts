import * as tf from '@tensorflow/tfjs';
import { k3Kl, k3KlTf, k3KlToken } from './k3-kl';
import { EmptyLossMaskError } from './rl-errors';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('k3 KL (ALGORITHMS.md §0)', () => {
  // d = ref − logp. t0: d = −1.5 − (−1) = −0.5 → e^−0.5 + 0.5 − 1 = 0.6065307 − 0.5 = 0.1065307.
  // t1: d = 0 → 0. t2: d = 1 → e − 2 = 0.7182818, but masked out. Mean over t0, t1 = 0.0532653.
  const logp = [-1, -2, -3];
  const refLogp = [-1.5, -2, -2];
  const mask = [1, 1, 0];

  it('matches the hand-computed masked mean, plain and on tensors', () => {
    expect(k3KlToken(-1, -1.5)).toBeCloseTo(0.1065307, 7);
    expect(k3Kl({ logp, refLogp, mask })).toBeCloseTo(0.0532653, 7);
    expect(
      k3KlTf({ logp: tf.tensor1d(logp), refLogp: tf.tensor1d(refLogp), mask: tf.tensor1d(mask) }).arraySync(),
    ).toBeCloseTo(0.0532653, 6);
  });

  it('is zero when the policy equals the reference, positive otherwise', () => {
    expect(k3Kl({ logp, refLogp: logp, mask: [1, 1, 1] })).toBe(0);
    expect(k3KlToken(-2, -0.1)).toBeGreaterThan(0);
  });

  it('has gradient 1 − exp(d) per token divided by the token count', () => {
    // d/dlogp [exp(d) − d − 1] with d = ref − logp is −exp(d) + 1. t0: (1 − e^−0.5)/2 = 0.1967347; t1: 0; t2 masked.
    const gradient = tf.grad((x: tf.Tensor) =>
      k3KlTf({ logp: x, refLogp: tf.tensor1d(refLogp), mask: tf.tensor1d(mask) }),
    )(tf.tensor1d(logp));
    const values = Array.from(gradient.dataSync());
    [0.1967347, 0, 0].forEach((value, t) => expect(values[t]).toBeCloseTo(value, 5));
  });

  it('refuses empty masks and mismatched lengths', () => {
    expect(() => k3Kl({ logp: [0], refLogp: [0], mask: [0] })).toThrow(EmptyLossMaskError);
    expect(() => k3Kl({ logp: [0, 1], refLogp: [0], mask: [1, 1] })).toThrow(
      /refLogp and logp must have the same length/,
    );
    expect(() => k3KlTf({ logp: tf.zeros([2]), refLogp: tf.zeros([2]), mask: tf.zeros([3]) })).toThrow(
      /mask and logp must have the same shape/,
    );
  });
});
