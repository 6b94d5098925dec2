/** Small, exact statistics helpers used by `run`, the checker and the leaderboard. */

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Unbiased sample standard deviation; 0 for fewer than two values. */
export function sampleStd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - m) ** 2, 0) / (values.length - 1));
}

export interface Interval {
  readonly low: number;
  readonly high: number;
}

const Z95 = 1.959963984540054;

/** 95% interval of a mean (normal approximation; honest enough for n ≥ 10, wide for less). */
export function meanInterval95(values: readonly number[]): Interval {
  const m = mean(values);
  const half = values.length > 1 ? (Z95 * sampleStd(values)) / Math.sqrt(values.length) : Number.POSITIVE_INFINITY;
  return { low: m - half, high: m + half };
}

/** Wilson score interval for a success rate: stays inside [0, 1] and is sane at 0/n and n/n. */
export function wilsonInterval95(successes: number, trials: number): Interval {
  if (trials === 0) return { low: 0, high: 1 };
  const p = successes / trials;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
