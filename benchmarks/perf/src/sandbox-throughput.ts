import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { SandboxPool, type EvaluationRequest } from '@turngym/env-coding-sandbox';

// A small solution and its tests: the unit of work of RUN_TESTS / SUBMIT in @turngym/env-coding-sandbox.
const SOLUTION = [
  'export function reverseWords(text: string): string {',
  '  return text.split(" ").filter((word) => word.length > 0).reverse().join(" ");',
  '}',
  '',
].join('\n');
const CASES: [string, string][] = [
  ['a b c', 'c b a'],
  ['', ''],
  ['  x  y ', 'y x'],
  ['hello world', 'world hello'],
  ['one', 'one'],
  ['a  b', 'b a'],
  ['q w e r t y', 'y t r e w q'],
  ['1 2', '2 1'],
];
const TESTS = CASES.map(
  ([input, output]) => `expect(reverseWords(${JSON.stringify(input)})).toEqual(${JSON.stringify(output)});`,
);
const LIMITS = { timeMs: 1000, totalTimeMs: 5000, memoryMb: 64, outputChars: 2000 };

/**
 * The same work without a sandbox: compile the solution (types stripped by hand, as the sandbox's transpiler would)
 * and every test with `new Function`, run them in this process with a minimal `expect`. No isolation, no process hop.
 */
function evaluateUnsandboxed(): number {
  const javascript = SOLUTION.replace('export function', 'function').replace('(text: string): string', '(text)');
  const exports: Record<string, unknown> = {};
  new Function('exports', `${javascript}\nexports.reverseWords = reverseWords;`)(exports);
  const expect = (actual: unknown) => ({
    toEqual(expected: unknown) {
      if (!isDeepStrictEqual(actual, expected)) throw new Error('mismatch');
    },
  });
  let passed = 0;
  for (const test of TESTS) {
    try {
      new Function('expect', 'reverseWords', test)(expect, exports.reverseWords);
      passed += 1;
    } catch {
      // a failed test
    }
  }
  return passed;
}

/**
 * CPU milliseconds used so far by this process's child processes (the pool's workers), from /proc; undefined
 * where there is no /proc. `process.cpuUsage()` counts only this process, and a child's time reaches the
 * parent's rusage only once it has exited.
 */
function childrenCpuMs(): number | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const ticksPerMs = 100 / 1000; // USER_HZ: 100 on Linux
  let total = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the command's closing parenthesis: state ppid … utime (14th field) stime (15th).
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      if (Number(fields[1]) !== process.pid) continue;
      total += (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Evaluations of `request` for `durationMs` with four in flight: how many, and the CPU they took (host + workers). */
async function measureSandboxed(
  pool: SandboxPool,
  request: EvaluationRequest,
  durationMs: number,
): Promise<{ count: number; seconds: number; cpuMs: number | undefined }> {
  let count = 0;
  const hostBefore = process.cpuUsage();
  const childrenBefore = childrenCpuMs();
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < deadline) {
        await pool.evaluate(request);
        count += 1;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const host = process.cpuUsage(hostBefore);
  const childrenAfter = childrenCpuMs();
  const cpuMs =
    childrenBefore === undefined || childrenAfter === undefined
      ? undefined
      : (host.user + host.system) / 1000 + childrenAfter - childrenBefore;
  return { count, seconds, cpuMs };
}

/**
 * Sandboxed evaluations per second of a small solution against its 8 tests (isolated-vm in a pool of two worker
 * processes, a fresh context per evaluation, four evaluations in flight), and the same work unsandboxed, in one run.
 * The same suite once more with an `import` of node:assert (its tests still use expect()): the sandbox builds
 * node:assert only into evaluations whose code names it, which before 7a391d2 every evaluation paid for. The two
 * sandboxed variants alternate in halves, so load drift hits both alike.
 */
export async function sandboxThroughput(options: { durationMs: number }): Promise<{
  sandboxedPerSecond: number;
  unsandboxedPerSecond: number;
  ratio: number;
  /** CPU per sandboxed evaluation, host and workers (undefined without /proc): less moved by other load. */
  sandboxedCpuMs: number | undefined;
  unsandboxedCpuMs: number;
  /** The same, for the suite that names node:assert. */
  withAssertPerSecond: number;
  withAssertCpuMs: number | undefined;
}> {
  const pool = new SandboxPool({ workers: 2 });
  try {
    const request: EvaluationRequest = {
      files: { 'solution.ts': SOLUTION },
      job: { type: 'tests', snippets: { setup: "import { reverseWords } from './solution';", tests: TESTS } },
      limits: LIMITS,
    };
    const withAssert: EvaluationRequest = {
      ...request,
      job: {
        type: 'tests',
        snippets: {
          setup: "import { reverseWords } from './solution';\nimport assert from 'node:assert';",
          tests: TESTS,
        },
      },
    };
    for (const candidate of [request, withAssert]) {
      const check = await pool.evaluate(candidate);
      if (check.tests.length !== TESTS.length || check.tests.some((test) => test.status !== 'pass'))
        throw new Error(`the benchmark solution fails in the sandbox: ${JSON.stringify(check)}`);
    }
    for (let i = 0; i < 50; i++) await pool.evaluate(i % 2 === 0 ? request : withAssert); // warm both workers' JIT

    const plainRuns: Awaited<ReturnType<typeof measureSandboxed>>[] = [];
    const assertRuns: Awaited<ReturnType<typeof measureSandboxed>>[] = [];
    for (let half = 0; half < 2; half++) {
      plainRuns.push(await measureSandboxed(pool, request, options.durationMs / 2));
      assertRuns.push(await measureSandboxed(pool, withAssert, options.durationMs / 2));
    }
    const rate = (runs: typeof plainRuns): number =>
      runs.reduce((sum, run) => sum + run.count, 0) / runs.reduce((sum, run) => sum + run.seconds, 0);
    const cpu = (runs: typeof plainRuns): number | undefined =>
      runs.some((run) => run.cpuMs === undefined)
        ? undefined
        : runs.reduce((sum, run) => sum + (run.cpuMs ?? 0), 0) / runs.reduce((sum, run) => sum + run.count, 0);
    const sandboxedPerSecond = rate(plainRuns);

    let unsandboxed = 0;
    const plainBefore = process.cpuUsage();
    const plainStart = performance.now();
    const plainDeadline = plainStart + options.durationMs;
    while (performance.now() < plainDeadline) {
      if (evaluateUnsandboxed() !== TESTS.length) throw new Error('the unsandboxed baseline fails its tests');
      unsandboxed += 1;
    }
    const unsandboxedPerSecond = unsandboxed / ((performance.now() - plainStart) / 1000);
    const plain = process.cpuUsage(plainBefore);
    return {
      sandboxedPerSecond,
      unsandboxedPerSecond,
      ratio: sandboxedPerSecond / unsandboxedPerSecond,
      sandboxedCpuMs: cpu(plainRuns),
      unsandboxedCpuMs: (plain.user + plain.system) / 1000 / unsandboxed,
      withAssertPerSecond: rate(assertRuns),
      withAssertCpuMs: cpu(assertRuns),
    };
  } finally {
    await pool.close();
  }
}
