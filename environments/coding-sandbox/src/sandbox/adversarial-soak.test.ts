import { runAdversarialSoak } from './adversarial-soak';

// The full 1,000-run soak is a benchmark (`npm run bench:soak`, figures in the README); this is its short version.
const HOST_HEAP_GROWTH_BOUND_MB = 48;

it('the host survives 200 adversarial runs in a row, the sandbox keeps working, memory stays bounded', async () => {
  const report = await runAdversarialSoak({ runs: 200, slowEvery: 4 });
  expect(report.unexpected).toEqual([]);
  expect(report.benignFailures).toBe(0);
  expect(report.benignRuns).toBeGreaterThanOrEqual(20);
  // Lost workers were replaced mid-soak. Whether a memory bomb ends as a crash or as the watchdog's kill depends on
  // the machine's load (under heavy load the allocation outlasts the deadline), so either counts.
  expect(report.workerCrashes + report.workerKills).toBeGreaterThan(0);
  expect(report.hostHeapAfterMb - report.hostHeapBeforeMb).toBeLessThan(HOST_HEAP_GROWTH_BOUND_MB);
  process.stderr.write(`soak: ${JSON.stringify({ ...report, unexpected: report.unexpected.length })}\n`);
}, 90000);
