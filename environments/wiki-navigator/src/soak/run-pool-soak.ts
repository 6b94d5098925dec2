#!/usr/bin/env node
/**
 * The full pool soak (the README's figure): `node dist/soak/run-pool-soak.js [--episodes 1000] [--pool 4]
 * [--concurrency 4] [--corpus <corpus.jsonl | store.sqlite>]`. Run with `node --expose-gc` for steadier heap
 * samples.
 */
import { runPoolSoak } from './pool-soak';

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

async function main(): Promise<void> {
  const episodes = flag('episodes', 1000);
  const corpusAt = process.argv.indexOf('--corpus');
  const corpus = corpusAt >= 0 ? process.argv[corpusAt + 1] : undefined;
  const report = await runPoolSoak({
    ...(corpus ? { corpus } : {}),
    episodes,
    poolSize: flag('pool', 4),
    concurrency: flag('concurrency', 4),
    sampleEvery: Math.max(1, Math.round(episodes / 20)),
    onSample: (entry) =>
      process.stderr.write(
        `  ${entry.episodes} episodes: browser ${entry.browserMb.toFixed(0)} MB, node heap ${entry.nodeHeapMb.toFixed(0)} MB, node RSS ${entry.nodeRssMb.toFixed(0)} MB\n`,
      ),
  });
  const fmt = (n: number): string => n.toFixed(0);
  const lines = [
    `| episodes | steps | errors | successes | launches | pages created / recycled | max open pages | browser MB (warm → max later) | browser growth MB | node heap growth MB | node RSS MB (warm → growth) | leftover processes | wall s |`,
    `|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
    `| ${report.episodes} | ${report.steps} | ${report.errors} | ${report.successes} | ${report.launches} | ${report.pagesCreated} / ${report.pagesRecycled} | ${report.maxOpenPages} | ${fmt(report.samples[1]?.browserMb ?? 0)} → ${fmt(Math.max(...report.samples.slice(2).map((entry) => entry.browserMb)))} | ${fmt(report.browserGrowthMb)} | ${fmt(report.nodeHeapGrowthMb)} | ${fmt(report.samples[1]?.nodeRssMb ?? 0)} → +${fmt(report.nodeRssGrowthMb)} | ${report.leftoverProcesses} | ${(report.wallMs / 1000).toFixed(0)} |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
