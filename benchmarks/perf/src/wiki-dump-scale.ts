import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The wiki navigator at Wikipedia's scale, on dumps generated from the synthetic encyclopedia in Wikipedia's
 * format (real dumps cannot be downloaded here): a ~0.9 GB `pages-meta-history`-style dump of 300,000
 * articles (2 revisions each, plus redirects, disambiguation pages and other namespaces; 58 MB as .bz2) and
 * one a tenth of its size. Every measurement runs in a fresh Node process, so its peak RSS is its own.
 *
 * 1. Conversion (`.bz2` → JSONL): pages/s and peak RSS, on both dumps (RSS must not grow with the dump), with
 *    the system's bzip2 and with unbzip2-stream in process.
 * 2. The on-disk store (SQLite + FTS5) built from the large corpus: build time, size; env start-up in a
 *    fresh process; search latency; memory of 4 envs after 200 episodes, on the small and the large store.
 * 3. The alternative, measured: the same corpus read into memory with minisearch (the default path).
 * Generated files stay in `directory` (default /tmp/turngym-wiki-bench) and are reused by later runs.
 */
export interface WikiDumpScaleOptions {
  readonly directory: string;
  /** Dumps to convert, by articles (2 revisions each); the smallest is converted with both bzip2 decoders. */
  readonly convert?: readonly number[];
  /** Stores to build and serve, by articles: from the converted dump's JSONL when there is one, else from
   * the synthetic worlds written straight to JSONL (same articles, without the wikitext round trip). */
  readonly stores?: readonly number[];
}

const ENV_PACKAGE = require.resolve('@turngym/env-wiki-navigator');
const CLI = join(ENV_PACKAGE, '..', 'convert-cli.js');

/** Runs `body` (an async function's body, `w` = the env package) in a fresh Node; returns its JSON result. */
function inChild<T>(body: string, timeoutMs = 3_600_000): T {
  const script = `const w = require(${JSON.stringify(ENV_PACKAGE)});
(async () => { ${body} })().then((result) => {
  process.stdout.write(JSON.stringify({ ...result, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}, (error) => { console.error(error); process.exit(1); });`;
  const output = execFileSync(process.execPath, ['--max-old-space-size=8192', '--expose-gc', '-e', script], {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 1 << 24,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(output) as T;
}

function ensureDump(path: string, articles: number): void {
  if (existsSync(path)) return;
  process.stderr.write(`generating ${path}…\n`);
  execFileSync(process.execPath, [CLI, '--synthetic-dump', path, '--articles', String(articles), '--revisions', '2'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

interface Conversion {
  pages: number;
  articles: number;
  seconds: number;
  xmlMb: number;
  peakRssMb: number;
}

function convert(dump: string, output: string, bzip2: 'process' | 'js'): Conversion {
  return inChild<Conversion>(`
    const started = performance.now();
    const { input } = w.openDumpFile(${JSON.stringify(dump)}, ${JSON.stringify(bzip2)});
    let bytes = 0;
    input.on('data', (chunk) => { bytes += chunk.length; });
    const out = require('node:fs').createWriteStream(${JSON.stringify(output)});
    const stats = await w.convertMediaWikiDump(input, out, {});
    out.end();
    await require('node:events').once(out, 'close');
    return { pages: stats.articles + stats.redirects + stats.skipped, articles: stats.articles,
      seconds: (performance.now() - started) / 1000, xmlMb: bytes / 1e6 };
  `);
}

interface Usage {
  startupMs: number;
  firstSearchMs: number;
  openMs: number;
  searchP50Ms: number;
  searchP99Ms: number;
  rssAfterStartMb: number;
  rssAfterEpisodesMb: number;
  heapAfterEpisodesMb: number;
  peakRssMb: number;
}

/** Start-up, search latency and memory of envs on a corpus (a store, or a JSONL file for the in-memory path). */
function usage(corpus: string, episodes: number): Usage {
  return inChild<Usage>(`
    const t0 = performance.now();
    const corpus = w.loadCorpus({ corpus: ${JSON.stringify(corpus)}, corpusSeed: 1, articles: 2000 });
    const openMs = performance.now() - t0;
    const env = new w.WikiNavigatorEnv({ corpus: ${JSON.stringify(corpus)} });
    await env.reset({ seed: 1 });
    const startupMs = performance.now() - t0;
    const rssAfterStartMb = process.memoryUsage().rss / 1e6;
    // Queries: words of task questions (what an agent searches), drawn by seed.
    const tasks = env.taskCount();
    const queries = [];
    for (let i = 0; i < 300; i++) {
      await env.reset({ seed: i });
      const task = env.currentTask;
      const words = task.question.replace(/[?:,"]/g, '').split(' ').filter((word) => word.length > 3);
      queries.push(words.slice(-3).join(' '));
    }
    let started = performance.now();
    corpus.search(queries[0], 10); // the in-memory index is built on the first search
    const firstSearchMs = performance.now() - started;
    for (const query of queries.slice(0, 20)) corpus.search(query, 10); // warm caches
    const times = [];
    for (let round = 0; round < 3; round++)
      for (const query of queries) {
        started = performance.now();
        corpus.search(query, 10);
        times.push(performance.now() - started);
      }
    times.sort((a, b) => a - b);
    const envs = [env, ...Array.from({ length: 3 }, () => new w.WikiNavigatorEnv({ corpus: ${JSON.stringify(corpus)} }))];
    const { runEpisode } = require(require.resolve('@turngym/core', { paths: [${JSON.stringify(ENV_PACKAGE)}] }));
    for (let i = 0; i < ${episodes}; i++) {
      const e = envs[i % envs.length];
      await runEpisode(e, i % 2 ? new w.RandomNavigator(i) : new w.WikiExpert(e), i);
    }
    global.gc?.();
    const result = { startupMs, openMs, firstSearchMs, searchP50Ms: times[Math.floor(times.length / 2)], searchP99Ms: times[Math.floor(times.length * 0.99)],
      rssAfterStartMb, rssAfterEpisodesMb: process.memoryUsage().rss / 1e6, heapAfterEpisodesMb: process.memoryUsage().heapUsed / 1e6, tasks };
    for (const e of envs) await e.close();
    return result;
  `);
}

interface StoreBuild {
  seconds: number;
  indexSeconds: number;
  taskSeconds: number;
  articles: number;
  tasks: number;
  peakRssMb: number;
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The synthetic worlds a dump of `articles` holds, written straight to JSONL (no wikitext round trip). */
function ensureWorldsJsonl(path: string, articles: number): void {
  if (existsSync(path)) return;
  process.stderr.write(`writing ${path}…\n`);
  inChild(`
    const out = require('node:fs').createWriteStream(${JSON.stringify(path)});
    const { mixSeed } = require(require.resolve('@turngym/core', { paths: [${JSON.stringify(ENV_PACKAGE)}] }));
    for (let world = 0, left = ${articles}; left > 0; world++) {
      const size = Math.min(20000, left);
      left -= size;
      const rename = (title) => world === 0 ? title : title + ' (' + world + ')';
      const relink = (text) => world === 0 ? text : text.replace(/\\[\\[([^\\]|[]+?)(?:\\|([^\\][]*?))?\\]\\]/g, (_, t, l) => '[[' + rename(t) + '|' + (l ?? t) + ']]');
      for (const a of w.generateSyntheticArticles({ seed: mixSeed(1, world), articles: Math.max(50, size) }).slice(0, size)) {
        const line = JSON.stringify({ title: rename(a.title), type: a.type, lead: relink(a.lead),
          infobox: a.infobox.map((f) => ({ field: f.field, value: relink(f.value) })),
          sections: a.sections.map((x) => ({ title: x.title, text: relink(x.text) })) });
        if (!out.write(line + '\\n')) await require('node:events').once(out, 'drain');
      }
    }
    out.end();
    await require('node:events').once(out, 'close');
    return {};
  `);
}

export async function wikiDumpScale(options: WikiDumpScaleOptions): Promise<string[]> {
  const lines: string[] = [];
  // Each row also goes to stderr when measured: the large runs take many minutes.
  const push = (...rows: string[]): void => {
    for (const row of rows) process.stderr.write(`${row}\n`);
    lines.push(...rows);
  };
  mkdirSync(options.directory, { recursive: true });
  const path = (name: string): string => join(options.directory, name);
  const sizes = [...(options.convert ?? [30_000, 300_000])].sort((a, b) => a - b);
  const small = sizes[0];
  const dumps = sizes.map((articles) => ({ articles, dump: path(`dump-${articles}x2.xml.bz2`) }));
  for (const { dump, articles } of dumps) ensureDump(dump, articles);

  push(
    '### Conversion (`.bz2` dump → JSONL corpus), each in a fresh process',
    '',
    '| dump | XML | .bz2 | decoder | pages | pages/s | XML MB/s | peak RSS |',
    '|---|---:|---:|---|---:|---:|---:|---:|',
  );
  for (const { articles, dump } of dumps) {
    const decoders = articles === small ? (['process', 'js'] as const) : (['process'] as const);
    for (const decoder of decoders) {
      process.stderr.write(`converting ${dump} (${decoder})…\n`);
      const result = convert(dump, path(`corpus-${articles}.jsonl`), decoder);
      push(
        `| ${fmt(articles)} articles × 2 revisions | ${fmt(result.xmlMb)} MB | ${fmt(statSync(dump).size / 1e6)} MB | ${decoder === 'process' ? 'bzip2 (child process)' : 'unbzip2-stream (in process)'} | ${fmt(result.pages)} | ${fmt(result.pages / result.seconds)} | ${fmt(result.xmlMb / result.seconds, 1)} | ${fmt(result.peakRssMb)} MB |`,
      );
    }
  }

  push(
    '',
    '### On-disk store (SQLite + FTS5) vs in memory (minisearch), each in a fresh process',
    '',
    '| corpus | build | size | start-up (open + construct + first reset) | search p50 / p99 | RSS after start | RSS after 200 episodes (4 envs) | peak RSS |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const articles of options.stores ?? [30_000, 300_000]) {
    let jsonl = path(`corpus-${articles}.jsonl`);
    if (!existsSync(jsonl)) {
      jsonl = path(`worlds-${articles}.jsonl`);
      ensureWorldsJsonl(jsonl, articles);
    }
    const store = path(`corpus-${articles}.sqlite`);
    process.stderr.write(`building ${store}…\n`);
    const built = inChild<StoreBuild>(`
      const { rmSync } = require('node:fs');
      rmSync(${JSON.stringify(store)}, { force: true });
      return w.buildCorpusStore(${JSON.stringify(jsonl)}, ${JSON.stringify(store)});
    `);
    const onDisk = usage(store, 200);
    push(
      `| store, ${fmt(built.articles)} articles${jsonl.includes('worlds-') ? ' (worlds as JSONL)' : ' (converted dump)'} (${fmt(built.tasks)} tasks) | ${fmt(built.seconds)} s (index ${fmt(built.indexSeconds)} s, tasks ${fmt(built.taskSeconds)} s; peak RSS ${fmt(built.peakRssMb)} MB) | ${fmt(statSync(store).size / 1e6)} MB | ${fmt(onDisk.startupMs)} ms (open ${fmt(onDisk.openMs, 1)} ms; first search ${fmt(onDisk.firstSearchMs)} ms) | ${fmt(onDisk.searchP50Ms, 2)} / ${fmt(onDisk.searchP99Ms, 2)} ms | ${fmt(onDisk.rssAfterStartMb)} MB | ${fmt(onDisk.rssAfterEpisodesMb)} MB (heap ${fmt(onDisk.heapAfterEpisodesMb)} MB) | ${fmt(onDisk.peakRssMb)} MB |`,
    );
    process.stderr.write(`in memory: ${jsonl}…\n`);
    const inMemory = usage(jsonl, 200);
    push(
      `| in memory (JSONL + minisearch), ${fmt(built.articles)} articles | — (tasks and index at start-up) | ${fmt(statSync(jsonl).size / 1e6)} MB (JSONL) | ${fmt(inMemory.startupMs)} ms (read ${fmt(inMemory.openMs)} ms; first search, building the index, ${fmt(inMemory.firstSearchMs)} ms) | ${fmt(inMemory.searchP50Ms, 2)} / ${fmt(inMemory.searchP99Ms, 2)} ms | ${fmt(inMemory.rssAfterStartMb)} MB | ${fmt(inMemory.rssAfterEpisodesMb)} MB (heap ${fmt(inMemory.heapAfterEpisodesMb)} MB) | ${fmt(inMemory.peakRssMb)} MB |`,
    );
  }
  return lines;
}
