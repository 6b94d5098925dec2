import { groupAdvantages } from '@turngym/rl';
import {
  fuseAdvantages,
  macroAdvantages,
  macroReward,
  microAdvantages,
  microStatistics,
  rawMicroAdvantage,
} from './dual-stream-advantage';

describe('dual-stream advantages (ALGORITHMS.md §3 lines 100–105)', () => {
  it("R_τ reproduces the seed's table (§4.1): success in 10/20/40 steps, failure at 30/50", () => {
    expect(macroReward(true, 10)).toBeCloseTo(9.0, 12);
    expect(macroReward(true, 20)).toBeCloseTo(8.0, 12);
    expect(macroReward(true, 40)).toBeCloseTo(6.0, 12);
    expect(macroReward(false, 30)).toBeCloseTo(-3.0, 12);
    expect(macroReward(false, 50)).toBeCloseTo(-5.0, 12);
    // v4.1's point: 10 vs 40 steps now differ by 3.0 (1.5 in v4.0).
    expect(macroReward(true, 10) - macroReward(true, 40)).toBeCloseTo(3.0, 12);
  });

  it('A_macro is the group z-score of R_τ (unbiased std + 1e-6): faster successes rank first', () => {
    const rewards = [9, 6, -3, -5];
    const m = (9 + 6 - 3 - 5) / 4;
    const std = Math.sqrt(rewards.reduce((s, r) => s + (r - m) ** 2, 0) / 3);
    const advantages = macroAdvantages(rewards);
    rewards.forEach((r, i) => expect(advantages[i]).toBeCloseTo((r - m) / (std + 1e-6), 9));
    expect(Array.from(advantages)).toEqual(Array.from(groupAdvantages(rewards)));
    expect(Array.from(macroAdvantages([8, 8, 8]))).toEqual([0, 0, 0]);
  });

  it('A_macro of a task whose other rollouts all failed (env errors) is 0, not its raw R_τ', () => {
    // One survivor has nothing to be compared with. GRPO's group-of-one rule (mean 0, std 1) would hand it
    // R_τ itself: 9.0 for a 10-step success, on every turn, ~9× a z-score — or −3.0 for a failure.
    expect(Array.from(macroAdvantages([macroReward(true, 10)]))).toEqual([0]);
    expect(Array.from(macroAdvantages([macroReward(false, 30)]))).toEqual([0]);
    expect(Array.from(macroAdvantages([]))).toEqual([]);
  });

  it('A_micro_raw is Q − V̄; 0 at an unknown anchor and on a loop; an unseen edge scores Q = 0', () => {
    expect(rawMicroAdvantage({ edgeScore: 0.7, baseline: 0.5, loop: false })).toBeCloseTo(0.2, 12);
    expect(rawMicroAdvantage({ edgeScore: 0.3, baseline: 0.5, loop: false })).toBeCloseTo(-0.2, 12);
    expect(rawMicroAdvantage({ edgeScore: 0.7, baseline: null, loop: false })).toBe(0);
    expect(rawMicroAdvantage({ edgeScore: 0.7, baseline: 0.5, loop: true })).toBe(0);
    expect(rawMicroAdvantage({ edgeScore: 0, baseline: 0.4, loop: false })).toBeCloseTo(-0.4, 12);
  });

  it('A_micro is a batch z-score whose std is floored at σ_min = 0.1 (a young store: mostly zeros)', () => {
    // Three zeros and one 0.02: the std (0.01) is below σ_min, so the values are divided by 0.1, not blown up.
    const young = microAdvantages([0, 0, 0, 0.02]);
    expect(young[3]).toBeCloseTo((0.02 - 0.005) / 0.1, 12);
    expect(young[0]).toBeCloseTo(-0.005 / 0.1, 12);
    // A wide batch is divided by its own (unbiased) std.
    const raw = [0.4, -0.4, 0.2, -0.2];
    const std = Math.sqrt((0.16 + 0.16 + 0.04 + 0.04) / 3);
    const wide = microAdvantages(raw);
    raw.forEach((value, i) => expect(wide[i]).toBeCloseTo(value / std, 12));
    expect(Array.from(microAdvantages([0, 0, 0]))).toEqual([0, 0, 0]);
    expect(microAdvantages([0.5, 0.3], 1)[0]).toBeCloseTo(0.1, 12);
  });

  it('A_micro of a batch whose raw values are all equal is exactly 0, not an ulp of the floating mean over σ_min', () => {
    // (0.7 + 0.7 + 0.7)/3 is 0.7000000000000001 in doubles: (0.7 − mean)/0.1 was −1.1e-15, and a tied task group
    // with such steps was trained on instead of skipped.
    expect(Array.from(microAdvantages([0.7, 0.7, 0.7]))).toEqual([0, 0, 0]);
    expect(Array.from(microAdvantages([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]))).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(microAdvantages([-0.123456, -0.123456, -0.123456, -0.123456, -0.123456]))).toEqual([
      0, 0, 0, 0, 0,
    ]);
    expect(Array.from(microAdvantages([0.42]))).toEqual([0]);
    expect(Array.from(microAdvantages([]))).toEqual([]);
  });

  it('microStatistics is what the z-score divides by: the unbiased std (n − 1), 0 for one step', () => {
    // [0, 0.15]: mean 0.075; unbiased std √((0.075² + 0.075²)/1) = 0.075·√2 ≈ 0.106 > σ_min (the population
    // std, 0.075, would say the floor bit).
    const { mean, std } = microStatistics([0, 0.15]);
    expect(mean).toBeCloseTo(0.075, 12);
    expect(std).toBeCloseTo(0.075 * Math.SQRT2, 12);
    expect(microAdvantages([0, 0.15])[1]).toBeCloseTo(0.075 / (0.075 * Math.SQRT2), 12);
    expect(microStatistics([0.3])).toEqual({ mean: 0.3, std: 0 });
    expect(microStatistics([])).toEqual({ mean: 0, std: 0 });
  });

  it('fusion: A_total(t) = A_macro + β·A_micro(t)', () => {
    expect(fuseAdvantages(1, [1, -1, 0], 0.5)).toEqual([1.5, 0.5, 1]);
    expect(fuseAdvantages(-0.5, [2], 1)).toEqual([1.5]);
    expect(fuseAdvantages(0.25, [4, -4], 0)).toEqual([0.25, 0.25]);
  });
});
