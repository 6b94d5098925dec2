import * as tf from '@tensorflow/tfjs';
import { SeededRng, TurnGymError } from '@turngym/core';
import { numericGradient } from './__fixtures__/numeric-gradient';
import { entropyBonus, entropyBonusTf, tokenEntropy } from './entropy-bonus';
import { EmptyActionSetError, EmptyLossMaskError } from './rl-errors';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// Row 0: uniform over 4 → ln 4 = 1.3862944. Row 1: logits [0, ln 3, 0, 0] restricted to its first two
// actions → p = [0.25, 0.75], H = 0.25·ln 4 + 0.75·ln(4/3) = 0.5623351. Row 2: masked out.
// Masked mean: (1.3862944 + 0.5623351)/2 = 0.9743148.
const logits = [
  [0, 0, 0, 0],
  [0, Math.log(3), 0, 0],
  [9, -9, 3, 1],
];
const legal = [
  [1, 1, 1, 1],
  [1, 1, 0, 0],
  [1, 1, 1, 1],
];
const mask = [1, 1, 0];

describe('entropy bonus (ALGORITHMS.md §1, §5)', () => {
  it('matches hand-computed entropies, plain and on tensors', () => {
    expect(tokenEntropy([0, 0, 0, 0])).toBeCloseTo(Math.log(4), 12);
    expect(tokenEntropy([0, Math.log(3), 5, -2], [1, 1, 0, 0])).toBeCloseTo(0.5623351, 7);
    expect(entropyBonus({ logits, mask, legal })).toBeCloseTo(0.9743148, 7);
    const tensors = { logits: tf.tensor2d(logits), mask: tf.tensor1d(mask), legal: tf.tensor2d(legal) };
    expect(entropyBonusTf(tensors).arraySync()).toBeCloseTo(0.9743148, 5);
  });

  it('is 0 for a one-hot distribution, ln(legal count) for a uniform one, and finite for huge logits', () => {
    expect(tokenEntropy([1000, 0, 0])).toBeCloseTo(0, 12);
    expect(tokenEntropy([7, 7, 7, 100], [1, 1, 1, 0])).toBeCloseTo(Math.log(3), 12);
    expect(entropyBonusTf({ logits: tf.tensor2d([[1000, 0, -1000]]), mask: tf.tensor1d([1]) }).arraySync()).toBeCloseTo(
      0,
      6,
    );
  });

  it('agrees with the plain version on seeded random [batch, tokens, vocabulary] logits', () => {
    const rng = new SeededRng(5);
    const [batch, tokens, vocabulary] = [2, 5, 7];
    for (let trial = 0; trial < 4; trial += 1) {
      const rows = Array.from({ length: batch * tokens }, () =>
        Array.from({ length: vocabulary }, () => 6 * (rng.next() - 0.5)),
      );
      const legalRows = rows.map(() =>
        Array.from({ length: vocabulary }, (_, index) => (index === 0 || rng.bool(0.6) ? 1 : 0)),
      );
      const rowMask = rows.map((_, index) => (index === 0 || rng.bool(0.7) ? 1 : 0));
      const plain = entropyBonus({ logits: rows, mask: rowMask, legal: legalRows });
      const tensor = entropyBonusTf({
        logits: tf.tensor3d(rows.flat(), [batch, tokens, vocabulary]),
        mask: tf.tensor2d(rowMask, [batch, tokens]),
        legal: tf.tensor3d(legalRows.flat(), [batch, tokens, vocabulary]),
      });
      expect(tensor.arraySync()).toBeCloseTo(plain, 5);
      expect(entropyBonusTf({ logits: tf.tensor2d(rows), mask: tf.tensor1d(rowMask) }).arraySync()).toBeCloseTo(
        entropyBonus({ logits: rows, mask: rowMask }),
        5,
      );
    }
  });

  it('has gradient −p·(log p + H)/count in the legal logits and 0 in the illegal and masked ones', () => {
    const tensors = { mask: tf.tensor1d(mask), legal: tf.tensor2d(legal) };
    const gradient = tf
      .grad((x: tf.Tensor) => entropyBonusTf({ ...tensors, logits: x }))(tf.tensor2d(logits))
      .arraySync() as number[][];
    // Row 1: p = [0.25, 0.75], H = 0.5623351: −0.25·(ln 0.25 + H)/2 = 0.1029949 and its negative.
    [0, 0, 0, 0].forEach((value, index) => expect(gradient[0]![index]).toBeCloseTo(value, 6));
    [0.1029949, -0.1029949, 0, 0].forEach((value, index) => expect(gradient[1]![index]).toBeCloseTo(value, 5));
    gradient[2]!.forEach((value) => expect(value).toBe(0));
    const start = [0.3, -1.2, 0.8, 0.1, 2, -0.5];
    const expected = numericGradient(
      (x) =>
        entropyBonus({
          logits: [x.slice(0, 3), x.slice(3)],
          mask: [1, 1],
          legal: [
            [1, 1, 1],
            [1, 0, 1],
          ],
        }),
      start,
    );
    const actual = tf
      .grad((x: tf.Tensor) =>
        entropyBonusTf({
          logits: tf.reshape(x, [2, 3]),
          mask: tf.tensor1d([1, 1]),
          legal: tf.tensor2d([
            [1, 1, 1],
            [1, 0, 1],
          ]),
        }),
      )(tf.tensor1d(start))
      .dataSync();
    expected.forEach((value, index) => expect(actual[index]).toBeCloseTo(value, 4));
  });

  it('refuses an empty mask, a row with no legal action and mismatched shapes', () => {
    expect(() => entropyBonus({ logits, mask: [0, 0, 0] })).toThrow(EmptyLossMaskError);
    expect(() => entropyBonusTf({ logits: tf.tensor2d(logits), mask: tf.zeros([3]) })).toThrow(EmptyLossMaskError);
    const noLegal = [legal[0]!, [0, 0, 0, 0], legal[2]!];
    const call = () => entropyBonus({ logits, mask, legal: noLegal });
    expect(call).toThrow(EmptyActionSetError);
    expect(call).toThrow(/row 1 has no legal action/);
    try {
      call();
    } catch (error) {
      expect(TurnGymError.isInstance(error) && error.code).toBe('EMPTY_ACTION_SET');
    }
    expect(() =>
      entropyBonusTf({ logits: tf.tensor2d(logits), mask: tf.tensor1d(mask), legal: tf.tensor2d(noLegal) }),
    ).toThrow(EmptyActionSetError);
    expect(() => entropyBonus({ logits, mask: [1, 1] })).toThrow(/one entry per position/);
    expect(() => entropyBonusTf({ logits: tf.tensor2d(logits), mask: tf.tensor1d([1, 1]) })).toThrow(
      /mask must have logits' shape without its last axis/,
    );
    expect(() => entropyBonus({ logits, mask: [1, 0.5, 0] })).toThrow(/mask\[1\] is 0.5/);
  });
});
