import { mean, sampleStd } from '@turngym/core';
import type { RunGroup, RunSeries } from './learning-curves';
import { metricValue, type MetricRow } from './metrics-file';

/** Mean and sample std of a run-level number over a group's seeds; `n` seeds had it. */
export interface SeedStatistic {
  readonly mean: number;
  readonly std: number;
  readonly n: number;
}

/** One row of the summary table: a group's final numbers. */
export interface GroupSummary {
  /** Index of the group in the list given. */
  readonly group: number;
  readonly name: string;
  readonly algorithm: string;
  readonly envId: string;
  readonly label: string | null;
  readonly seeds: number;
  /** Final `eval/success_rate`: the last evaluation of each seed. */
  readonly evalSuccess: SeedStatistic | null;
  readonly evalReturn: SeedStatistic | null;
  /** Final `charts/success_rate`: training rollouts of the last iteration. */
  readonly trainSuccess: SeedStatistic | null;
  /** Final `global_step` and `budget/generated_tokens`: how far the seeds got. */
  readonly globalStep: SeedStatistic | null;
  readonly generatedTokens: SeedStatistic | null;
  /** The last iteration logged, the most over the seeds. */
  readonly lastIteration: number | null;
}

/** The value of `metric` on the last line (by iteration) that has it; undefined if none does. */
export function finalValue(metrics: readonly MetricRow[], metric: string): number | undefined {
  let best: MetricRow | undefined;
  for (const row of metrics) {
    if (metricValue(row, metric) !== undefined && (best === undefined || row.iteration >= best.iteration)) best = row;
  }
  return best && metricValue(best, metric);
}

function lastIteration(runs: readonly RunSeries[]): number | null {
  let last: number | null = null;
  for (const run of runs) for (const row of run.metrics) last = Math.max(last ?? row.iteration, row.iteration);
  return last;
}

function statistic(runs: readonly RunSeries[], metric: string): SeedStatistic | null {
  const values = runs.map((run) => finalValue(run.metrics, metric)).filter((value) => value !== undefined);
  return values.length === 0 ? null : { mean: mean(values), std: sampleStd(values), n: values.length };
}

/**
 * The summary table: per group, the final numbers over its seeds. Rows are ranked by final evaluation
 * success (best first); groups without an evaluation follow in their own order.
 */
export function summarizeGroups(groups: readonly RunGroup[]): GroupSummary[] {
  const rows = groups.map((group, index): GroupSummary => ({
    group: index,
    name: group.name,
    algorithm: group.algorithm,
    envId: group.envId,
    label: group.label,
    seeds: group.runs.length,
    evalSuccess: statistic(group.runs, 'eval/success_rate'),
    evalReturn: statistic(group.runs, 'eval/episodic_return'),
    trainSuccess: statistic(group.runs, 'charts/success_rate'),
    globalStep: statistic(group.runs, 'global_step'),
    generatedTokens: statistic(group.runs, 'budget/generated_tokens'),
    lastIteration: lastIteration(group.runs),
  }));
  return rows.sort(
    (a, b) =>
      (b.evalSuccess?.mean ?? Number.NEGATIVE_INFINITY) - (a.evalSuccess?.mean ?? Number.NEGATIVE_INFINITY) ||
      a.group - b.group,
  );
}
