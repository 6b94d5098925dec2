import { mean, sampleStd } from '@turngym/core';
import { metricValue, type MetricRow } from './metrics-file';
import type { RunInfo } from './run-info';

/** What grouping and curves need of a run: who it is and its metrics. */
export interface RunSeries {
  readonly info: Pick<RunInfo, 'algorithm' | 'envId' | 'seed' | 'label'>;
  readonly metrics: readonly MetricRow[];
}

/** Runs that differ only in their seed: one curve with a band, one thin line per seed. */
export interface RunGroup<R extends RunSeries = RunSeries> {
  /** `algorithm`, `envId` and `label` joined: unique per group. */
  readonly key: string;
  readonly algorithm: string;
  readonly envId: string;
  readonly label: string | null;
  /** `algorithm · envId · label`, for legends and tables. */
  readonly name: string;
  /** The group's runs, by seed. */
  readonly runs: R[];
}

/** A point of a group's curve: the mean over the group's seeds at `x`, their sample std, and how many. */
export interface BandPoint {
  readonly x: number;
  readonly mean: number;
  readonly std: number;
  readonly n: number;
}

export type Point = readonly [x: number, y: number];

/** Most points a curve or a seed line keeps: more cannot be told apart on a chart a few hundred px wide. */
export const MAX_CURVE_POINTS = 300;

/** The metric names that go first, in this order; any other name follows alphabetically. */
const PREFERRED_ORDER = [
  'eval/success_rate',
  'eval/episodic_return',
  'charts/success_rate',
  'charts/episodic_return',
  'losses/policy_loss',
  'losses/approx_kl',
  'losses/kl_ref',
  'losses/clipfrac',
  'losses/entropy',
  'budget/generated_tokens',
  'charts/SPS',
];

/** Fields on every metrics line that are axes, not curves. */
const AXIS_FIELDS = new Set(['iteration', 'global_step']);

/**
 * Groups runs by (algorithm, envId, label): the seeds of one configuration. Groups come out sorted by those
 * keys; within a group, runs by seed.
 */
export function groupRuns<R extends RunSeries>(runs: readonly R[]): RunGroup<R>[] {
  const groups = new Map<string, RunGroup<R>>();
  for (const run of runs) {
    const label = run.info.label ?? null;
    const key = JSON.stringify([run.info.algorithm, run.info.envId, label]);
    let group = groups.get(key);
    if (!group) {
      const name = [run.info.algorithm, run.info.envId, ...(label ? [label] : [])].join(' · ');
      group = { key, algorithm: run.info.algorithm, envId: run.info.envId, label, name, runs: [] };
      groups.set(key, group);
    }
    group.runs.push(run);
  }
  for (const group of groups.values()) group.runs.sort((a, b) => a.info.seed - b.info.seed);
  return [...groups.values()].sort(
    (a, b) =>
      a.algorithm.localeCompare(b.algorithm) ||
      a.envId.localeCompare(b.envId) ||
      (a.label ?? '').localeCompare(b.label ?? ''),
  );
}

/** Every metric name some run logged, known names first (see PREFERRED_ORDER), the axes left out. */
export function metricNames(runs: readonly RunSeries[]): string[] {
  const names = new Set<string>();
  for (const run of runs) for (const row of run.metrics) for (const name of Object.keys(row.values)) names.add(name);
  for (const axis of AXIS_FIELDS) names.delete(axis);
  const rank = (name: string): number => {
    const index = PREFERRED_ORDER.indexOf(name);
    return index < 0 ? PREFERRED_ORDER.length : index;
  };
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * One run's curve of `metric` against `xAxis`: the lines that have both, sorted by x. When two lines have
 * the same x (a resumed run logs an iteration again) the later line wins.
 */
export function metricSeries(metrics: readonly MetricRow[], metric: string, xAxis: string): Point[] {
  const points: Point[] = [];
  let increasing = true;
  for (const row of metrics) {
    const x = metricValue(row, xAxis);
    const y = metricValue(row, metric);
    if (x === undefined || y === undefined) continue;
    if (points.length > 0 && x <= points[points.length - 1]![0]) increasing = false;
    points.push([x, y]);
  }
  // A run that was never resumed logs x in order: its points are the series as they are (no map of 10^5 entries
  // per metric and run).
  if (increasing) return points;
  const byX = new Map<number, number>();
  for (const [x, y] of points) byX.set(x, y);
  return [...byX].sort(([a], [b]) => a - b);
}

/** y of a sorted series at x by linear interpolation; undefined outside the series' range. */
export function interpolate(series: readonly Point[], x: number): number | undefined {
  if (series.length === 0 || x < series[0]![0] || x > series[series.length - 1]![0]) return undefined;
  let low = 0;
  let high = series.length - 1;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (series[middle]![0] <= x) low = middle;
    else high = middle;
  }
  const [x0, y0] = series[low]!;
  const [x1, y1] = series[high]!;
  if (x === x0 || x1 === x0) return y0;
  if (x === x1) return y1;
  return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/**
 * Mean ± std across seeds at each x. Seeds are logged at their own x values (a token budget is never hit
 * exactly alike), so the grid is the union of their x values (evenly spaced between the extremes when that
 * is more than `maxPoints`) and each seed is read by linear interpolation. The band covers only the range
 * every seed covers, from the latest first x to the earliest last x: where fewer seeds are averaged, the
 * mean jumps to whichever seeds remain — a seed that ends a few hundred tokens after the others would draw
 * the curve's last point as that one seed, a cliff that is not learning. Seed lines still show every seed
 * whole. The std is the sample std (n − 1), 0 for one seed; `n` is the number of seeds. No band when the
 * seeds' ranges do not overlap.
 */
export function aggregateSeeds(seeds: readonly (readonly Point[])[], maxPoints = MAX_CURVE_POINTS): BandPoint[] {
  const ranges = seeds.filter((series) => series.length > 0);
  if (ranges.length === 0) return [];
  const start = Math.max(...ranges.map((series) => series[0]![0]));
  const end = Math.min(...ranges.map((series) => series[series.length - 1]![0]));
  if (start > end) return [];
  const union = new Set<number>();
  for (const series of ranges) for (const [x] of series) if (x >= start && x <= end) union.add(x);
  // A typed array sorts numbers without a comparator call per pair: 10^5 x values per curve are common.
  const xs = [...Float64Array.from(union).sort()];
  const grid =
    xs.length <= maxPoints
      ? xs
      : Array.from({ length: maxPoints }, (_, index) => start + ((end - start) * index) / (maxPoints - 1));
  return grid.map((x) => {
    const values = ranges.map((series) => interpolate(series, x)!);
    return { x, ...meanAndStd(values), n: values.length };
  });
}

/** Past this magnitude the squares in a std (and the sum in a mean, near 1e308) overflow to Infinity. */
const SQUARE_SAFE = 1e150;

/**
 * Mean and sample std of the seeds' values. A diverged loss logs values like 1e200, whose squared deviations are
 * Infinity: the page gets that as `null` (JSON has no Infinity) and the chart's path came out NaN. Such values are
 * scaled to [−1, 1] first; ordinary ones are not touched, so their figures stay exactly as before.
 */
function meanAndStd(values: readonly number[]): { mean: number; std: number } {
  const scale = Math.max(...values.map(Math.abs));
  if (!(scale > SQUARE_SAFE)) return { mean: mean(values), std: sampleStd(values) };
  const scaled = values.map((value) => value / scale);
  return { mean: mean(scaled) * scale, std: sampleStd(scaled) * scale };
}

/**
 * At most `maxPoints` points of a series, keeping both ends and, between them, the lowest and the highest point of
 * each of `(maxPoints − 2) / 2` equal runs of points, in order. An even stride kept one point in ~330 of a 10^5-step
 * run, so a loss spike or a collapse lasting a few hundred steps did not show on the page at all; a run's extremes
 * always do now.
 */
export function thinSeries(series: readonly Point[], maxPoints = MAX_CURVE_POINTS): Point[] {
  if (series.length <= maxPoints) return [...series];
  const buckets = Math.max(1, Math.floor((maxPoints - 2) / 2));
  const interior = series.length - 2;
  const thin: Point[] = [series[0]!];
  for (let bucket = 0; bucket < buckets; bucket++) {
    const from = 1 + Math.floor((bucket * interior) / buckets);
    const to = 1 + Math.floor(((bucket + 1) * interior) / buckets);
    if (from >= to) continue;
    let low = from;
    let high = from;
    for (let index = from + 1; index < to; index++) {
      if (series[index]![1] < series[low]![1]) low = index;
      if (series[index]![1] > series[high]![1]) high = index;
    }
    thin.push(series[Math.min(low, high)]!);
    if (low !== high) thin.push(series[Math.max(low, high)]!);
  }
  thin.push(series[series.length - 1]!);
  return thin;
}

/** One group's curve of one metric. */
export interface GroupCurve {
  /** Index of the group in the list `learningCurves` was given. */
  readonly group: number;
  readonly band: BandPoint[];
  /** One thin line per run of the group that logged the metric. */
  readonly seeds: { readonly seed: number; readonly run: number; readonly points: Point[] }[];
}

export interface MetricCurves {
  readonly metric: string;
  /** Groups with at least one point of the metric. */
  readonly groups: GroupCurve[];
}

/**
 * The learning curves of `metrics` against `xAxis`, per group: the mean ± std band and the seed lines.
 * `runIndex` maps a run to its index in the report's run list (for linking a seed line to its run).
 */
export function learningCurves<R extends RunSeries>(
  groups: readonly RunGroup<R>[],
  metrics: readonly string[],
  xAxis: string,
  runIndex: (run: R) => number = () => -1,
): MetricCurves[] {
  return metrics.map((metric) => ({
    metric,
    groups: groups
      .map((group, index): GroupCurve => {
        const seeds = group.runs
          .map((run) => ({ run, points: metricSeries(run.metrics, metric, xAxis) }))
          .filter(({ points }) => points.length > 0);
        return {
          group: index,
          band: aggregateSeeds(seeds.map(({ points }) => points)),
          seeds: seeds.map(({ run, points }) => ({
            seed: run.info.seed,
            run: runIndex(run),
            points: thinSeries(points),
          })),
        };
      })
      .filter((curve) => curve.seeds.length > 0),
  }));
}
