import { mixSeed, SeededRng } from './seeded-rng';

describe('SeededRng', () => {
  it('same seed, same stream; different seeds, different streams', () => {
    const a = new SeededRng(42);
    const b = new SeededRng(42);
    const c = new SeededRng(43);
    const draw = (rng: SeededRng) => Array.from({ length: 20 }, () => rng.next());
    const fromA = draw(a);
    expect(draw(b)).toEqual(fromA);
    expect(draw(c)).not.toEqual(fromA);
  });

  it('neighbouring small seeds do not share their first draws', () => {
    const firstInts = Array.from({ length: 10 }, (_, seed) => new SeededRng(seed).int(1, 99));
    expect(new Set(firstInts).size).toBeGreaterThanOrEqual(8);
    const firstFloats = Array.from({ length: 10 }, (_, seed) => new SeededRng(seed).next());
    for (let i = 1; i < firstFloats.length; i++)
      expect(Math.abs(firstFloats[i]! - firstFloats[i - 1]!)).toBeGreaterThan(1e-6);
  });

  it('seeds beyond int32 get their own streams; int32 seeds keep theirs', () => {
    const state = (seed: number) => new SeededRng(seed).state().join(',');
    // 2^32 + k gave seed k's stream, and 2^32 − 1 gave seed −1's: two seeds, one episode.
    for (const [wide, narrow] of [
      [2 ** 32, 0],
      [2 ** 32 + 42, 42],
      [2 ** 32 - 1, -1],
      [2 ** 31, -(2 ** 31)],
      [-(2 ** 32), 0],
      [2 ** 52 + 7, 7],
    ] as const) {
      expect(state(wide)).not.toBe(state(narrow));
      expect(state(wide)).toBe(state(wide));
    }
    expect(state(2 ** 33)).not.toBe(state(2 ** 32));
    // Pinned: the streams of int32 seeds (every seed TurnGym draws) are what they were.
    expect(state(0)).toBe('-1832243442,1020716019,454327756,1275600319');
    expect(state(-1)).toBe('920564995,-63981130,697614773,1778835764');
    expect(state(2147483647)).toBe('849629901,219964201,1510287064,2144703427');
  });

  it('a clone continues exactly where the original is, independently', () => {
    const rng = new SeededRng(7);
    rng.next();
    const twin = rng.clone();
    const expected = [rng.next(), rng.next()];
    expect([twin.next(), twin.next()]).toEqual(expected);
    expect(SeededRng.fromState(twin.state()).next()).toBe(twin.clone().next());
  });

  it('draws uniformly enough in [0, 1) and within int bounds', () => {
    const rng = new SeededRng(1);
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 20000; i++) {
      const x = rng.next();
      expect(x >= 0 && x < 1).toBe(true);
      buckets[Math.floor(x * 10)] += 1;
    }
    for (const count of buckets) expect(Math.abs(count - 2000)).toBeLessThan(200);
    const ints = new Set(Array.from({ length: 500 }, () => rng.int(3, 5)));
    expect([...ints].sort()).toEqual([3, 4, 5]);
  });

  it('shuffles without losing items and picks by weight', () => {
    const rng = new SeededRng(3);
    expect(rng.shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
    const counts = [0, 0];
    for (let i = 0; i < 4000; i++) counts[rng.weighted([1, 3])]! += 1;
    expect(counts[1]! / 4000).toBeCloseTo(0.75, 1);
    expect(() => rng.weighted([0, 0])).toThrow(RangeError);
  });

  it('gamma samples are positive, reproducible, and have mean and variance equal to the shape', () => {
    for (const shape of [0.3, 1, 2.5]) {
      const rng = new SeededRng(11);
      const draws = Array.from({ length: 20000 }, () => rng.gamma(shape));
      expect(draws.every((x) => x > 0 && Number.isFinite(x))).toBe(true);
      const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length;
      const variance = draws.reduce((sum, x) => sum + (x - mean) ** 2, 0) / draws.length;
      expect(Math.abs(mean - shape)).toBeLessThan(0.05 * Math.max(1, shape));
      expect(Math.abs(variance - shape)).toBeLessThan(0.1 * Math.max(1, shape));
      const again = new SeededRng(11);
      expect(Array.from({ length: 5 }, () => again.gamma(shape))).toEqual(draws.slice(0, 5));
    }
    expect(() => new SeededRng(1).gamma(0)).toThrow(RangeError);
    expect(() => new SeededRng(1).gamma(Number.NaN)).toThrow(RangeError);
  });

  it('mixSeed is stable and sensitive to every part', () => {
    expect(mixSeed('task', 1)).toBe(mixSeed('task', 1));
    expect(mixSeed('task', 1)).not.toBe(mixSeed('task', 2));
    expect(mixSeed(1, 23)).not.toBe(mixSeed(12, 3));
  });
});
