import type { Interval, RunSummary } from '@turngym/core';

function fixed(value: number, digits: number): string {
  if (Number.isNaN(value)) return 'n/a';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '-∞';
  return value.toFixed(digits);
}

/** `0.800 [0.490, 0.943]`; an interval over one episode is unbounded and says so. */
export function formatEstimate(value: number, interval: Interval, digits = 3): string {
  return `${fixed(value, digits)} [${fixed(interval.low, digits)}, ${fixed(interval.high, digits)}]`;
}

/**
 * The human-readable summary of `turngym run`. `errored` episodes (an LLM call or the env failed) are
 * counted apart: they are in no rate.
 */
export function formatRunSummary(summary: RunSummary, errored: number): string {
  const rows: [string, string][] = [
    ['episodes', String(summary.episodes)],
    ['errored', errored > 0 ? `${errored}  (not scored; recorded as incomplete, with the error)` : '0'],
    [
      'success rate',
      `${formatEstimate(summary.successRate, summary.successInterval)}  (${summary.successes}/${summary.episodes}, 95% Wilson)`,
    ],
    ['mean reward', `${formatEstimate(summary.meanReward, summary.rewardInterval)}  (95%)`],
    ['mean turns', fixed(summary.meanTurns, 2)],
    ['mean tool calls', fixed(summary.meanToolCalls, 2)],
  ];
  if (summary.meanLlmTokens > 0) rows.push(['mean env LLM tokens', fixed(summary.meanLlmTokens, 1)]);
  rows.push(['wall time', `${(summary.wallMs / 1000).toFixed(2)} s`]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}
