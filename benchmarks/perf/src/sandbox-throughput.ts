import { isDeepStrictEqual } from 'node:util';
import { SandboxPool } from '@turngym/env-coding-sandbox';

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
 * Sandboxed evaluations per second of a small solution against its 8 tests (isolated-vm in a pool of two worker
 * processes, a fresh context per evaluation, four evaluations in flight), and the same work unsandboxed, in one run.
 */
export async function sandboxThroughput(options: {
  durationMs: number;
}): Promise<{ sandboxedPerSecond: number; unsandboxedPerSecond: number; ratio: number }> {
  const pool = new SandboxPool({ workers: 2 });
  try {
    const request = {
      files: { 'solution.ts': SOLUTION },
      job: { type: 'tests' as const, snippets: { setup: "import { reverseWords } from './solution';", tests: TESTS } },
      limits: LIMITS,
    };
    const check = await pool.evaluate(request);
    if (check.tests.length !== TESTS.length || check.tests.some((test) => test.status !== 'pass'))
      throw new Error(`the benchmark solution fails in the sandbox: ${JSON.stringify(check)}`);
    for (let i = 0; i < 50; i++) await pool.evaluate(request); // warm both workers' JIT

    let sandboxed = 0;
    const sandboxStart = performance.now();
    const deadline = sandboxStart + options.durationMs;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (performance.now() < deadline) {
          await pool.evaluate(request);
          sandboxed += 1;
        }
      }),
    );
    const sandboxedPerSecond = sandboxed / ((performance.now() - sandboxStart) / 1000);

    let unsandboxed = 0;
    const plainStart = performance.now();
    const plainDeadline = plainStart + options.durationMs;
    while (performance.now() < plainDeadline) {
      if (evaluateUnsandboxed() !== TESTS.length) throw new Error('the unsandboxed baseline fails its tests');
      unsandboxed += 1;
    }
    const unsandboxedPerSecond = unsandboxed / ((performance.now() - plainStart) / 1000);
    return { sandboxedPerSecond, unsandboxedPerSecond, ratio: sandboxedPerSecond / unsandboxedPerSecond };
  } finally {
    await pool.close();
  }
}
