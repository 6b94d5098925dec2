import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { numericGradient } from './__fixtures__/numeric-gradient';
import { ppoClipLoss } from './ppo-loss';
import { TREE_GRPO_DUAL_CLIP } from './ppo-loss-options';
import { EmptyLossMaskError } from './rl-errors';
import {
  ppoTurnClipLoss,
  ppoTurnClipLossTf,
  turnLogRatios,
  type TurnPpoSequence,
  type TurnSpan,
} from './turn-ppo-loss';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// Row 0: prompt, action 0 (tokens 1–2), observation, action 1 (tokens 4–5). Row 1: one action (token 0).
//   turn 0: Σ diffs 0.1 + 0.2 = 0.3 → ρ = e^0.3 = 1.3499 > 1.2, A = +1 → −1.2 (clipped)
//   turn 1: Σ diffs −0.05 − 0.05 = −0.1 → ρ = e^−0.1 = 0.9048374 (inside), A = +2 → −1.8096748
//   turn 2: diff ln 5 → ρ = 5, A = −1 → 5; with dual clip c = 3 → 3
// Turn-mean: (−1.2 − 1.8096748 + 5)/3 = 0.6634417; dual clip (−1.2 − 1.8096748 + 3)/3 = −0.0032249.
const oldRow0 = [-1, -2, -1, -3, -1, -2];
const diffs0 = [7, 0.1, 0.2, -4, -0.05, -0.05]; // tokens 0 and 3 lie outside every turn: must not count
const sequences: TurnPpoSequence[] = [
  {
    logp: oldRow0.map((old, t) => old + diffs0[t]!),
    oldLogp: oldRow0,
    turns: [
      { start: 1, end: 2 },
      { start: 4, end: 5 },
    ],
    advantages: [1, 2],
  },
  { logp: [-2 + Math.log(5), 0], oldLogp: [-2, 0], turns: [{ start: 0, end: 0 }], advantages: [-1] },
];

function asTensors(batch: readonly TurnPpoSequence[], padAdvantage = 0) {
  const tokens = Math.max(...batch.map((sequence) => sequence.logp.length));
  const turns = Math.max(...batch.map((sequence) => sequence.turns.length));
  const pad = (values: ArrayLike<number>, width: number, fill: number) =>
    Array.from({ length: width }, (_, index) => (index < values.length ? values[index]! : fill));
  return {
    logp: tf.tensor2d(batch.map((sequence) => pad(sequence.logp, tokens, 0))),
    oldLogp: tf.tensor2d(batch.map((sequence) => pad(sequence.oldLogp, tokens, 0))),
    advantages: tf.tensor2d(batch.map((sequence) => pad(sequence.advantages, turns, padAdvantage))),
    turns: batch.map((sequence) => sequence.turns),
  };
}

describe('turn-level PPO-clip (ALGORITHMS.md §2)', () => {
  it('sums the log-ratio over each action’s tokens', () => {
    const logRatios = turnLogRatios(sequences[0]!.logp, sequences[0]!.oldLogp, sequences[0]!.turns);
    expect(logRatios[0]).toBeCloseTo(0.3, 12);
    expect(logRatios[1]).toBeCloseTo(-0.1, 12);
  });

  it('matches the hand-computed turn-mean, plain and on tensors, with and without dual clip', () => {
    expect(ppoTurnClipLoss(sequences)).toBeCloseTo(0.6634417, 6);
    expect(ppoTurnClipLoss(sequences, { dualClip: TREE_GRPO_DUAL_CLIP })).toBeCloseTo(-0.0032249, 6);
    // Padding past a row's turns carries a garbage advantage; it must not count.
    const tensors = asTensors(sequences, 99);
    expect(ppoTurnClipLossTf(tensors).arraySync()).toBeCloseTo(0.6634417, 5);
    expect(ppoTurnClipLossTf(tensors, { dualClip: TREE_GRPO_DUAL_CLIP }).arraySync()).toBeCloseTo(-0.0032249, 5);
  });

  it('equals the token-level loss when every action is one token', () => {
    const logp = [-1, -0.5, -2, -0.1];
    const oldLogp = [-1.5, -0.5, -1, -0.2];
    const advantages = [1, -2, -0.5, 3];
    const spans: TurnSpan[] = [0, 1, 2, 3].map((t) => ({ start: t, end: t }));
    for (const options of [{}, { dualClip: 3 }]) {
      expect(ppoTurnClipLoss([{ logp, oldLogp, turns: spans, advantages }], options)).toBeCloseTo(
        ppoClipLoss({ logp, oldLogp, advantages, mask: [1, 1, 1, 1] }, options),
        12,
      );
    }
  });

  it('agrees with the plain version on seeded random batches', () => {
    const rng = new SeededRng(11);
    for (let trial = 0; trial < 6; trial += 1) {
      const batch: TurnPpoSequence[] = [0, 1, 2].map(() => {
        const length = rng.int(6, 11);
        const turns: TurnSpan[] = [];
        for (let start = rng.int(0, 1); start < length;) {
          const end = Math.min(length - 1, start + rng.int(0, 2));
          turns.push({ start, end });
          start = end + 2 + rng.int(0, 1);
        }
        const draw = () => Array.from({ length }, () => -3 + 2 * rng.next());
        const oldLogp = draw();
        return {
          logp: oldLogp.map((old) => old + 0.6 * (rng.next() - 0.5)),
          oldLogp,
          turns,
          advantages: turns.map(() => 4 * (rng.next() - 0.5)),
        };
      });
      for (const options of [{}, { dualClip: 3 }, { clipEpsilon: 0.05 }]) {
        expect(ppoTurnClipLossTf(asTensors(batch, 5), options).arraySync()).toBeCloseTo(
          ppoTurnClipLoss(batch, options),
          5,
        );
      }
    }
  });

  it('has −A·ρ/K per token of an unclipped turn and 0 in clipped, clamped or out-of-turn tokens', () => {
    const { oldLogp, advantages, turns } = asTensors(sequences);
    const at = (options: { dualClip?: number }) =>
      tf
        .grad((x: tf.Tensor) => ppoTurnClipLossTf({ logp: x as tf.Tensor2D, oldLogp, advantages, turns }, options))(
          asTensors(sequences).logp,
        )
        .arraySync() as number[][];
    // turn 1: −2·e^−0.1/3 = −0.6032249 on tokens 4 and 5; turn 2: −(−1)·5/3 = 1.6666667 on row 1's token 0.
    const plain = at({});
    [0, 0, 0, 0, -0.6032249, -0.6032249].forEach((value, t) => expect(plain[0]![t]).toBeCloseTo(value, 5));
    [1.6666667, 0].forEach((value, t) => expect(plain[1]![t]).toBeCloseTo(value, 5));
    expect(at({ dualClip: 3 })[1]![0]).toBeCloseTo(0, 6);
    // A log-ratio past the ±20 clamp: the ratio is e^20 and the gradient stops.
    const far = [{ logp: [15, 15], oldLogp: [0, 0], turns: [{ start: 0, end: 1 }], advantages: [1] }];
    expect(ppoTurnClipLoss(far, { clipEpsilon: 0.2 })).toBeCloseTo(-1.2, 12);
    const { oldLogp: farOld, advantages: farAdvantages, turns: farTurns } = asTensors(far);
    const clampedGradient = tf
      .grad((x: tf.Tensor) =>
        ppoTurnClipLossTf({
          logp: x as tf.Tensor2D,
          oldLogp: farOld,
          advantages: tf.neg(farAdvantages) as tf.Tensor2D,
          turns: farTurns,
        }),
      )(asTensors(far).logp)
      .dataSync();
    expect(Array.from(clampedGradient)).toEqual([0, 0]);
  });

  it('has the finite-difference gradient of its plain twin on a tiny random case', () => {
    const oldLogp = [-1, -1.2, -0.7, -2, -0.4];
    const turns = [
      { start: 0, end: 1 },
      { start: 3, end: 4 },
    ];
    const advantages = [0.7, -1.3];
    const logp = [-1.05, -1.1, -0.9, -2.02, -0.45];
    const plain = (x: number[]) => ppoTurnClipLoss([{ logp: x, oldLogp, turns, advantages }]);
    const expected = numericGradient(plain, logp);
    const tensors = asTensors([{ logp, oldLogp, turns, advantages }]);
    const actual = tf
      .grad((x: tf.Tensor) => ppoTurnClipLossTf({ ...tensors, logp: x as tf.Tensor2D }))(tensors.logp)
      .dataSync();
    expected.forEach((value, t) => expect(actual[t]).toBeCloseTo(value, 4));
    expect(expected.some((value) => Math.abs(value) > 0.1)).toBe(true);
  });

  it('refuses a row without turns, bad spans and mismatched advantages', () => {
    const one = { logp: [0, 0], oldLogp: [0, 0] };
    expect(() => ppoTurnClipLoss([{ ...one, turns: [], advantages: [] }])).toThrow(EmptyLossMaskError);
    expect(() => ppoTurnClipLoss([{ ...one, turns: [{ start: 0, end: 0 }], advantages: [1, 2] }])).toThrow(
      /advantages must have one entry per turn/,
    );
    const overlapping = [
      { start: 0, end: 1 },
      { start: 1, end: 1 },
    ];
    expect(() => ppoTurnClipLoss([{ ...one, turns: overlapping, advantages: [1, 1] }])).toThrow(
      /turns\[1\] is \{start: 1, end: 1\}.*not overlapping/,
    );
    expect(() => ppoTurnClipLoss([{ ...one, turns: [{ start: 1, end: 2 }], advantages: [1] }])).toThrow(RangeError);
    expect(() => ppoTurnClipLoss([])).toThrow(/sequences is empty/);
    const tensors = asTensors([{ ...one, turns: [{ start: 0, end: 0 }], advantages: [1] }]);
    expect(() => ppoTurnClipLossTf({ ...tensors, turns: [[]] })).toThrow(EmptyLossMaskError);
    expect(() =>
      ppoTurnClipLossTf({
        ...tensors,
        turns: [
          [
            { start: 0, end: 0 },
            { start: 1, end: 1 },
          ],
        ],
      }),
    ).toThrow(/has 2 turns but advantages has room for 1/);
    expect(() => ppoTurnClipLossTf({ ...tensors, turns: [] })).toThrow(/turns one list per row/);
  });
});
