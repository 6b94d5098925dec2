#!/usr/bin/env node
/**
 * The full pool soak (the README's figure): `node dist/soak/run-pool-soak.js [--episodes 1000] [--pool 4]
 * [--concurrency 4] [--corpus <corpus.jsonl | store.sqlite>] [--executable /usr/bin/chromium]
 * [--out report.json]`. Run with `node --expose-gc` for steadier heap samples. `--out` writes the report with
 * every sample (memory of Node and Chromium, Chromium processes and open pages over time) as JSON.
 */
import { writeFileSync } from 'node:fs';
import { runPoolSoak } from './pool-soak';

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

async function main(): Promise<void> {
  const episodes = flag('episodes', 1000);
  const text = (name: string): string | undefined => {
    const index = process.argv.indexOf(`--${name}`);
    return index >= 0 ? process.argv[index + 1] : undefined;
  };
  const corpus = text('corpus');
  const executablePath = text('executable');
  const out = text('out');
  const report = await runPoolSoak({
    ...(corpus ? { corpus } : {}),
    ...(executablePath ? { executablePath } : {}),
    episodes,
    poolSize: flag('pool', 4),
    concurrency: flag('concurrency', 4),
    sampleEvery: Math.max(1, Math.round(episodes / 20)),
    onSample: (entry) =>
      process.stderr.write(
        `  ${entry.episodes} episodes, ${entry.seconds.toFixed(0)} s: browser ${entry.browserMb.toFixed(0)} MB PSS (${entry.browserRssMb.toFixed(0)} MB RSS, ${entry.browserProcesses} processes, ${entry.openPages} pages), node heap ${entry.nodeHeapMb.toFixed(0)} MB, node RSS ${entry.nodeRssMb.toFixed(0)} MB\n`,
      ),
  });
  const fmt = (n: number): string => n.toFixed(0);
  const lines = [
    `| episodes | steps | errors | successes | launches | pages created / recycled | max open pages | max Chromium processes | browser MB (warm → max later) | browser growth MB | node heap growth MB | node RSS MB (warm → growth) | leftover processes | wall s |`,
    `|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
    `| ${report.episodes} | ${report.steps} | ${report.errors} | ${report.successes} | ${report.launches} | ${report.pagesCreated} / ${report.pagesRecycled} | ${report.maxOpenPages} | ${report.maxBrowserProcesses} | ${fmt(report.samples[1]?.browserMb ?? 0)} → ${fmt(Math.max(...report.samples.slice(2).map((entry) => entry.browserMb)))} | ${fmt(report.browserGrowthMb)} | ${fmt(report.nodeHeapGrowthMb)} | ${fmt(report.samples[1]?.nodeRssMb ?? 0)} → +${fmt(report.nodeRssGrowthMb)} | ${report.leftoverProcesses} | ${(report.wallMs / 1000).toFixed(0)} |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (out)
    writeFileSync(out, `${JSON.stringify({ corpus: corpus ?? 'synthetic', executablePath, ...report }, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
