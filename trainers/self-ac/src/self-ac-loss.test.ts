import { tf, useBackend } from '@turngym/lm';
import { padEpisodeVectors, type EpisodeVectors } from './episode-vectors';
import type { PackedEpisode } from './packed-episode';
import { selfAcLoss, selfAcLossTf, tdLossesByHorizon, turnSpans } from './self-ac-loss';

/**
 * A two-turn episode by hand, λ = 0.5, N = 2: r = [0, 0.5] (r_2 = 0), R = [0.25, 0.5, 0], V(s_0, s_1, s_2) =
 * [0.25, 0.5, 1]; tokens: cp_0 at 0, a_0 = 1…2, cp_1 at 3, a_1 = 4…5, cp_2 at 6, and log π_θ = log π_old
 * (ratio 1: the actor loss is −mean_k A_k).
 *
 * Cut short by the time limit (truncated), s_2 is no end: V(s_2) = 1 stands in for what would have followed.
 *   TD(1): Y(s_0) = 0 + 0.5·0.5 = 0.25, Y(s_1) = 0.5 + 0.5·1 = 1;
 *   TD(2): Y(s_0) = 0 + 0.5·0.5 + 0.25·1 = 0.5; Y(s_1) reaches past s_2 and stops there: 0.5 + 0.5·1 = 1.
 *   Critic (mean over s_0, s_1, then over N) = (0 + 0.25 + 0.0625 + 0.25)/2/2 = 0.140625.
 *   A_0 = R_0 + λ²·V(s_2) − V(s_0) = 0.25 + 0.25 − 0.25 = 0.25; A_1 = 0.5 + 0.5 − 0.5 = 0.5; actor = −0.375.
 * Reading 0 past s_2 instead would give TD(2) Y(s_1) = 0.5 and A = [0, 0]: critic 0.078125, actor 0 — the time
 * limit taken for a terminal state with nothing after it.
 * Ended by the task (terminated), V(s_2) is 0 and every target is the return: critic 0, A = [0, 0].
 */
function episode(terminal: boolean): PackedEpisode {
  const vectors: EpisodeVectors = {
    aStart: [1, 4],
    aEnd: [2, 5],
    cpStart: [0, 3, 6],
    cpEnd: [0, 3, 6],
    piOld: [Math.exp(-2), Math.exp(-2)],
    logPiOld: [-2, -2],
    rewards: [0, 0.5, 0],
    returns: [0.25, 0.5, 0],
    terminal,
    cut: false,
  };
  return { vectors, oldLogprobs: [0, -1, -1, 0, -1, -1, 0] } as unknown as PackedEpisode;
}
const values = [0.25, 0.5, 1];
const logprobs = [0, -1, -1, 0, -1, -1, 0];
const options = { alpha: 0.5, discount: 0.5, horizons: 2 };

describe('Self-AC loss at the end of an episode (ALGORITHMS.md §2)', () => {
  beforeAll(() => useBackend('cpu'));

  it('bootstraps a truncated episode from V(s_n) in every TD target and return that reaches past it, by hand', () => {
    const truncated = episode(false);
    const plain = selfAcLoss([truncated], [values], [logprobs], options);
    expect(plain.critic).toBeCloseTo(0.140625, 12);
    expect(plain.actor).toBeCloseTo(-0.375, 12);
    expect(tdLossesByHorizon([truncated], [values], options)).toEqual({ sums: [0.25, 0.3125], count: 2 });

    const batch = padEpisodeVectors([truncated.vectors]);
    const tensor = selfAcLossTf(
      {
        logprobs: tf.tensor2d([logprobs]),
        values: tf.tensor2d([[0.25, 0, 0, 0.5, 0, 0, 1]]),
      },
      batch,
      tf.tensor2d([truncated.oldLogprobs as number[]]),
      [turnSpans(truncated)],
      options,
    );
    expect(tensor.critic.dataSync()[0]).toBeCloseTo(0.140625, 6);
    expect(tensor.actor.dataSync()[0]).toBeCloseTo(-0.375, 6);
  });

  it('reads a terminal episode’s last state as 0: every target is the return', () => {
    const ended = episode(true);
    const plain = selfAcLoss([ended], [values], [logprobs], options);
    expect(plain.critic).toBeCloseTo(0, 12);
    expect(plain.actor).toBeCloseTo(0, 12);
    const tensor = selfAcLossTf(
      { logprobs: tf.tensor2d([logprobs]), values: tf.tensor2d([[0.25, 0, 0, 0.5, 0, 0, 1]]) },
      padEpisodeVectors([ended.vectors]),
      tf.tensor2d([ended.oldLogprobs as number[]]),
      [turnSpans(ended)],
      options,
    );
    expect(tensor.critic.dataSync()[0]).toBeCloseTo(0, 6);
    expect(tensor.actor.dataSync()[0]).toBeCloseTo(0, 6);
  });
});

/**
 * A padded batch by hand, λ = 0.5, N = 2, α = 0.5, ε = 0.2; each action is 2 tokens, ρ sits on its first token.
 *   A: one turn, terminal: cp_0 at 0, a_0 = 1…2, cp_1 at 3; r = [1, 0], R = [1, 0]; V = [0.4, head 0.9 → 0].
 *   B: one turn, truncated: the same layout; r = [0, 0], R = [0, 0]; V = [0.2, 0.8] (0.8 is the bootstrap).
 *   C: two turns, terminal: cp_0 0, a_0 1…2, cp_1 3, a_1 4…5, cp_2 6; r = [0, 1, 0], R = [0.5, 1, 0];
 *      V = [0.9, 1.5, head 0.3 → 0].
 * A and B are padded to C's 7 tokens with V = 9 and logp = −5 there: padding must reach neither loss.
 * Critic (each state: TD(1), TD(2) targets and squared errors):
 *   A s_0: 1 + 0.5·0 = 1; 1 + 0.5·0 + 0.25·0 = 1            → 0.36 + 0.36
 *   B s_0: 0 + 0.5·0.8 = 0.4; TD(2) stops at s_1: 0.4       → 0.04 + 0.04
 *   C s_0: 0 + 0.5·1.5 = 0.75; 0 + 0.5·1 + 0.25·0 = 0.5     → 0.0225 + 0.16
 *   C s_1: 1 + 0.5·0 = 1; 1                                 → 0.25 + 0.25
 *   Loss_Critic = 1.4825 / 4 states / 2 horizons = 0.1853125.
 * Actor (A_k = R_k [+ λ^(n−k)·V(s_n) when truncated] − V(s_k); l = −min(ρA, clip(ρ, 0.8, 1.2)·A)):
 *   A a_0: A = 1 − 0.4 = 0.6, ρ = 1.5: −min(0.9, 0.72) = −0.72             (A > 0, clipped above)
 *   B a_0: A = 0 + 0.5·0.8 − 0.2 = 0.2, ρ = 0.5: −min(0.1, 0.16) = −0.1    (A > 0, below: unclipped)
 *   C a_0: A = 0.5 − 0.9 = −0.4, ρ = 2: −min(−0.8, −0.48) = 0.8            (A < 0, above: unclipped)
 *   C a_1: A = 1 − 1.5 = −0.5, ρ = 0.5: −min(−0.25, −0.4) = 0.4            (A < 0, clipped below)
 *   Loss_Actor = (−0.72 − 0.1 + 0.8 + 0.4) / 4 turns = 0.095; Loss = 0.5·0.1853125 + 0.5·0.095 = 0.14015625.
 */
describe('Self-AC loss on a padded batch, by hand', () => {
  beforeAll(() => useBackend('cpu'));

  const oneTurn = (terminal: boolean, rewards: number[], returns: number[]): PackedEpisode =>
    ({
      vectors: {
        aStart: [1],
        aEnd: [2],
        cpStart: [0, 3],
        cpEnd: [0, 3],
        piOld: [Math.exp(-2)],
        logPiOld: [-2],
        rewards,
        returns,
        terminal,
        cut: false,
      },
      oldLogprobs: [0, -1, -1, 0],
    }) as unknown as PackedEpisode;
  const a = oneTurn(true, [1, 0], [1, 0]);
  const b = oneTurn(false, [0, 0], [0, 0]);
  const c = {
    vectors: {
      aStart: [1, 4],
      aEnd: [2, 5],
      cpStart: [0, 3, 6],
      cpEnd: [0, 3, 6],
      piOld: [Math.exp(-2), Math.exp(-2)],
      logPiOld: [-2, -2],
      rewards: [0, 1, 0],
      returns: [0.5, 1, 0],
      terminal: true,
      cut: false,
    },
    oldLogprobs: [0, -1, -1, 0, -1, -1, 0],
  } as unknown as PackedEpisode;
  // log π_θ: the old logprobs with ln ρ_k on each action's first token.
  const logprobs = [
    [0, -1 + Math.log(1.5), -1, 0],
    [0, -1 + Math.log(0.5), -1, 0],
    [0, -1 + Math.log(2), -1, 0, -1 + Math.log(0.5), -1, 0],
  ];
  const values = [
    [0.4, 0.9],
    [0.2, 0.8],
    [0.9, 1.5, 0.3],
  ];
  const options = { alpha: 0.5, discount: 0.5, horizons: 2, clipEpsilon: 0.2 };

  it('masks padding out of both losses and matches the hand-worked numbers, plain and on tensors', () => {
    const plain = selfAcLoss([a, b, c], values, logprobs, options);
    expect(plain.critic).toBeCloseTo(1.4825 / 4 / 2, 12);
    expect(plain.actor).toBeCloseTo((-0.72 - 0.1 + 0.8 + 0.4) / 4, 12);
    expect(plain.loss).toBeCloseTo(0.14015625, 12);

    const pad = (row: number[], value: number) => [...row, ...new Array<number>(7 - row.length).fill(value)];
    // Per-token values: V(s_k) at cp_k's last token, 9 everywhere else (padding included).
    const tokenValues = [a, b, c].map((episode, e) =>
      Array.from({ length: 7 }, (_, t) => {
        const k = episode.vectors.cpEnd.indexOf(t);
        return k >= 0 && t < episode.oldLogprobs.length ? values[e]![k]! : 9;
      }),
    );
    const tensor = selfAcLossTf(
      { logprobs: tf.tensor2d(logprobs.map((row) => pad(row, -5))), values: tf.tensor2d(tokenValues) },
      padEpisodeVectors([a, b, c].map((episode) => episode.vectors)),
      tf.tensor2d([a, b, c].map((episode) => pad([...episode.oldLogprobs], 0))),
      [a, b, c].map(turnSpans),
      options,
    );
    expect(tensor.critic.dataSync()[0]).toBeCloseTo(0.1853125, 6);
    expect(tensor.actor.dataSync()[0]).toBeCloseTo(0.095, 6);
    expect(tensor.loss.dataSync()[0]).toBeCloseTo(0.14015625, 6);
  });
});
