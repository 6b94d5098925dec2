import { groupAdvantages, groupStatistics, isTiedGroup } from './group-advantages';

describe('groupAdvantages (GRPO, ALGORITHMS.md §0)', () => {
  it('matches the hand-computed z-scores of [1, 0, 0, 1]', () => {
    // mean = 0.5; deviations ±0.5; Σ dev² = 4·0.25 = 1; unbiased var = 1/3; std = 0.5773503.
    // A = ±0.5 / (0.5773503 + 1e-6) = ±0.8660239
    const advantages = groupAdvantages([1, 0, 0, 1]);
    expect(Array.from(advantages).map((a) => Number(a.toFixed(6)))).toEqual([0.866024, -0.866024, -0.866024, 0.866024]);
  });

  it('uses the unbiased std (n − 1), not the population one', () => {
    // [2, 0]: mean 1, Σ dev² = 2, unbiased std = √2 → A = ±1/1.4142146 = ±0.707106.
    // (The population std would be 1 and give ±1.)
    const [high, low] = groupAdvantages([2, 0]);
    expect(high).toBeCloseTo(0.707106, 5);
    expect(low).toBeCloseTo(-0.707106, 5);
    expect(groupStatistics([2, 0]).std).toBeCloseTo(Math.SQRT2, 12);
  });

  it('gives exact zeros when every reward is equal', () => {
    // 0.1 + 0.1 + 0.1 = 0.30000000000000004, so the floating mean is off by an ulp; still zeros.
    expect(Array.from(groupAdvantages([0.1, 0.1, 0.1]))).toEqual([0, 0, 0]);
    expect(Array.from(groupAdvantages([1, 1]))).toEqual([0, 0]);
  });

  it('treats a group of one as mean 0, std 1 (ALGORITHMS.md §1)', () => {
    // A = (0.7 − 0) / (1 + 1e-6) = 0.6999993
    expect(groupStatistics([0.7])).toEqual({ mean: 0, std: 1 });
    expect(groupAdvantages([0.7])[0]).toBeCloseTo(0.6999993, 7);
  });

  it('rejects an empty group and non-finite rewards', () => {
    expect(() => groupAdvantages([])).toThrow(/rewards is empty/);
    expect(() => groupAdvantages([1, Number.NaN])).toThrow(/rewards\[1\] is NaN/);
  });
});

describe('isTiedGroup', () => {
  it('is the one rule for no relative signal: fewer than two rollouts, or all rewards equal', () => {
    expect(isTiedGroup([])).toBe(true);
    expect(isTiedGroup([1])).toBe(true);
    expect(isTiedGroup([0.5, 0.5, 0.5])).toBe(true);
    expect(isTiedGroup([0.5, 0.5, 1])).toBe(false);
  });
});
