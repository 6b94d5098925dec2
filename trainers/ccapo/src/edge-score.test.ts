import { criticality, distanceDecay, edgeScore, importance } from './edge-score';

// The seed's §3.2 (v4.1) formulas, checked on numbers worked out by hand.
describe('edge score (ALGORITHMS.md §3 lines 96–99)', () => {
  const edge = (successes: number, total: number, distanceToGoal: number | null = null) => ({
    successes,
    total,
    distanceToGoal,
  });

  it('I(E) is the success rate through E smoothed by a Beta(α, α) prior: 1/2 unseen, the plain rate with many visits', () => {
    expect(importance(edge(0, 0))).toBe(0.5);
    expect(importance(edge(9, 10))).toBeCloseTo(10 / 12, 12);
    expect(importance(edge(3, 4), 2)).toBeCloseTo(5 / 8, 12);
    expect(importance(edge(700, 1000))).toBeCloseTo(0.7, 3);
    // Only failures: α/(N_fail + 2α) → 0 (seed §7.2, "bad steps are recognised").
    expect(importance(edge(0, 1))).toBeCloseTo(1 / 3, 12);
    expect(importance(edge(0, 98))).toBeCloseTo(1 / 100, 12);
  });

  it('I(E) does not collapse as the graph grows (the v4.0 marginal probability did)', () => {
    // v4.0: N_succ(E) / N_succ^total — 5 of 10,000 successes ≈ 0. v4.1 reads only E's own counts.
    expect(importance(edge(5, 10))).toBeCloseTo(0.5, 12);
  });

  it('C(E) is P(success | E) over P(success), 0 while the store has seen no success', () => {
    expect(criticality(edge(8, 10), { episodes: 100, successes: 50 })).toBeCloseTo(1.6, 6);
    expect(criticality(edge(1, 10), { episodes: 100, successes: 50 })).toBeCloseTo(0.2, 6);
    expect(criticality(edge(0, 3), { episodes: 3, successes: 0 })).toBe(0);
  });

  it('D(E) = 1/(d_goal + 1)^0.5, and 1 for an edge no success has gone through', () => {
    expect(distanceDecay(edge(1, 1, 0))).toBe(1);
    expect(distanceDecay(edge(1, 1, 3))).toBeCloseTo(0.5, 12);
    expect(distanceDecay(edge(1, 1, 8), 1)).toBeCloseTo(1 / 9, 12);
    expect(distanceDecay(edge(0, 4, null))).toBe(1);
  });

  it('Q(E) = sigmoid(log(I·(1 + λC)·D)), in [0, 1]', () => {
    const global = { episodes: 100, successes: 50 };
    const e = edge(8, 10, 3);
    const x = (9 / 12) * (1 + 1 * 1.6) * 0.5;
    expect(edgeScore(e, global)).toBeCloseTo(1 / (1 + Math.exp(-Math.log(x))), 6);
    expect(edgeScore(e, global, { priorCount: 1, criticalityWeight: 0, distanceExponent: 0.5 })).toBeCloseTo(
      0.375 / 1.375,
      6,
    );
    // Worse evidence, lower score; every score stays inside (0, 1).
    const scores = [edge(10, 10, 0), edge(8, 10, 3), edge(1, 10, 3), edge(0, 10)].map((e2) => edgeScore(e2, global));
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const score of scores) expect(score > 0 && score < 1).toBe(true);
  });
});
