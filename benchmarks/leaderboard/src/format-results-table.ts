import type { BenchResult, MeanInterval } from './bench-result';
import { formatDuration, formatPercent, formatPercentInterval } from './format-values';

function rate(value: MeanInterval | null | undefined): string {
  return value ? `${formatPercent(value.mean)} [${formatPercentInterval(value.low, value.high)}]` : '—';
}

/**
 * Results of one suite as a terminal table, envs down and runs across (a row per env fits a terminal where
 * a column per env would not): success rate with its 95% bootstrap interval, errored counts, the overall
 * rate last.
 */
export function formatResultsTable(results: readonly BenchResult[]): string {
  const envIds: string[] = [];
  for (const result of results) for (const env of result.envs) if (!envIds.includes(env.envId)) envIds.push(env.envId);
  const header = ['ENV', ...results.map((result) => result.label)];
  const rows = envIds.map((envId) => [
    envId,
    ...results.map((result) => {
      const env = result.envs.find((candidate) => candidate.envId === envId);
      if (!env) return 'not run';
      const errored = env.errored > 0 ? ` (${env.errored} errored)` : '';
      return `${rate(env.metrics?.success)}${errored}`;
    }),
  ]);
  rows.push([
    'mean over envs',
    ...results.map((result) => {
      // An env whose every episode errored has no rate: the mean is over the others, and says so.
      const scored = result.envs.filter((env) => env.scored > 0).length;
      const over = scored < result.envs.length ? ` (${scored} of ${result.envs.length} envs)` : '';
      return `${rate(result.overall.success)}${over}`;
    }),
  ]);
  rows.push([
    'episodes (errored)',
    ...results.map((result) => `${result.overall.episodes} (${result.overall.errored})`),
  ]);
  rows.push(['wall time', ...results.map((result) => formatDuration(result.overall.wallMs.elapsed))]);
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const rule = '-'.repeat(widths.reduce((sum, width) => sum + width, 0) + 2 * (widths.length - 1));
  const summaryStart = 1 + envIds.length;
  return all
    .map((row, index) => {
      const line = row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd();
      return index === summaryStart ? `${rule}\n${line}` : line;
    })
    .join('\n');
}
