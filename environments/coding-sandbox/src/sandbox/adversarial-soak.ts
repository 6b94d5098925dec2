import { formatRunReport, formatTestReport } from '../observations';
import { ADVERSARIAL_PROGRAMS, type AdversarialProgram } from './adversarial-programs';
import type { EvaluationResult, SandboxLimits } from './evaluation';
import { SandboxPool } from './sandbox-pool';

export interface SoakOptions {
  /** Adversarial runs in a row. */
  runs: number;
  /** The pool to attack (default: a fresh two-worker pool, closed at the end). */
  pool?: SandboxPool;
  limits?: SandboxLimits;
  /** Run the slow programs (worker kills and restarts) only on every n-th pass over the corpus. Default 1 (always). */
  slowEvery?: number;
  /** Between adversarial runs, every n-th run is followed by a benign evaluation that must pass. Default 10. */
  benignEvery?: number;
}

export interface SoakReport {
  readonly runs: number;
  readonly benignRuns: number;
  /** Programs whose observation did not say what the corpus expects (must be empty). */
  readonly unexpected: readonly string[];
  /** Benign evaluations that did not pass (must be 0: the sandbox keeps working). */
  readonly benignFailures: number;
  /** Host process memory before and after (MB); measured after a GC when `--expose-gc` is on. */
  readonly hostHeapBeforeMb: number;
  readonly hostHeapAfterMb: number;
  readonly hostRssBeforeMb: number;
  readonly hostRssAfterMb: number;
  readonly workerCrashes: number;
  readonly workerKills: number;
  readonly elapsedMs: number;
}

export const SOAK_LIMITS: SandboxLimits = { timeMs: 250, totalTimeMs: 1000, memoryMb: 32, outputChars: 1000 };

const BENIGN = {
  files: { 'solution.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n' },
  job: {
    type: 'tests' as const,
    snippets: {
      setup: "import { add } from './solution';",
      tests: ['expect(add(1, 2)).toBe(3);', 'expect(add(-1, 1)).toBe(0);'],
    },
  },
};

/** Runs one corpus program as the agent would (RUN, or RUN_TESTS on its test file) and returns what it would see. */
export async function observeAdversarial(
  pool: SandboxPool,
  program: AdversarialProgram,
  limits: SandboxLimits,
): Promise<{ result: EvaluationResult; observation: string }> {
  if (program.asTestFile) {
    const result = await pool.evaluate({
      files: { 'attack.test.ts': program.code },
      job: { type: 'tests', testFiles: ['attack.test.ts'] },
      limits,
    });
    return { result, observation: formatTestReport('RUN_TESTS', result, '__tests__.ts') };
  }
  const result = await pool.evaluate({ files: {}, job: { type: 'run', code: program.code }, limits });
  return { result, observation: formatRunReport('(code)', result) };
}

function memory(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed / 1048576, rss: usage.rss / 1048576 };
}

/**
 * Runs the adversarial corpus round-robin, `runs` times in a row, against one pool, checking every observation and,
 * in between, that a benign evaluation still passes. Reports the host's memory before and after.
 */
export async function runAdversarialSoak(options: SoakOptions): Promise<SoakReport> {
  const pool = options.pool ?? new SandboxPool({ workers: 2, graceMs: 1000 });
  const limits = options.limits ?? SOAK_LIMITS;
  const slowEvery = Math.max(1, options.slowEvery ?? 1);
  const benignEvery = Math.max(1, options.benignEvery ?? 10);
  const started = performance.now();
  const crashesBefore = pool.stats.crashes;
  const killsBefore = pool.stats.kills;
  const unexpected: string[] = [];
  let benignRuns = 0;
  let benignFailures = 0;
  const benign = async (): Promise<void> => {
    benignRuns += 1;
    const result = await pool.evaluate({ ...BENIGN, limits });
    if (result.tests.length !== 2 || result.tests.some((test) => test.status !== 'pass')) benignFailures += 1;
  };
  try {
    await benign(); // warm the workers before the first measurement
    const before = memory();
    const schedule: AdversarialProgram[] = [];
    for (let pass = 0; schedule.length < options.runs; pass++) {
      for (const program of ADVERSARIAL_PROGRAMS) if (!program.slow || pass % slowEvery === 0) schedule.push(program);
    }
    for (const [index, program] of schedule.slice(0, options.runs).entries()) {
      const { observation } = await observeAdversarial(pool, program, limits);
      if (!program.expect.test(observation)) unexpected.push(`${program.name}: ${observation.slice(0, 300)}`);
      if ((index + 1) % benignEvery === 0) await benign();
    }
    await benign();
    const after = memory();
    return {
      runs: options.runs,
      benignRuns,
      unexpected,
      benignFailures,
      hostHeapBeforeMb: before.heap,
      hostHeapAfterMb: after.heap,
      hostRssBeforeMb: before.rss,
      hostRssAfterMb: after.rss,
      workerCrashes: pool.stats.crashes - crashesBefore,
      workerKills: pool.stats.kills - killsBefore,
      elapsedMs: performance.now() - started,
    };
  } finally {
    if (!options.pool) await pool.close();
  }
}
