import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { numericGradient } from './__fixtures__/numeric-gradient';
import { policyCrossEntropy, policyCrossEntropyTf } from './policy-cross-entropy';
import { EmptyActionSetError } from './rl-errors';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// Row 0: logits [0, ln 3, 0], legal [1, 1, 0] → π = [0.25, 0.75, 0]; target [0.5, 0.5, 0]
//   CE = 0.5·ln 4 + 0.5·ln(4/3) = 0.8369882.
// Row 1: logits [2, 7, 1], legal [1, 0, 1] → log π_0 = −ln(1 + e^−1) = −0.3132617; target [1, 0, 0] → 0.3132617.
// Mean: 0.5751250. Gradient (π − target)/2 on legal actions: row 0 [−0.125, 0.125, 0];
// row 1 π = [0.7310586, 0, 0.2689414] → [−0.1344707, 0, 0.1344707].
const logits = [
  [0, Math.log(3), 0],
  [2, 7, 1],
];
const legal = [
  [1, 1, 0],
  [1, 0, 1],
];
const targets = [
  [0.5, 0.5, 0],
  [1, 0, 0],
];

describe('policy cross-entropy (ALGORITHMS.md §5, AlphaZero CE(π_MCTS))', () => {
  it('matches the hand-computed mean, plain and on tensors', () => {
    expect(policyCrossEntropy({ logits, targets, legal })).toBeCloseTo(0.575125, 6);
    expect(
      policyCrossEntropyTf({
        logits: tf.tensor2d(logits),
        targets: tf.tensor2d(targets),
        legal: tf.tensor2d(legal),
      }).arraySync(),
    ).toBeCloseTo(0.575125, 5);
  });

  it('has gradient (π − target)/states on legal actions and 0 on illegal ones', () => {
    const gradient = tf
      .grad((x: tf.Tensor) =>
        policyCrossEntropyTf({ logits: x as tf.Tensor2D, targets: tf.tensor2d(targets), legal: tf.tensor2d(legal) }),
      )(tf.tensor2d(logits))
      .arraySync() as number[][];
    [-0.125, 0.125, 0].forEach((value, index) => expect(gradient[0]![index]).toBeCloseTo(value, 5));
    [-0.1344707, 0, 0.1344707].forEach((value, index) => expect(gradient[1]![index]).toBeCloseTo(value, 5));
    expect(gradient[0]![2]).toBe(0);
    expect(gradient[1]![1]).toBe(0);
    const start = logits.flat();
    const expected = numericGradient(
      (x) => policyCrossEntropy({ logits: [x.slice(0, 3), x.slice(3)], targets, legal }),
      start,
    );
    expected.forEach((value, index) => expect(gradient.flat()[index]).toBeCloseTo(value, 4));
  });

  it('is the entropy of the target when the policy equals it, and larger otherwise', () => {
    const target = [0.2, 0.3, 0.5];
    const entropy = -target.reduce((sum, p) => sum + p * Math.log(p), 0);
    expect(policyCrossEntropy({ logits: [target.map(Math.log)], targets: [target] })).toBeCloseTo(entropy, 12);
    expect(policyCrossEntropy({ logits: [[0, 0, 0]], targets: [target] })).toBeGreaterThan(entropy);
  });

  it('agrees with the plain version on seeded random visit distributions over nine actions', () => {
    const rng = new SeededRng(3);
    for (let trial = 0; trial < 5; trial += 1) {
      const states = 4;
      const randomLogits = Array.from({ length: states }, () =>
        Array.from({ length: 9 }, () => 8 * (rng.next() - 0.5)),
      );
      const randomLegal = randomLogits.map(() =>
        Array.from({ length: 9 }, (_, a) => (a === 0 || rng.bool(0.7) ? 1 : 0)),
      );
      const randomTargets = randomLegal.map((row) => {
        const visits = row.map((isLegal, a) => (isLegal ? rng.int(0, 10) : 0) + (a === 0 ? 1 : 0));
        const total = visits.reduce((sum, count) => sum + count, 0);
        return visits.map((count) => count / total);
      });
      const plain = policyCrossEntropy({ logits: randomLogits, targets: randomTargets, legal: randomLegal });
      const tensor = policyCrossEntropyTf({
        logits: tf.tensor2d(randomLogits),
        targets: tf.tensor2d(randomTargets),
        legal: tf.tensor2d(randomLegal),
      });
      expect(tensor.arraySync()).toBeCloseTo(plain, 4);
    }
  });

  it('refuses a state with no legal action, targets that are not distributions and mismatched rows', () => {
    const noLegal = [legal[0]!, [0, 0, 0]];
    expect(() => policyCrossEntropy({ logits, targets, legal: noLegal })).toThrow(EmptyActionSetError);
    expect(() =>
      policyCrossEntropyTf({ logits: tf.tensor2d(logits), targets: tf.tensor2d(targets), legal: tf.tensor2d(noLegal) }),
    ).toThrow(/row 1 has no legal action/);
    const onIllegal = [targets[0]!, [0.5, 0.5, 0]];
    expect(() => policyCrossEntropy({ logits, targets: onIllegal, legal })).toThrow(
      /targets\[1\]\[1\] is 0.5 on an illegal action/,
    );
    expect(() =>
      policyCrossEntropyTf({ logits: tf.tensor2d(logits), targets: tf.tensor2d(onIllegal), legal: tf.tensor2d(legal) }),
    ).toThrow(/on an illegal action/);
    expect(() => policyCrossEntropy({ logits, targets: [targets[0]!, [0.9, 0, 0]], legal })).toThrow(
      /targets\[1\] sums to 0.9/,
    );
    expect(() => policyCrossEntropy({ logits, targets: [targets[0]!, [1.5, 0, -0.5]], legal })).toThrow(/≥ 0/);
    expect(() => policyCrossEntropy({ logits, targets: [targets[0]!] })).toThrow(/one row per state/);
    expect(() => policyCrossEntropy({ logits: [], targets: [] })).toThrow(/at least one state/);
    expect(() => policyCrossEntropyTf({ logits: tf.tensor2d(logits), targets: tf.tensor2d([[1, 0]]) })).toThrow(
      /targets and logits must have the same shape/,
    );
  });
});
