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
