import { bootstrapInterval, summarizeMacroMean, summarizeMetric } from './bootstrap';

describe('bootstrap intervals', () => {
  it('matches the normal approximation where it holds (n = 400 Bernoulli draws)', () => {
    const values = Array.from({ length: 400 }, (_, i) => (i % 10 < 3 ? 1 : 0)); // p = 0.3
    const summary = summarizeMetric(values, ['test', 'bernoulli']);
    const half = 1.96 * Math.sqrt((0.3 * 0.7) / 400); // ≈ 0.045
    expect(summary?.mean).toBeCloseTo(0.3, 10);
    expect(summary?.low).toBeCloseTo(0.3 - half, 2);
    expect(summary?.high).toBeCloseTo(0.3 + half, 2);
    expect(summary?.std).toBeCloseTo(Math.sqrt((0.3 * 0.7 * 400) / 399), 10);
    expect([summary?.min, summary?.max]).toEqual([0, 1]);
  });

  it('is reproducible from its seed and changes with it', () => {
    const values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
    const a = summarizeMetric(values, ['suite', 'env', 'reward']);
    expect(summarizeMetric(values, ['suite', 'env', 'reward'])).toEqual(a);
    expect(summarizeMetric(values, ['suite', 'env', 'turns'])).not.toEqual(a);
  });

  it('narrows as episodes are added, and collapses when every episode agrees', () => {
    const small = summarizeMetric([0, 1, 1, 0, 1, 0, 1, 1], ['n'], 1000);
    const large = summarizeMetric(
      Array.from({ length: 80 }, (_, i) => [0, 1, 1, 0, 1, 0, 1, 1][i % 8] as number),
      ['n'],
      1000,
    );
    expect((large?.high ?? 0) - (large?.low ?? 0)).toBeLessThan(((small?.high ?? 0) - (small?.low ?? 0)) / 2);
    expect(summarizeMetric([1, 1, 1], ['all'])).toMatchObject({ mean: 1, low: 1, high: 1, std: 0 });
    expect(summarizeMetric([], ['none'])).toBeNull();
  });

  it('the macro mean weighs envs equally and resamples within each env', () => {
    // 10 episodes all solved in one env, 90 all failed in another: the macro mean is 0.5, not 0.1.
    const macro = summarizeMacroMean([Array(10).fill(1), Array(90).fill(0)], ['macro']);
    expect(macro).toEqual({ mean: 0.5, low: 0.5, high: 0.5 });
    const mixed = summarizeMacroMean([[0, 1, 0, 1], [1, 1, 1, 1], []], ['macro']);
    expect(mixed?.mean).toBeCloseTo(0.75, 10);
    expect(mixed?.low).toBeLessThan(0.75);
    expect(mixed?.high).toBeGreaterThan(0.75);
    expect(mixed?.high).toBeLessThanOrEqual(1);
    expect(summarizeMacroMean([[], []], ['macro'])).toBeNull();
  });

  it('takes the 2.5th and 97.5th percentiles of the resampled statistic', () => {
    // With one value per group every resample is that value: the interval is exactly it.
    expect(bootstrapInterval([[7]], ([group]) => (group as number[])[0] as number, 1, 200)).toEqual({
      low: 7,
      high: 7,
    });
  });
});
