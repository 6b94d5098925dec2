import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError, SeededRng, TurnGymError } from '@turngym/core';
import {
  gspoLoss,
  gspoLossTf,
  gspoSequenceRatio,
  ppoClipLoss,
  ppoClipLossTf,
  ppoClipTokenLoss,
  ppoClipTokenLossTf,
} from './ppo-loss';
import { TREE_GRPO_DUAL_CLIP, validatePpoLossOptions } from './ppo-loss-options';
import { EmptyLossMaskError } from './rl-errors';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// Five action tokens and one masked-out token, ε = 0.2 (ALGORITHMS.md §0):
//   t0 ρ = 1.5, A = +1: −min(1.5, 1.2)   = −1.2  (clipped: ρ > 1 + ε with A > 0)
//   t1 ρ = 0.5, A = +1: −min(0.5, 0.8)   = −0.5  (unclipped)
//   t2 ρ = 0.5, A = −1: −min(−0.5, −0.8) =  0.8  (clipped: ρ < 1 − ε with A < 0)
//   t3 ρ = 1.5, A = −1: −min(−1.5, −1.2) =  1.5  (unclipped; under the dual-clip cap 3)
//   t4 ρ = 5,   A = −1: −min(−5, −1.2)   =  5    (dual clip c = 3: min(5, 3) = 3)
//   t5 masked out (any finite values)
// Token-mean: plain (−1.2 − 0.5 + 0.8 + 1.5 + 5)/5 = 1.12; dual clip (−1.2 − 0.5 + 0.8 + 1.5 + 3)/5 = 0.72.
const ratios = [1.5, 0.5, 0.5, 1.5, 5, 1];
const oldLogp = [-1, -2, -0.5, -3, -4, -1];
const logp = ratios.map((ratio, t) => (oldLogp[t] as number) + Math.log(ratio));
logp[5] = 7; // garbage under the mask: must not count
const advantages = [1, 1, -1, -1, -1, 9];
const mask = [1, 1, 1, 1, 1, 0];

describe('ppoClipLoss (plain numbers)', () => {
  it('matches the hand-computed token-mean', () => {
    expect(ppoClipLoss({ logp, oldLogp, advantages, mask })).toBeCloseTo(1.12, 12);
    expect(ppoClipLoss({ logp, oldLogp, advantages, mask }, { dualClip: TREE_GRPO_DUAL_CLIP })).toBeCloseTo(0.72, 12);
  });

  it('is −mean(A) at ρ = 1 (on-policy), whatever ε', () => {
    const same = [-1, -2, -3];
    expect(
      ppoClipLoss({ logp: same, oldLogp: same, advantages: [2, -1, 0.5], mask: [1, 1, 1] }, { clipEpsilon: 0.05 }),
    ).toBeCloseTo(-0.5, 12);
  });

  it('refuses an empty mask with a clear error', () => {
    const call = () => ppoClipLoss({ logp: [0, 0], oldLogp: [0, 0], advantages: [1, 1], mask: [0, 0] });
    expect(call).toThrow(EmptyLossMaskError);
    expect(call).toThrow(/loss mask selects no tokens/);
    try {
      call();
    } catch (error) {
      expect(TurnGymError.isInstance(error) && error.code).toBe('EMPTY_LOSS_MASK');
    }
  });

  it('names the arrays whose lengths differ', () => {
    const call = () => ppoClipLoss({ logp: [0, 0], oldLogp: [0], advantages: [1, 1], mask: [1, 1] });
    expect(call).toThrow(RangeError);
    expect(call).toThrow(
      /oldLogp and logp must have the same length \(logp has 2, oldLogp has 1, advantages has 2, mask has 2\)/,
    );
  });

  it('rejects a mask that is not 0/1, non-finite inputs and bad options', () => {
    expect(() => ppoClipLoss({ logp: [0], oldLogp: [0], advantages: [1], mask: [0.5] })).toThrow(/mask\[0\] is 0.5/);
    expect(() => ppoClipLoss({ logp: [0], oldLogp: [Number.NEGATIVE_INFINITY], advantages: [1], mask: [1] })).toThrow(
      /oldLogp\[0\] is -Infinity/,
    );
    expect(() => ppoClipLoss({ logp: [0], oldLogp: [0], advantages: [1], mask: [1] }, { clipEpsilon: 1.5 })).toThrow(
      InvalidOptionsError,
    );
    expect(() => ppoClipLoss({ logp: [0], oldLogp: [0], advantages: [1], mask: [1] }, { dualClip: 0.5 })).toThrow(
      /dualClip/,
    );
  });
});

describe('ppoClipLossTf (tensors)', () => {
  it('agrees with the plain version on the hand case and on seeded random batches', () => {
    const tensors = {
      logp: tf.tensor1d(logp),
      oldLogp: tf.tensor1d(oldLogp),
      advantages: tf.tensor1d(advantages),
      mask: tf.tensor1d(mask),
    };
    expect(ppoClipLossTf(tensors).arraySync()).toBeCloseTo(1.12, 5);
    expect(ppoClipLossTf(tensors, { dualClip: 3 }).arraySync()).toBeCloseTo(0.72, 5);

    const rng = new SeededRng(7);
    for (let trial = 0; trial < 5; trial += 1) {
      const [rows, columns] = [3, 8];
      const size = rows * columns;
      const draw = (scale: number, shift: number) => Array.from({ length: size }, () => shift + scale * rng.next());
      const batch = {
        logp: draw(2, -3),
        oldLogp: draw(2, -3),
        advantages: draw(4, -2),
        mask: Array.from({ length: size }, (_, index) => (index % columns < 2 ? 0 : rng.bool(0.8) ? 1 : 0)),
      };
      batch.mask[2] = 1;
      const asTensors = {
        logp: tf.tensor2d(batch.logp, [rows, columns]),
        oldLogp: tf.tensor2d(batch.oldLogp, [rows, columns]),
        advantages: tf.tensor2d(batch.advantages, [rows, columns]),
        mask: tf.tensor2d(batch.mask, [rows, columns]),
      };
      for (const options of [{}, { dualClip: 3 }, { clipEpsilon: 0.1 }]) {
        expect(ppoClipLossTf(asTensors, options).arraySync()).toBeCloseTo(ppoClipLoss(batch, options), 5);
      }
    }
  });

  it('has zero gradient exactly where the clip (or the dual clip) is active', () => {
    const fixed = { oldLogp: tf.tensor1d(oldLogp), advantages: tf.tensor1d(advantages), mask: tf.tensor1d(mask) };
    const gradient = (options: { dualClip?: number }) =>
      Array.from(
        tf
          .grad((x: tf.Tensor) => ppoClipLossTf({ ...fixed, logp: x }, options))(tf.tensor1d(logp))
          .dataSync(),
      );
    // d l / d logp = −A·ρ where unclipped, 0 where clipped; divided by the 5 masked tokens:
    //   t0 clipped → 0; t1 −(1)(0.5)/5 = −0.1; t2 clipped → 0; t3 −(−1)(1.5)/5 = 0.3;
    //   t4 −(−1)(5)/5 = 1 without dual clip, 0 with it (the loss is the constant 3); t5 masked → 0.
    const plain = gradient({});
    const expected = [0, -0.1, 0, 0.3, 1, 0];
    plain.forEach((value, t) => expect(value).toBeCloseTo(expected[t] as number, 5));
    const dual = gradient({ dualClip: 3 });
    [0, -0.1, 0, 0.3, 0, 0].forEach((value, t) => expect(dual[t]).toBeCloseTo(value, 5));
  });

  it('names mismatched shapes and refuses an empty mask', () => {
    const two = tf.tensor1d([0, 0]);
    expect(() => ppoClipLossTf({ logp: two, oldLogp: tf.tensor1d([0]), advantages: two, mask: two })).toThrow(
      /oldLogp and logp must have the same shape \(logp is \[2\], oldLogp is \[1\]/,
    );
    expect(() => ppoClipLossTf({ logp: two, oldLogp: two, advantages: two, mask: tf.zeros([2]) })).toThrow(
      EmptyLossMaskError,
    );
  });
});

describe('GSPO (sequence-level ratio, ALGORITHMS.md §0)', () => {
  // Sequence 0: masked diffs [0.1, 0.3] → mean 0.2 → ρ = e^0.2 = 1.2214028; A = +1 → −min(1.2214, 1.2) = −1.2.
  // Sequence 1: diffs [−0.2] → ρ = e^−0.2 = 0.8187308 (inside [0.8, 1.2]); A = +2 → −1.6374615.
  // Loss = (−1.2 − 1.6374615)/2 = −1.4187308.
  const sequences = [
    { logp: [-0.9, -1.7, 5], oldLogp: [-1, -2, 0], mask: [1, 1, 0], advantage: 1 },
    { logp: [-1.2, 0, 0], oldLogp: [-1, 0, 0], mask: [1, 0, 0], advantage: 2 },
  ];

  it('uses the geometric mean of the token ratios', () => {
    expect(gspoSequenceRatio(sequences[0]!.logp, sequences[0]!.oldLogp, sequences[0]!.mask)).toBeCloseTo(
      Math.exp(0.2),
      12,
    );
  });

  it('matches the hand-computed loss, plain and on tensors', () => {
    expect(gspoLoss(sequences)).toBeCloseTo(-1.4187308, 6);
    const stack = (key: 'logp' | 'oldLogp' | 'mask') => tf.tensor2d(sequences.map((sequence) => sequence[key]));
    const tensors = {
      logp: stack('logp'),
      oldLogp: stack('oldLogp'),
      mask: stack('mask'),
      advantages: tf.tensor1d([1, 2]),
    };
    expect(gspoLossTf(tensors).arraySync()).toBeCloseTo(-1.4187308, 5);
  });

  it('refuses a sequence without action tokens', () => {
    expect(() => gspoLoss([{ logp: [0], oldLogp: [0], mask: [0], advantage: 1 }])).toThrow(EmptyLossMaskError);
    const zeros = tf.zeros([2, 2]);
    expect(() =>
      gspoLossTf({
        logp: zeros,
        oldLogp: zeros,
        mask: tf.tensor2d([
          [1, 0],
          [0, 0],
        ]),
        advantages: tf.tensor1d([1, 1]),
      }),
    ).toThrow(/sequence 1/);
  });
});

describe('ppoClipTokenLossTf (elementwise, shared by the token, turn and sequence losses)', () => {
  it('equals ppoClipTokenLoss at and around the clip and dual-clip boundaries', () => {
    // Ratios on both sides of 1 − ε = 0.8, 1 + ε = 1.2 and the dual-clip point ρ = c = 3 (where −ρ·A = −c·A
    // for A = −1), and past the ±20 log-ratio clamp; each with positive, negative and zero advantages.
    const ratios = [0.5, 0.79, 0.8, 0.81, 1, 1.19, 1.2, 1.21, 2.99, 3, 3.01, 10];
    const logRatios = [...ratios.map(Math.log), 25, -25];
    const cases = logRatios.flatMap((logRatio) => [-2, -1, 0, 1, 2].map((advantage) => ({ logRatio, advantage })));
    for (const options of [{}, { dualClip: 3 }, { clipEpsilon: 0.1, logRatioClamp: 5 }]) {
      const settings = validatePpoLossOptions(options);
      const tensor = ppoClipTokenLossTf(
        tf.tensor1d(cases.map((entry) => entry.logRatio)),
        tf.tensor1d(cases.map((entry) => entry.advantage)),
        settings,
      ).dataSync();
      cases.forEach((entry, index) => {
        const plain = ppoClipTokenLoss(entry.logRatio, entry.advantage, settings);
        // Relative: past the clamp the loss is ~e^20, where float32 keeps about 7 digits.
        expect(Math.abs(tensor[index]! - plain)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(plain)));
      });
    }
    // At ρ = c with A = −1 the dual clip and the plain loss meet: 3 either way.
    expect(ppoClipTokenLoss(Math.log(3), -1, validatePpoLossOptions({ dualClip: 3 }))).toBeCloseTo(3, 12);
    expect(ppoClipTokenLoss(Math.log(10), -1, validatePpoLossOptions({ dualClip: 3 }))).toBe(3);
  });
});
