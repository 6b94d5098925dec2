import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError, SeededRng } from '@turngym/core';
import { EmptyLossMaskError } from './rl-errors';
import { tdCriticLoss, tdCriticLossTf, tdTarget, tdTargetTf } from './td-critic-loss';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// One episode, λ = 0.5, N = 2: V = [1, 2, 0], r = [0, 1, 2].
//   Y_1 = r + λ(V≪1) = [0 + 1, 1 + 0, 2 + 0] = [1, 1, 2]; V − Y_1 = [0, 1, −2] → 5.
//   Y_2 = r + λ(r≪1) + λ²(V≪2) = [0 + 0.5 + 0, 1 + 1 + 0, 2] = [0.5, 2, 2]; V − Y_2 = [0.5, 0, −2] → 4.25.
//   sum: (5 + 4.25)/2 = 4.625; mean: (5 + 4.25)/3/2 = 1.5416667.
// Past the end: with n = 9 every later reward counts, Y_9 = [0 + 0.5 + 0.5, 1 + 1, 2] = [1, 2, 2].
// Semi-gradient: dL/dV = 2·Σ_n (V − Y_n)/N = [0.5, 1, −4] (sum reduction).
// A second, padded episode V = [3, 0, 0], r = [1, 0, 0], mask [1, 0, 0]: V − Y_1 = V − Y_2 = 2 at t0 → adds (4 + 4)/2.
const episode = { values: [1, 2, 0], rewards: [0, 1, 2], mask: [1, 1, 1] };
const options = { discount: 0.5, horizons: 2 };

describe('Self-AC TD(n) critic loss (ALGORITHMS.md §2)', () => {
  it('builds the TD(n) targets by hand, with zeros past the end of the episode', () => {
    expect(Array.from(tdTarget(episode.rewards, episode.values, 1, 0.5))).toEqual([1, 1, 2]);
    expect(Array.from(tdTarget(episode.rewards, episode.values, 2, 0.5))).toEqual([0.5, 2, 2]);
    expect(Array.from(tdTarget(episode.rewards, episode.values, 9, 0.5))).toEqual([1, 2, 2]);
    const tensor = tdTargetTf(tf.tensor2d([episode.rewards]), tf.tensor2d([episode.values]), 2, 0.5);
    expect(tensor.arraySync()).toEqual([[0.5, 2, 2]]);
  });

  it('matches the hand-computed loss with both reductions, plain and on tensors', () => {
    const rows = { values: [episode.values], rewards: [episode.rewards], mask: [episode.mask] };
    expect(tdCriticLoss(rows, options)).toBeCloseTo(4.625, 12);
    expect(tdCriticLoss(rows, { ...options, reduction: 'mean' })).toBeCloseTo(1.5416667, 7);
    const tensors = {
      values: tf.tensor2d(rows.values),
      rewards: tf.tensor2d(rows.rewards),
      mask: tf.tensor2d(rows.mask),
    };
    expect(tdCriticLossTf(tensors, options).arraySync()).toBeCloseTo(4.625, 5);
    expect(tdCriticLossTf(tensors, { ...options, reduction: 'mean' }).arraySync()).toBeCloseTo(1.5416667, 5);
  });

  it('reads an unpadded short episode the same as its zero-padded row', () => {
    const plain = tdCriticLoss(
      { values: [episode.values, [3]], rewards: [episode.rewards, [1]], mask: [episode.mask, [1]] },
      options,
    );
    expect(plain).toBeCloseTo(4.625 + 4, 12);
    const padded = {
      values: tf.tensor2d([episode.values, [3, 0, 0]]),
      rewards: tf.tensor2d([episode.rewards, [1, 0, 0]]),
      mask: tf.tensor2d([episode.mask, [1, 0, 0]]),
    };
    expect(tdCriticLossTf(padded, options).arraySync()).toBeCloseTo(plain, 5);
  });

  it('detaches V inside the target: the gradient is 2·Σ_n (V − Y_n)/N', () => {
    const fixed = { rewards: tf.tensor2d([episode.rewards]), mask: tf.tensor2d([episode.mask]) };
    const gradient = tf
      .grad((x: tf.Tensor) => tdCriticLossTf({ ...fixed, values: x as tf.Tensor2D }, options))(
        tf.tensor2d([episode.values]),
      )
      .dataSync();
    // A full gradient (through Y_n) would add the −λ^n·2(V − Y_n)_{t−n}/N terms: −4.625 at t2, not −4.
    [0.5, 1, -4].forEach((value, t) => expect(gradient[t]).toBeCloseTo(value, 5));
  });

  it('agrees with the plain version on seeded random padded batches with the default five horizons', () => {
    const rng = new SeededRng(21);
    for (let trial = 0; trial < 4; trial += 1) {
      const lengths = [7, 3, 5];
      const width = 7;
      const rows = lengths.map((length) => ({
        values: Array.from({ length }, () => 2 * (rng.next() - 0.5)),
        rewards: Array.from({ length }, () => (rng.bool(0.3) ? 1 : 0)),
        mask: Array.from({ length }, () => (rng.bool(0.8) ? 1 : 0)),
      }));
      rows[0]!.mask[0] = 1;
      const pad = (values: number[]) => [...values, ...new Array<number>(width - values.length).fill(0)];
      const plain = tdCriticLoss(
        {
          values: rows.map((row) => row.values),
          rewards: rows.map((row) => row.rewards),
          mask: rows.map((row) => row.mask),
        },
        { discount: 0.9, reduction: 'mean' },
      );
      const tensor = tdCriticLossTf(
        {
          values: tf.tensor2d(rows.map((row) => pad(row.values))),
          rewards: tf.tensor2d(rows.map((row) => pad(row.rewards))),
          mask: tf.tensor2d(rows.map((row) => pad(row.mask))),
        },
        { discount: 0.9, reduction: 'mean' },
      );
      expect(tensor.arraySync()).toBeCloseTo(plain, 5);
    }
  });

  // A truncated episode (the time limit cut it; it did not end), λ = 0.5, N = 2: V = [0.25, 0.5, 1], r = [0, 0.5, 0],
  // s_2 its last state, bootstrapping, never a target (mask [1, 1, 0]).
  //   Y_1 = [0 + 0.5·0.5, 0.5 + 0.5·1, ·] = [0.25, 1, ·];
  //   Y_2(s_0) = 0 + 0.5·0.5 + 0.25·1 = 0.5 (lands on s_2); Y_2(s_1) reaches past s_2, so it stops there:
  //   0.5 + 0.5·V(s_2) = 1 — not 0.5 + 0.5·0 + 0.25·0 = 0.5, which would read the time limit as a terminal state.
  //   Loss (sum) = ((0.25 − 0.25)² + (0.5 − 1)² + (0.25 − 0.5)² + (0.5 − 1)²)/2 = 0.28125.
  const truncated = { values: [0.25, 0.5, 1], rewards: [0, 0.5, 0], mask: [1, 1, 0], bootstrap: [0, 0, 1] };

  it('bootstraps every horizon that reaches past a truncated episode’s last state from V there, by hand', () => {
    expect(Array.from(tdTarget(truncated.rewards, truncated.values, 1, 0.5, 2)).slice(0, 2)).toEqual([0.25, 1]);
    expect(Array.from(tdTarget(truncated.rewards, truncated.values, 2, 0.5, 2)).slice(0, 2)).toEqual([0.5, 1]);
    expect(Array.from(tdTarget(truncated.rewards, truncated.values, 9, 0.5, 2)).slice(0, 2)).toEqual([0.5, 1]);
    const tensor = tdTargetTf(tf.tensor2d([truncated.rewards]), tf.tensor2d([truncated.values]), 2, 0.5, [2]);
    expect((tensor.arraySync() as number[][])[0]!.slice(0, 2)).toEqual([0.5, 1]);
    const rows = {
      values: [truncated.values],
      rewards: [truncated.rewards],
      mask: [truncated.mask],
      bootstrap: [truncated.bootstrap],
    };
    expect(tdCriticLoss(rows, options)).toBeCloseTo(0.28125, 12);
    const tensors = {
      values: tf.tensor2d(rows.values),
      rewards: tf.tensor2d(rows.rewards),
      mask: tf.tensor2d(rows.mask),
      bootstrap: tf.tensor2d(rows.bootstrap),
    };
    expect(tdCriticLossTf(tensors, options).arraySync()).toBeCloseTo(0.28125, 6);
    // The same episode ended by the task (no bootstrap, V(s_2) read as 0 by the caller) keeps §2's zeros.
    const ended = { ...rows, values: [[0.25, 0.5, 0]], bootstrap: undefined };
    expect(tdCriticLoss(ended, options)).toBeCloseTo(((0.25 - 0.25) ** 2 + 0 + (0.25 - 0.25) ** 2 + 0) / 2, 12);
    // The bootstrap's value is detached like every V inside a target: the gradient at s_2 is 0 (never a target).
    const gradient = tf
      .grad((x: tf.Tensor) => tdCriticLossTf({ ...tensors, values: x as tf.Tensor2D }, options))(
        tf.tensor2d(rows.values),
      )
      .dataSync();
    [(2 * (0 + (0.5 - 1) * 0 + (0.25 - 0.5))) / 2, (2 * (0.5 - 1) * 2) / 2, 0].forEach((value, t) =>
      expect(gradient[t]).toBeCloseTo(value, 5),
    );
  });

  it('agrees with the plain version on seeded random padded batches with truncated rows', () => {
    const rng = new SeededRng(7);
    for (let trial = 0; trial < 4; trial += 1) {
      const lengths = [7, 3, 5, 6];
      const width = 7;
      const rows = lengths.map((length, index) => {
        const truncatedRow = index % 2 === 0;
        return {
          values: Array.from({ length }, () => 2 * (rng.next() - 0.5)),
          rewards: Array.from({ length }, (_, t) => (t < length - 1 && rng.bool(0.3) ? 1 : 0)),
          mask: Array.from({ length }, (_, t) => (t < length - 1 ? 1 : 0)),
          bootstrap: Array.from({ length }, (_, t) => (truncatedRow && t === length - 1 ? 1 : 0)),
        };
      });
      const pad = (values: number[]) => [...values, ...new Array<number>(width - values.length).fill(0)];
      const pick = (key: 'values' | 'rewards' | 'mask' | 'bootstrap') => rows.map((row) => row[key]);
      const plain = tdCriticLoss(
        { values: pick('values'), rewards: pick('rewards'), mask: pick('mask'), bootstrap: pick('bootstrap') },
        { discount: 0.9, reduction: 'mean' },
      );
      const tensor = tdCriticLossTf(
        {
          values: tf.tensor2d(pick('values').map(pad)),
          rewards: tf.tensor2d(pick('rewards').map(pad)),
          mask: tf.tensor2d(pick('mask').map(pad)),
          bootstrap: tf.tensor2d(pick('bootstrap').map(pad)),
        },
        { discount: 0.9, reduction: 'mean' },
      );
      expect(tensor.arraySync()).toBeCloseTo(plain, 5);
    }
  });

  it('refuses a bootstrap state that is trained, or two of them in a row', () => {
    const rows = { values: [truncated.values], rewards: [truncated.rewards], mask: [[1, 1, 1]] };
    expect(() => tdCriticLoss({ ...rows, bootstrap: [truncated.bootstrap] }, options)).toThrow(
      /mask\[2\] is 1 at or past the bootstrap state 2/,
    );
    expect(() => tdCriticLoss({ ...rows, mask: [truncated.mask], bootstrap: [[0, 1, 1]] }, options)).toThrow(
      /bootstrap marks 2 states/,
    );
    expect(() => tdTarget([0], [0], 1, 0.5, 1)).toThrow(/bootstrap state is at 1/);
  });

  it('refuses an empty mask, a missing discount, bad horizons and mismatched rows', () => {
    const rows = { values: [episode.values], rewards: [episode.rewards], mask: [[0, 0, 0]] };
    expect(() => tdCriticLoss(rows, options)).toThrow(EmptyLossMaskError);
    expect(() =>
      tdCriticLossTf(
        { values: tf.tensor2d(rows.values), rewards: tf.tensor2d(rows.rewards), mask: tf.tensor2d(rows.mask) },
        options,
      ),
    ).toThrow(EmptyLossMaskError);
    const good = { ...rows, mask: [episode.mask] };
    expect(() => tdCriticLoss(good, {} as typeof options)).toThrow(InvalidOptionsError);
    expect(() => tdCriticLoss(good, { discount: 0.5, horizons: 0 })).toThrow(/horizons/);
    expect(() => tdCriticLoss(good, { discount: 1.5 })).toThrow(/discount/);
    expect(() => tdCriticLoss({ ...good, rewards: [[0, 1]] }, options)).toThrow(/row 0: rewards and values/);
    expect(() => tdCriticLoss({ ...good, mask: [] }, options)).toThrow(/one row per episode/);
    expect(() => tdTarget([0], [0], 0, 0.5)).toThrow(/steps is 0/);
  });

  it('refuses a NaN or infinite reward in the targets and the tensor loss, naming the row and index', () => {
    // tdTarget alone (a custom loop's returns) and the tensor loss used to give NaN targets and a NaN loss.
    expect(() => tdTarget([0, Number.NaN, 1], [0, 0, 0], 2, 0.5)).toThrow(/tdTarget: rewards\[1\] is NaN/);
    expect(() => tdTarget([0, 1, 0], [0, Infinity, 0], 1, 0.5)).toThrow(/tdTarget: values\[1\] is Infinity/);
    const rewards = tf.tensor2d([episode.rewards, [0, -Infinity, 0]]);
    expect(() =>
      tdCriticLossTf(
        {
          values: tf.tensor2d([episode.values, episode.values]),
          rewards,
          mask: tf.tensor2d([episode.mask, episode.mask]),
        },
        options,
      ),
    ).toThrow(/tdCriticLossTf: rewards\[1\]\[1\] is -Infinity/);
  });
});
