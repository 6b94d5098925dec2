import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertOwnOutput } from '@turngym/core';
import { GENERATOR_META } from './internal/html';
import { ForeignOutputError } from './leaderboard-errors';
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
 * What each kind of file the leaderboard writes contains, so an existing file can be told to be its own. Pages
 * written before the generator tag carry other signs of it (the page's own stylesheet, the viewer's data block),
 * so that a board made by an earlier version is rewritten, not refused.
 */
const MARKERS: readonly { matches: (name: string) => boolean; markers: readonly string[] }[] = [
  { matches: (name) => name === 'leaderboard.md', markers: ['by `turngym leaderboard`'] },
  { matches: (name) => name === 'index.html', markers: [GENERATOR_META, '--bar-fill: #3d8fd1;'] },
  {
    matches: (name) => name === 'viewer.html',
    markers: [GENERATOR_META, '<script type="application/json" id="runs">'],
  },
  { matches: (name) => name.startsWith('viewer-data/') && name.endsWith('.js'), markers: ['window.TURNGYM_RUNS'] },
];

/** How a refused file in `--out` is worded. */
const LEADERBOARD_OWNER = { writer: 'turngym leaderboard', instead: 'another --out directory' } as const;

/**
 * A file the leaderboard would replace that it did not write is the user's: refused, before any write. The
 * first 64 KiB are read: every marker sits in a page's head or a data file's first line, and a viewer data
 * file holds a run's whole records (megabytes), which a check need not read.
 */
function assertOwnFiles(outDir: string, names: readonly string[]): void {
  for (const name of names) {
    const markers = MARKERS.find((candidate) => candidate.matches(name))?.markers ?? [];
    assertOwnOutput(join(outDir, name), markers, LEADERBOARD_OWNER, 64 * 1024);
  }
}

/**
 * Writes a page whole: to a temporary file of this process, renamed over the old one. Two benches sharing an
 * `--out` re-render it as each ends; written in place, one could read the other's page while it was still empty
 * (and refuse it as not the leaderboard's), and a browser could load half a page.
 */
function replaceWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
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
  const dataDir = join(outDir, 'viewer-data');
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) throw new ForeignOutputError(dataDir, LEADERBOARD_OWNER);
  const staleData = existsSync(dataDir)
    ? readdirSync(dataDir)
        .filter((file) => file.endsWith('.js'))
        .map((file) => `viewer-data/${file}`)
    : [];
  assertOwnFiles(outDir, ['leaderboard.md', 'index.html', ...(withViewer ? ['viewer.html'] : []), ...staleData]);
  // Every run's records are read before anything is removed or written: a malformed records file fails the
  // build with the pages of the last one still whole, their viewer data included.
  const loaded = (withViewer ? viewerRows(boards) : []).flatMap((row) => {
    const run = loadViewerRun(row);
    return run ? [{ row, run }] : [];
  });
  mkdirSync(outDir, { recursive: true });

  // Data of runs no longer on the board must not linger.
  // `force`: another bench re-rendering the same --out may have removed it already.
  for (const file of staleData) rmSync(join(outDir, file), { force: true });
  const viewerData: string[] = [];
  const runs: { id: string; label: string; suiteId: string; file: string }[] = [];
  for (const { row, run } of loaded) {
    const file = viewerDataFile(row.id);
    mkdirSync(dataDir, { recursive: true });
    replaceWhole(join(outDir, file), renderViewerData(run));
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
  replaceWhole(files.markdown, markdown);
  replaceWhole(
    files.html,
    renderHtml(boards, {
      ...(options.title ? { title: options.title } : {}),
      generatedAt,
      markdown: 'leaderboard.md',
      viewer: withViewer,
    }),
  );
  if (files.viewer) replaceWhole(files.viewer, renderViewerPage(runs, { leaderboard: 'index.html' }));
  return { boards, markdown, files };
}
