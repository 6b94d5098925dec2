import { groupAdvantages } from '@turngym/rl';
import { combineGigpo, discountedReturns, gigpoGroupAdvantages } from './gigpo-advantages';

describe('GiGPO advantages (ALGORITHMS.md §5b)', () => {
  it('discounts step returns with γ = 0.95: R_t = r_t + γ·R_{t+1}', () => {
    const returns = discountedReturns([0, 0, 1]);
    expect(returns[2]).toBe(1);
    expect(returns[1]).toBeCloseTo(0.95, 12);
    expect(returns[0]).toBeCloseTo(0.9025, 12);
    expect(discountedReturns([1, -1, 2], 0.5)).toEqual([1 - 0.5 + 0.5, -1 + 1, 2]);
  });

  it('groups steps by anchor state across the task group; singletons get 0, groups their z-score', () => {
    const result = gigpoGroupAdvantages([
      { episodeReturn: 1, anchors: ['s0', 'a', 'b'], rewards: [0, 0, 1] },
      { episodeReturn: 0, anchors: ['s0', 'a', 'c'], rewards: [0, 0, 0] },
      { episodeReturn: 0.5, anchors: ['s0', 'd'], rewards: [0, 0.5] },
    ]);
    expect(result.episode).toEqual(Array.from(groupAdvantages([1, 0, 0.5])));
    const r0 = [0.9025, 0, 0.95 * 0.5];
    const s0 = groupAdvantages(r0);
    const a = groupAdvantages([0.95, 0]);
    expect(result.step[0]![0]).toBeCloseTo(s0[0]!, 9);
    expect(result.step[1]![0]).toBeCloseTo(s0[1]!, 9);
    expect(result.step[2]![0]).toBeCloseTo(s0[2]!, 9);
    expect(result.step[0]![1]).toBeCloseTo(a[0]!, 9);
    expect(result.step[1]![1]).toBeCloseTo(a[1]!, 9);
    // b, c and d were each visited once: no step-level signal.
    expect([result.step[0]![2], result.step[1]![2], result.step[2]![1]]).toEqual([0, 0, 0]);
    expect({ groups: result.stepGroups, singletons: result.singletonGroups }).toEqual({ groups: 5, singletons: 3 });
  });

  it('gives equal returns in a group exact zeros, and combines A = A_episode + ω·A_step', () => {
    const tied = gigpoGroupAdvantages([
      { episodeReturn: 1, anchors: ['x', 'y'], rewards: [0, 1] },
      { episodeReturn: 1, anchors: ['x', 'y'], rewards: [0, 1] },
    ]);
    expect(tied.step).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(combineGigpo(0.5, [1, -1, 0], 1)).toEqual([1.5, -0.5, 0.5]);
    expect(combineGigpo(0.5, [1], 0)).toEqual([0.5]);
  });

  it('works a truncated rollout from its observed rewards only (no bootstrap), by hand', () => {
    // r1 succeeds at its 2nd step; r2 is cut by the env's turn limit after 2 steps with nothing earned. Both took
    // their first step on the task and their second in state x.
    const result = gigpoGroupAdvantages([
      { episodeReturn: 1, anchors: ['task', 'x'], rewards: [0, 1] },
      { episodeReturn: 0, anchors: ['task', 'x'], rewards: [0, 0] },
    ]);
    // Episode: mean 0.5, unbiased std √((0.5² + 0.5²)/1) = √0.5; A = ±0.5/(√0.5 + 1e-6).
    const half = 0.5 / (Math.sqrt(0.5) + 1e-6);
    expect(result.episode[0]).toBeCloseTo(half, 12);
    expect(result.episode[1]).toBeCloseTo(-half, 12);
    // Step returns: r1 [0 + 0.95·1, 1] = [0.95, 1]; r2 [0, 0] (a truncated episode is not bootstrapped).
    // Group "task": [0.95, 0] → ±0.475/(0.475·√2 + 1e-6); group "x": [1, 0] → ±0.5/(√0.5 + 1e-6).
    const task = 0.475 / (0.475 * Math.SQRT2 + 1e-6);
    expect(result.step[0]).toEqual([expect.closeTo(task, 12), expect.closeTo(half, 12)]);
    expect(result.step[1]).toEqual([expect.closeTo(-task, 12), expect.closeTo(-half, 12)]);
    expect({ groups: result.stepGroups, singletons: result.singletonGroups }).toEqual({ groups: 2, singletons: 0 });
  });

  it('gives a lone rollout R/(1 + 1e-6) (verl’s group of one) and its singleton steps 0; a state it revisits is a group', () => {
    const result = gigpoGroupAdvantages([{ episodeReturn: 0.8, anchors: ['task', 'x', 'task'], rewards: [0, 0, 0.8] }]);
    expect(result.episode).toEqual([expect.closeTo(0.8 / (1 + 1e-6), 12)]);
    // Returns [0.95²·0.8, 0.95·0.8, 0.8] = [0.722, 0.76, 0.8]; "task" holds steps 0 and 2: [0.722, 0.8], mean
    // 0.761, std 0.039·√2; "x" is a singleton.
    const z = 0.039 / (0.039 * Math.SQRT2 + 1e-6);
    expect(result.step[0]).toEqual([expect.closeTo(-z, 9), 0, expect.closeTo(z, 9)]);
  });
});
