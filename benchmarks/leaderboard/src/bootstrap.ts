import { mean, mixSeed, sampleStd, SeededRng } from '@turngym/core';

/** Resamples per interval: the percentiles are stable to about ±0.005 on a 0/1 metric at this count. */
export const DEFAULT_RESAMPLES = 2000;

/** A metric over the scored episodes of one env: its mean, a 95% bootstrap interval, and its spread across seeds. */
export interface MetricSummary {
  mean: number;
  /** 2.5th percentile of the bootstrap means. */
  low: number;
  /** 97.5th percentile of the bootstrap means. */
  high: number;
  /** Sample standard deviation across the episodes (seeds): how much one episode varies. */
  std: number;
  min: number;
  max: number;
}

/** Linear interpolation between order statistics (R's type 7, NumPy's default). */
function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const lower = sorted[below] as number;
  return lower + ((sorted[above] as number) - lower) * (position - below);
}

/**
 * Percentile bootstrap of a statistic over groups of values: each resample draws every group with
 * replacement to its own size (stratified), then applies `statistic` to the resampled groups. Seeded, so
 * the same values give the same interval on every machine.
 */
export function bootstrapInterval(
  groups: readonly (readonly number[])[],
  statistic: (groups: readonly (readonly number[])[]) => number,
  seed: number,
  resamples = DEFAULT_RESAMPLES,
): { low: number; high: number } {
  const rng = new SeededRng(seed);
  const estimates: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const resampled = groups.map((values) => values.map(() => values[rng.int(0, values.length - 1)] as number));
    estimates.push(statistic(resampled));
  }
  estimates.sort((a, b) => a - b);
  return { low: quantile(estimates, 0.025), high: quantile(estimates, 0.975) };
}

/**
 * Mean, 95% bootstrap interval and spread of several metrics of the same episodes. Each resample draws the
 * episodes once and averages every metric over them (a paired bootstrap: one stream of draws, not one per
 * metric). Null when there are no episodes.
 */
export function summarizeMetrics<K extends string>(
  columns: Readonly<Record<K, readonly number[]>>,
  seedParts: readonly (string | number)[],
  resamples = DEFAULT_RESAMPLES,
): Record<K, MetricSummary> | null {
  const names = Object.keys(columns) as K[];
  const n = columns[names[0] as K]?.length ?? 0;
  if (n === 0) return null;
  if (names.some((name) => columns[name].length !== n))
    throw new RangeError('summarizeMetrics: columns of different lengths');
  const rng = new SeededRng(mixSeed(...seedParts));
  const estimates = names.map(() => new Float64Array(resamples));
  const sums = new Float64Array(names.length);
  for (let r = 0; r < resamples; r++) {
    sums.fill(0);
    for (let i = 0; i < n; i++) {
      const pick = rng.int(0, n - 1);
      for (let m = 0; m < names.length; m++) sums[m] = (sums[m] as number) + (columns[names[m] as K][pick] as number);
    }
    for (let m = 0; m < names.length; m++) (estimates[m] as Float64Array)[r] = (sums[m] as number) / n;
  }
  const out = {} as Record<K, MetricSummary>;
  names.forEach((name, m) => {
    const values = columns[name];
    const sorted = Array.from((estimates[m] as Float64Array).sort());
    out[name] = {
      mean: mean(values),
      low: quantile(sorted, 0.025),
      high: quantile(sorted, 0.975),
      std: sampleStd(values),
      min: Math.min(...values),
      max: Math.max(...values),
    };
  });
  return out;
}

/** Mean, 95% bootstrap interval and spread of one metric; null when no episode was scored. */
export function summarizeMetric(
  values: readonly number[],
  seedParts: readonly (string | number)[],
  resamples = DEFAULT_RESAMPLES,
): MetricSummary | null {
  return summarizeMetrics({ value: values }, seedParts, resamples)?.value ?? null;
}

/**
 * The macro average (mean over envs of each env's mean) with a stratified bootstrap interval: every env
 * counts the same whatever its episode count, and each resample keeps every env's size.
 */
export function summarizeMacroMean(
  groups: readonly (readonly number[])[],
  seedParts: readonly (string | number)[],
  resamples = DEFAULT_RESAMPLES,
): { mean: number; low: number; high: number } | null {
  const nonEmpty = groups.filter((values) => values.length > 0);
  if (nonEmpty.length === 0) return null;
  const macro = (sample: readonly (readonly number[])[]): number =>
    mean(sample.map((values) => mean(values as number[])));
  return { mean: macro(nonEmpty), ...bootstrapInterval(nonEmpty, macro, mixSeed(...seedParts), resamples) };
}
