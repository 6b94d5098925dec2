import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError, SeededRng } from '@turngym/core';
import { numericGradient } from './__fixtures__/numeric-gradient';
import { dpoLoss, dpoLossTf, dpoPairLoss, sequenceLogprob, sequenceLogprobTf } from './dpo-loss';
import { EmptyLossMaskError } from './rl-errors';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// β = 0.1. Pair 0: (−10 − (−11)) − (−12 − (−11)) = 2 → m = 0.2 → softplus(−0.2) = ln(1 + e^−0.2) = 0.5981389.
// Pair 1: every log-prob equal → m = 0 → ln 2 = 0.6931472. Mean: 0.6456430.
// d/d chosen = −β·σ(−m)/P: pair 0 −0.1·0.4501660/2 = −0.0225083, pair 1 −0.1·0.5/2 = −0.025; rejected: the negatives.
const pairs = {
  chosenLogp: [-10, -5],
  rejectedLogp: [-12, -5],
  referenceChosenLogp: [-11, -5],
  referenceRejectedLogp: [-11, -5],
};
const asTensors = (inputs: typeof pairs) => ({
  chosenLogp: tf.tensor1d(inputs.chosenLogp),
  rejectedLogp: tf.tensor1d(inputs.rejectedLogp),
  referenceChosenLogp: tf.tensor1d(inputs.referenceChosenLogp),
  referenceRejectedLogp: tf.tensor1d(inputs.referenceRejectedLogp),
});

describe('DPO loss (Rafailov et al. 2023)', () => {
  it('matches the hand-computed mean, plain and on tensors', () => {
    expect(dpoLoss(pairs)).toBeCloseTo(0.645643, 6);
    expect(dpoLossTf(asTensors(pairs)).arraySync()).toBeCloseTo(0.645643, 5);
    expect(dpoLoss(pairs, { beta: 0.5 })).toBeCloseTo((Math.log1p(Math.exp(-1)) + Math.LN2) / 2, 12);
  });

  it('is stable far from the decision boundary', () => {
    expect(dpoPairLoss(1000)).toBe(0);
    expect(dpoPairLoss(-1000)).toBe(1000);
    const far = { ...pairs, chosenLogp: [-10, 5000], rejectedLogp: [-12, -5000] };
    expect(Number.isFinite(dpoLoss(far, { beta: 1 }))).toBe(true);
    expect(
      dpoLossTf(asTensors({ ...far, chosenLogp: [-10, -5000], rejectedLogp: [-12, 5000] }), { beta: 1 }).arraySync(),
    ).toBeCloseTo((Math.log1p(Math.exp(-2)) + 10000) / 2, 0);
  });

  it('has gradient −β·σ(−m)/pairs in the chosen log-probs and its negative in the rejected', () => {
    const fixed = asTensors(pairs);
    const [chosen, rejected] = tf.grads((c: tf.Tensor, r: tf.Tensor) =>
      dpoLossTf({ ...fixed, chosenLogp: c as tf.Tensor1D, rejectedLogp: r as tf.Tensor1D }),
    )([fixed.chosenLogp, fixed.rejectedLogp]);
    [-0.0225083, -0.025].forEach((value, pair) => expect(chosen!.dataSync()[pair]).toBeCloseTo(value, 6));
    [0.0225083, 0.025].forEach((value, pair) => expect(rejected!.dataSync()[pair]).toBeCloseTo(value, 6));
    const expected = numericGradient((x) => dpoLoss({ ...pairs, chosenLogp: x }), pairs.chosenLogp);
    expected.forEach((value, pair) => expect(chosen!.dataSync()[pair]).toBeCloseTo(value, 5));
  });

  it('agrees with the plain version on seeded random pairs built from token log-probs', () => {
    const rng = new SeededRng(17);
    const [rows, tokens] = [4, 6];
    const draw = () => Array.from({ length: rows }, () => Array.from({ length: tokens }, () => -4 * rng.next()));
    const mask = Array.from({ length: rows }, () => Array.from({ length: tokens }, (_, t) => (t > 1 ? 1 : 0)));
    const [chosen, rejected, referenceChosen, referenceRejected] = [draw(), draw(), draw(), draw()];
    const sums = (logp: number[][]) => logp.map((row, index) => sequenceLogprob(row, mask[index]!));
    const plain = dpoLoss(
      {
        chosenLogp: sums(chosen),
        rejectedLogp: sums(rejected),
        referenceChosenLogp: sums(referenceChosen),
        referenceRejectedLogp: sums(referenceRejected),
      },
      { beta: 0.3 },
    );
    const tensorMask = tf.tensor2d(mask);
    const summed = (logp: number[][]) => sequenceLogprobTf(tf.tensor2d(logp), tensorMask);
    const tensor = dpoLossTf(
      {
        chosenLogp: summed(chosen),
        rejectedLogp: summed(rejected),
        referenceChosenLogp: summed(referenceChosen),
        referenceRejectedLogp: summed(referenceRejected),
      },
      { beta: 0.3 },
    );
    expect(tensor.arraySync()).toBeCloseTo(plain, 5);
  });

  it('sums a sequence’s action-token log-probs and refuses one without action tokens', () => {
    expect(sequenceLogprob([-1, -2, -3], [1, 0, 1])).toBe(-4);
    expect(sequenceLogprobTf(tf.tensor2d([[-1, -2, -3]]), tf.tensor2d([[1, 0, 1]])).arraySync()).toEqual([-4]);
    expect(() => sequenceLogprob([-1], [0])).toThrow(EmptyLossMaskError);
    expect(() =>
      sequenceLogprobTf(
        tf.tensor2d([
          [-1, -2],
          [-1, -2],
        ]),
        tf.tensor2d([
          [1, 0],
          [0, 0],
        ]),
      ),
    ).toThrow(/row 1/);
  });

  it('refuses no pairs, mismatched lengths, non-finite log-probs and β ≤ 0', () => {
    const none = { chosenLogp: [], rejectedLogp: [], referenceChosenLogp: [], referenceRejectedLogp: [] };
    expect(() => dpoLoss(none)).toThrow(/no pairs/);
    expect(() => dpoLoss({ ...pairs, rejectedLogp: [-1] })).toThrow(
      /rejectedLogp and chosenLogp must have the same length/,
    );
    expect(() => dpoLoss({ ...pairs, referenceChosenLogp: [Number.NEGATIVE_INFINITY, 0] })).toThrow(
      /referenceChosenLogp\[0\] is -Infinity/,
    );
    expect(() => dpoLoss(pairs, { beta: 0 })).toThrow(InvalidOptionsError);
    expect(() => dpoLossTf({ ...asTensors(pairs), rejectedLogp: tf.tensor1d([1]) })).toThrow(/same shape/);
  });
});
