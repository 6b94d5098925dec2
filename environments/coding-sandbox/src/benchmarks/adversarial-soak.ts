#!/usr/bin/env node
/**
 * `npm run bench:soak` (node --expose-gc dist/benchmarks/adversarial-soak.js [--runs 1000]): the full soak of the
 * security corpus against one sandbox pool, with the host's memory before and after. The README records its figures.
 */
import { runAdversarialSoak } from '../sandbox/adversarial-soak';

async function main(): Promise<void> {
  const index = process.argv.indexOf('--runs');
  const runs = index >= 0 ? Number(process.argv[index + 1]) : 1000;
  const report = await runAdversarialSoak({ runs });
  const mb = (n: number): string => n.toFixed(1);
  process.stdout.write(
    [
      `adversarial runs: ${report.runs} (+ ${report.benignRuns} benign checks), ${(report.elapsedMs / 1000).toFixed(1)} s`,
      `unexpected observations: ${report.unexpected.length}${report.unexpected.length ? `\n  ${report.unexpected.join('\n  ')}` : ''}`,
      `benign failures: ${report.benignFailures}`,
      `worker crashes: ${report.workerCrashes}, worker kills: ${report.workerKills}`,
      `host heap: ${mb(report.hostHeapBeforeMb)} → ${mb(report.hostHeapAfterMb)} MB (growth ${mb(report.hostHeapAfterMb - report.hostHeapBeforeMb)} MB)`,
      `host RSS: ${mb(report.hostRssBeforeMb)} → ${mb(report.hostRssAfterMb)} MB (growth ${mb(report.hostRssAfterMb - report.hostRssBeforeMb)} MB)`,
      `gc: ${typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'forced before each measurement' : 'not exposed (run with --expose-gc for stable figures)'}`,
      '',
    ].join('\n'),
  );
  if (report.unexpected.length > 0 || report.benignFailures > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
