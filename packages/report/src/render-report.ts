import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { assertOwnOutput, contentSecurityPolicy, InvalidOptionsError, writeFileAtomically } from '@turngym/core';
import { escapeHtml, scriptJson } from './internal/html';
import { reportClient } from './internal/report-client';
import { REPORT_CSS } from './internal/report-style';
import { groupRuns, learningCurves, metricNames } from './learning-curves';
import { metricValue, type XAxis } from './metrics-file';
import type { ReportData, ReportRollouts } from './report-data';
import {
  DEFAULT_REPORT_TITLE,
  DEFAULT_ROLLOUT_GROUPS,
  DEFAULT_ROLLOUT_ITERATIONS,
  validateReportOptions,
  type ReportOptions,
} from './report-options';
import { buildPromptGroups } from './rollout-tree';
import { findRunDirectories, readRun, type TrainingRun } from './run-directory';
import { summarizeGroups } from './summary-table';

/** Group colours: distinct on white and for the common colour-vision deficiencies (Tableau 10). */
const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];

function chosenMetrics(runs: readonly TrainingRun[], requested: readonly string[] | undefined): string[] {
  const logged = metricNames(runs);
  if (!requested) return logged;
  const unknown = requested.filter((metric) => !logged.includes(metric));
  if (unknown.length > 0) {
    const shown = logged.length > 30 ? [...logged.slice(0, 30), '…'] : logged;
    throw new InvalidOptionsError('report', [
      `metrics: no run logged ${unknown.map((metric) => `"${metric}"`).join(', ')}; logged: ${shown.join(', ') || 'nothing'}`,
    ]);
  }
  return [...new Set(requested)];
}

function rolloutsOf(run: TrainingRun, index: number): ReportRollouts | null {
  if (!run.rollouts || run.rollouts.iterations.size === 0) return null;
  let low = Infinity;
  let high = -Infinity;
  const iterations = [...run.rollouts.iterations].map(([iteration, records]) => {
    for (const record of records) {
      low = Math.min(low, record.reward);
      high = Math.max(high, record.reward);
    }
    return {
      iteration,
      hiddenGroups: run.rollouts!.hiddenGroups.get(iteration) ?? 0,
      groups: buildPromptGroups(records),
    };
  });
  return { run: index, rewardRange: [low, high], iterations };
}

/** The page's data from runs already read (see `readRuns`): groups, curves, the table and the rollouts. */
export function buildReportData(
  runs: readonly TrainingRun[],
  options: { title?: string; metrics?: readonly string[]; xAxis?: XAxis } = {},
): ReportData {
  const xAxis = options.xAxis ?? 'global_step';
  // Runs that have not logged a line yet draw no curves; runs that logged lines but never this x are a mistake.
  const logged = runs.some((run) => run.metrics.length > 0);
  if (logged && !runs.some((run) => run.metrics.some((row) => metricValue(row, xAxis) !== undefined))) {
    throw new InvalidOptionsError('report', [`xAxis: no run logged "${xAxis}" in its metrics.jsonl`]);
  }
  const groups = groupRuns(runs);
  const runIndex = new Map(groups.flatMap((group) => group.runs).map((run, index) => [run, index]));
  const ordered = groups.flatMap((group) => group.runs);
  return {
    title: options.title ?? DEFAULT_REPORT_TITLE,
    xAxis,
    groups: groups.map((group, index) => ({
      name: group.name,
      algorithm: group.algorithm,
      envId: group.envId,
      label: group.label,
      color: PALETTE[index % PALETTE.length]!,
      runs: group.runs.map((run) => runIndex.get(run)!),
    })),
    runs: groups.flatMap((group, index) =>
      group.runs.map((run) => ({
        name: run.name,
        algorithm: run.info.algorithm,
        envId: run.info.envId,
        seed: run.info.seed,
        label: run.info.label ?? null,
        startedAt: run.info.startedAt,
        group: index,
      })),
    ),
    summary: summarizeGroups(groups),
    charts: learningCurves(groups, chosenMetrics(runs, options.metrics), xAxis, (run) => runIndex.get(run)!),
    rollouts: ordered.map(rolloutsOf).filter((rollouts): rollouts is ReportRollouts => rollouts !== null),
    calibrations: ordered.flatMap((run, index) => (run.calibration ? [{ run: index, ...run.calibration }] : [])),
  };
}

/** Finds and reads the runs the options name. */
export async function readRuns(options: ReportOptions): Promise<TrainingRun[]> {
  const found = await findRunDirectories(options.runs);
  const runs: TrainingRun[] = [];
  for (const run of found) {
    runs.push(
      await readRun(run, {
        rolloutIterations: options.rolloutIterations ?? DEFAULT_ROLLOUT_ITERATIONS,
        rolloutGroups: options.rolloutGroups ?? DEFAULT_ROLLOUT_GROUPS,
      }),
    );
  }
  return runs;
}

/** In every page the report writes: how `writeReport` tells its own page from a user's file. */
const GENERATOR_META = '<meta name="generator" content="turngym report">';
/**
 * Pages written before the generator tag are told by their policy line, which no other page has (both sit in
 * the page's first few hundred bytes).
 */
const OWN_PAGE_MARKERS = [
  GENERATOR_META,
  `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
];

/** How a refused `--out` is worded. */
const REPORT_OWNER = { writer: 'turngym report', instead: 'another --out file', sayExists: true } as const;

/** The HTML page for report data: one file, its CSS, data and script inline (it loads nothing). */
export function renderReportHtml(data: ReportData): string {
  const script = `(${reportClient.toString()})(JSON.parse(document.getElementById('report-data').textContent));`;
  // The script is this package's own code, but a `</script` in it would still end the element early.
  if (/<\/script/i.test(script)) throw new Error('the report script contains "</script"');
  // Only this script may run (by its hash): text from a run is never markup, and should a later change let some
  // through, an `onerror=` in it stays inert.
  const meta = `${data.runs.length} run${data.runs.length === 1 ? '' : 's'} in ${data.groups.length} group${
    data.groups.length === 1 ? '' : 's'
  } · x axis: ${data.xAxis} · curves: mean ± std over seeds, thin lines: single seeds`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${GENERATOR_META}
${contentSecurityPolicy([script])}
<title>${escapeHtml(data.title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header class="page-header"><h1>${escapeHtml(data.title)}</h1><p class="meta">${escapeHtml(meta)}</p></header>
<main>
<section><div id="legend" class="legend"></div></section>
<section><h2>Summary</h2><div id="summary"></div></section>
<section><h2>Learning curves</h2><div id="charts" class="charts"></div></section>
${
  data.calibrations.length > 0
    ? '<section><h2>Critic calibration</h2><div id="calibration" class="charts"></div></section>\n'
    : ''
}<section><h2>Rollouts</h2><div id="viewer"></div></section>
<noscript><p>This report draws its charts and rollout trees with JavaScript.</p></noscript>
</main>
<div id="tooltip" class="tooltip" hidden></div>
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>${script}</script>
</body>
</html>
`;
}

function dataFor(options: ReportOptions, runs: readonly TrainingRun[]): ReportData {
  return buildReportData(runs, {
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.xAxis !== undefined ? { xAxis: options.xAxis } : {}),
  });
}

/**
 * Renders the training report of the runs named in `options` as one self-contained HTML page: learning
 * curves per metric (mean ± std over seeds, a thin line per seed), a legend, a summary table, a
 * calibration plot per run with a critic-calibration.json, and a rollout viewer (tree runs drawn as trees). Throws `InvalidRunError` naming the file (and line) for a run
 * it cannot read, `InvalidOptionsError` for bad options.
 */
export async function renderReport(options: ReportOptions): Promise<string> {
  const valid = validateReportOptions(options);
  return renderReportHtml(dataFor(valid, await readRuns(valid)));
}

/** What `writeReport` wrote. */
export interface WrittenReport {
  readonly file: string;
  readonly bytes: number;
  readonly runs: number;
  readonly groups: number;
  readonly metrics: number;
  /** Runs with rollouts in the viewer. */
  readonly rolloutRuns: number;
}

/**
 * Refuses an existing `outFile` that is not a report: `--out` pointed at a run's metrics.jsonl or a README by
 * mistake must not cost the user that file. Only the file's first bytes are read (it may be a huge JSONL).
 */
function assertOwnFile(outFile: string): void {
  assertOwnOutput(outFile, OWN_PAGE_MARKERS, REPORT_OWNER, 4096);
}

/**
 * Renders the report (see `renderReport`) and writes it to `outFile`, creating its directory: the new page
 * replaces the old one at once (written beside it, synced, renamed over it). An existing file there is replaced
 * only when it is a report; anything else is refused with `ForeignOutputError`, before the runs are read.
 */
export async function writeReport(outFile: string, options: ReportOptions): Promise<WrittenReport> {
  const valid = validateReportOptions(options);
  assertOwnFile(outFile);
  const data = dataFor(valid, await readRuns(valid));
  const html = renderReportHtml(data);
  await mkdir(dirname(outFile), { recursive: true });
  await writeFileAtomically(outFile, html);
  return {
    file: outFile,
    bytes: Buffer.byteLength(html),
    runs: data.runs.length,
    groups: data.groups.length,
    metrics: data.charts.length,
    rolloutRuns: data.rollouts.length,
  };
}
