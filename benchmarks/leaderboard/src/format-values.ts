/** How numbers look on the leaderboard (markdown and HTML alike). */

/** A rate in [0, 1] as a percentage: `85%`. */
export function formatPercent(value: number): string {
  return `${(value * 100).toFixed(0)}%`;
}

/** An interval of rates: `75–95`. */
export function formatPercentInterval(low: number, high: number): string {
  return `${(low * 100).toFixed(0)}–${(high * 100).toFixed(0)}`;
}

/** A reward or another signed mean: two decimals, a real minus sign. */
export function formatNumber(value: number, digits = 2): string {
  const text = value.toFixed(digits);
  return text.startsWith('-') && Number(text) !== 0 ? `−${text.slice(1)}` : text.replace(/^-/, '');
}

/** Token counts: `950`, `12.3k`, `4.1M`. */
export function formatCount(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(0);
}

/** Milliseconds as `850 ms`, `12.4 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms.toFixed(0)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

/** `turngym/math-thought-calc-v1` → `math-thought-calc-v1`: column headers stay narrow. */
export function shortEnvId(envId: string): string {
  return envId.replace(/^turngym\//, '');
}
