import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildLeaderboard, type SuiteBoard } from './leaderboard-model';
import { listSuites } from './load-suite';
import { renderHtml } from './render-html';
import { renderMarkdown } from './render-markdown';
import { loadViewerRun, renderViewerData, renderViewerPage, viewerDataFile, viewerRows } from './render-viewer';
import { readLeaderboardEntries } from './submission';
import type { LoadedSuite } from './suite';

export interface WriteLeaderboardOptions {
  /** Result files, submission files, or directories of them. */
  inputs: readonly string[];
  /** Where the pages go: `leaderboard.md`, `index.html`, `viewer.html`, `viewer-data/`. */
  outDir: string;
  title?: string;
  /** Suites to check results against and to order tables by (default: the built-in ones). */
  suites?: readonly LoadedSuite[];
  generatedAt?: Date;
  /** Write the rollout viewer and link to it (default true); off for a page published without its records. */
  viewer?: boolean;
}

export interface WrittenLeaderboard {
  boards: SuiteBoard[];
  markdown: string;
  files: { markdown: string; html: string; viewer: string | null; viewerData: string[] };
}

/**
 * Reads and validates every result and submission, ranks them per suite, and writes the markdown table, the
 * static HTML page and the rollout viewer (with one data file per run whose records are at hand).
 */
export function writeLeaderboard(options: WriteLeaderboardOptions): WrittenLeaderboard {
  const suites = options.suites ?? listSuites();
  const entries = readLeaderboardEntries(options.inputs, suites);
  const withViewer = options.viewer !== false;
  const boards = buildLeaderboard(entries, suites);
  if (!withViewer) for (const board of boards) for (const row of board.rows) row.recordsFile = null;
  const outDir = resolve(options.outDir);
  const generatedAt = options.generatedAt ?? new Date();
  mkdirSync(outDir, { recursive: true });

  const dataDir = join(outDir, 'viewer-data');
  // Data of runs no longer on the board must not linger.
  if (existsSync(dataDir))
    for (const file of readdirSync(dataDir)) if (file.endsWith('.js')) rmSync(join(dataDir, file));
  const viewerData: string[] = [];
  const runs: { id: string; label: string; suiteId: string; file: string }[] = [];
  for (const row of withViewer ? viewerRows(boards) : []) {
    const run = loadViewerRun(row);
    if (!run) continue;
    const file = viewerDataFile(row.id);
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(outDir, file), renderViewerData(run));
    viewerData.push(join(outDir, file));
    runs.push({ id: row.id, label: row.label, suiteId: row.result.suite.id, file });
  }

  const markdown = renderMarkdown(boards, { ...(options.title ? { title: options.title } : {}), generatedAt });
  const files = {
    markdown: join(outDir, 'leaderboard.md'),
    html: join(outDir, 'index.html'),
    viewer: withViewer ? join(outDir, 'viewer.html') : null,
    viewerData,
  };
  writeFileSync(files.markdown, markdown);
  writeFileSync(
    files.html,
    renderHtml(boards, {
      ...(options.title ? { title: options.title } : {}),
      generatedAt,
      markdown: 'leaderboard.md',
      viewer: withViewer,
    }),
  );
  if (files.viewer) writeFileSync(files.viewer, renderViewerPage(runs, { leaderboard: 'index.html' }));
  return { boards, markdown, files };
}
