import { existsSync, rmSync } from 'node:fs';
import { formatRunReport, formatTestReport, MAX_OBSERVATION_CHARS } from '../observations';
import { ADVERSARIAL_PROGRAMS } from './adversarial-programs';
import { observeAdversarial } from './adversarial-soak';
import type { EvaluationResult, SandboxLimits } from './evaluation';
import { SandboxPool } from './sandbox-pool';

const limits: SandboxLimits = { timeMs: 250, totalTimeMs: 2000, memoryMb: 32, outputChars: 2000 };
const PWNED = '/tmp/turngym-sandbox-pwned';
const pool = new SandboxPool({ workers: 2, graceMs: 1500 });

beforeAll(() => rmSync(PWNED, { force: true }));
afterAll(() => pool.close());

const run = async (code: string, files: Record<string, string> = {}): Promise<string> =>
  formatRunReport('(code)', await pool.evaluate({ files, job: { type: 'run', code }, limits }));

// What the host receives of one evaluation, whatever the program: every field is cut inside the sandbox, and the
// worker bounds the whole result (200,000 characters besides the two output streams).
const RESULT_CHARS_BOUND = 200_000 + 2 * limits.outputChars + 10_000;
// Once that is spent, each further test is only its skeleton (about 100 characters), and a file registers at most 1000.
const MANY_TESTS_CHARS_BOUND = RESULT_CHARS_BOUND + 1000 * 120;
const resultChars = (result: EvaluationResult): number => JSON.stringify(result).length;

describe('every adversarial program is stopped or harmless, with a clear message and a bounded result', () => {
  it.each(ADVERSARIAL_PROGRAMS.map((program) => [`${program.threat}: ${program.name}`, program] as const))(
    '%s',
    async (_label, program) => {
      const { result, observation } = await observeAdversarial(pool, program, limits);
      expect(observation).toMatch(program.expect);
      expect(observation.length).toBeLessThanOrEqual(MAX_OBSERVATION_CHARS + 40);
      expect(resultChars(result)).toBeLessThan(RESULT_CHARS_BOUND);
    },
  );
});

describe('what a program hands back and holds is bounded', () => {
  const heapUsedMb = (): number => process.memoryUsage().heapUsed / 1048576;

  it('keeps the host heap flat while it holds the results of every huge-field program', async () => {
    // Before the fields were cut, each of these results carried its 2 MB field into the host (and again in the
    // observation): holding them all took over 40 MB.
    const programs = ADVERSARIAL_PROGRAMS.filter((program) => program.threat === 'observation');
    const before = heapUsedMb();
    const held: string[] = [];
    for (const program of programs) {
      const { result, observation } = await observeAdversarial(pool, program, limits);
      held.push(JSON.stringify(result), observation);
    }
    expect(heapUsedMb() - before).toBeLessThan(16);
    expect(held.join('').length).toBeLessThan(programs.length * 8000);
  });

  it('keeps the worker within its limit when buffers grow after they are created', async () => {
    // A one-worker pool of its own, so its peak resident memory is this test's programs' alone. Before resizable
    // buffers were charged, `resize()` alone held 256 MB under the 32 MB limit.
    const own = new SandboxPool({ workers: 1, graceMs: 1500 });
    try {
      const benign = await own.evaluate({ files: {}, job: { type: 'run', code: '1 + 1' }, limits });
      expect(benign.run?.value).toBe('2');
      const baseline = own.stats.peakWorkerRssMb;
      const growing = ADVERSARIAL_PROGRAMS.filter((program) => /ArrayBuffer|Intl/.test(program.name));
      expect(growing.length).toBeGreaterThanOrEqual(6);
      for (const program of growing) {
        const result = await own.evaluate({ files: {}, job: { type: 'run', code: program.code }, limits });
        expect(formatRunReport('(code)', result)).toMatch(program.expect);
      }
      expect(own.stats.peakWorkerRssMb - baseline).toBeLessThan(3 * limits.memoryMb);
    } finally {
      await own.close();
    }
  });

  it('gives up compiling source that makes the TypeScript parser backtrack exponentially, as a compile error', async () => {
    // 26 nested `<T>(`: sucrase tries a generic arrow function, then a type assertion, at each level (2^26 parses).
    // It ran in the worker, outside any isolate: the worker was killed at the host's deadline, and the report said
    // "the program did not stop at its limit" about a program that never ran.
    const nested = `export const x = ${'<T>('.repeat(26)}1${')'.repeat(26)};\nexport const y = 1;\n`;
    const killsBefore = pool.stats.kills;
    const result = await pool.evaluate({
      files: { 'solution.ts': nested },
      job: { type: 'tests', snippets: { setup: "import { y } from './solution';", tests: ['expect(y).toBe(1);'] } },
      limits,
    });
    expect(result.fatal).toBeUndefined();
    expect(result.compileErrors).toEqual([
      { path: 'solution.ts', message: expect.stringMatching(/^SyntaxError: the file took too long to compile/) },
    ]);
    expect(pool.stats.kills).toBe(killsBefore);
    // The trusted test module compiled within its own budget: it is the import that failed, not the tests' source.
    expect(result.loadErrors).toEqual([
      {
        path: '__tests__.ts',
        message: expect.stringMatching(/^SyntaxError: solution\.ts: SyntaxError: the file took/),
      },
    ]);
    expect(await run('1 + 1')).toContain('=> 2');
  }, 30_000);

  it('keeps the worker alive when snippets that transpile to megabytes are run one after another', async () => {
    // Each RUN below is a distinct 98k-character snippet that sucrase expands to ~5 MB. The worker's transpile
    // cache kept every output (bounded by count only): 110 → 343 MB resident in 45 runs, then out of heap.
    // A grace of its own: each RUN transpiles 98k characters (0.3–0.6 s at load average 15), and at 1,500 ms the
    // watchdog once killed a worker that was only slow (2026-11-28), which is not what this test is about.
    const own = new SandboxPool({ workers: 1, graceMs: 6000 });
    // The env's own limits (coding-options.ts defaults): a RUN of this size needs more than this file's 250 ms.
    const envLimits: SandboxLimits = { timeMs: 1000, totalTimeMs: 10_000, memoryMb: 64, outputChars: 2000 };
    try {
      const module = `./${'b'.repeat(100)}`;
      for (let index = 0; index < 50; index++) {
        const code = `import { a } from '${module}';\n${'a;'.repeat(49_000)}\n// ${index}`;
        const result = await own.evaluate({ files: {}, job: { type: 'run', code }, limits: envLimits });
        expect(formatRunReport('(code)', result)).toMatch(/Cannot find module/);
      }
      expect(own.stats.crashes).toBe(0);
    } finally {
      await own.close();
    }
  }, 120_000);

  const testRun = async (code: string): Promise<{ result: EvaluationResult; report: string }> => {
    const result = await pool.evaluate({
      files: { 'attack.test.ts': code },
      job: { type: 'tests', testFiles: ['attack.test.ts'] },
      limits,
    });
    return { result, report: formatTestReport('RUN_TESTS', result, '__tests__.ts') };
  };

  it('cuts a huge test title and a huge describe title, and still runs the test', async () => {
    const { result } = await testRun(
      "describe('d'.repeat(2e6), () => { test('t'.repeat(2e6), () => { throw new Error('no'); }); });",
    );
    expect(result.tests).toHaveLength(1);
    expect(result.tests[0]?.status).toBe('error');
    expect(result.tests[0]?.name).toMatch(/^d{300}…\[truncated \d+ chars\] › t{300}…\[truncated \d+ chars\]$/);
    expect(resultChars(result)).toBeLessThan(10_000);
  });

  it('runs at most 1000 tests of a file that registers 30,000, and says how many it left out', async () => {
    const { result, report } = await testRun("for (let i = 0; i < 30000; i++) test('t' + i, () => {});");
    expect(result.tests).toHaveLength(1000);
    expect(result.loadErrors).toEqual([
      {
        path: 'attack.test.ts',
        message: '29000 more tests were registered than the sandbox runs (1000 at most); they were not run',
      },
    ]);
    expect(report).toContain('29000 more tests were registered');
    expect(resultChars(result)).toBeLessThan(RESULT_CHARS_BOUND);
  });

  it('bounds the whole result when many tests each fail with a long (already cut) message', async () => {
    const { result } = await testRun(
      "for (let i = 0; i < 1000; i++) test('t' + i, () => { throw new Error('m'.repeat(5000)); });",
    );
    expect(result.tests).toHaveLength(1000);
    expect(result.tests.every((test) => test.status === 'error')).toBe(true);
    expect(resultChars(result)).toBeLessThan(MANY_TESTS_CHARS_BOUND);
    expect(result.tests[999]?.message).toMatch(/^…\[truncated \d+ chars\]$/);
  });

  it('cuts a huge assertion message and reports the test as failed', async () => {
    const { result } = await testRun("test('a', () => { require('assert').fail('f'.repeat(2e6)); });");
    expect(result.tests[0]?.status).toBe('fail');
    expect(JSON.stringify(result.tests[0])).toMatch(/…\[truncated \d+ chars\]/);
    expect(resultChars(result)).toBeLessThan(10_000);
  });

  it('cuts huge errors thrown by tests and by loading a test file', async () => {
    const { result } = await testRun(
      "test('a', () => { const e = new Error('m'); e.name = 'n'.repeat(2e6); throw e; });\nthrow { name: 'x', message: 'm'.repeat(2e6) };",
    );
    expect(result.loadErrors[0]?.message).toMatch(/^x: m{2000}…\[truncated 1998000 chars\]/);
    expect(result.tests[0]?.message).toMatch(/^n{200}…\[truncated 1999800 chars\]: m/);
    expect(resultChars(result)).toBeLessThan(10_000);
  });
});

describe('the host', () => {
  it('keeps its own Object.prototype, Array.prototype and JSON after the sandbox pollutes its own', async () => {
    const pushBefore = Array.prototype.push;
    const parseBefore = JSON.parse;
    // The sandbox sees its own pollution (so it really happened), and the host does not.
    expect(
      await run(
        "(Object.prototype as any).polluted = 'yes';\n(Array.prototype as any).push = () => 0;\n(JSON as any).parse = null;\n[({} as any).polluted, ([] as any).push(1), (JSON as any).parse === null].join()",
      ),
    ).toContain('=> "yes,0,true"');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    expect(Array.prototype.push).toBe(pushBefore);
    expect(JSON.parse).toBe(parseBefore);
  });

  it('gives every evaluation a fresh context: pollution, globals and pending promises do not carry over', async () => {
    await run(
      '(Object.prototype as any).leak = 1;\n(globalThis as any).kept = 2;\nPromise.resolve().then(() => { (globalThis as any).late = 3; });\n0',
    );
    expect(
      await run('[typeof ({} as any).leak, typeof (globalThis as any).kept, typeof (globalThis as any).late].join()'),
    ).toContain('=> "undefined,undefined,undefined"');
  });

  it('leaves nothing of one evaluation to the next in the same worker and isolate: built-ins, runtime, node:assert', async () => {
    // One worker, so both evaluations run in the same process and the same pooled isolate (isolates are reused for up
    // to 500 evaluations; only the context is fresh). The first one patches what a cache shared between evaluations
    // would carry: built-ins and prototypes, globals, the runtime's expect(), and node:assert (built per evaluation).
    const own = new SandboxPool({ workers: 1, graceMs: 1500 });
    try {
      const polluted = await own.evaluate({
        files: {},
        job: {
          type: 'run',
          code: [
            "import assert from 'node:assert';",
            '(Array.prototype as any).map = () => [42];',
            "(Object.prototype as any).injected = 'yes';",
            "(String.prototype as any).split = () => ['x'];",
            '(JSON as any).stringify = () => "{}";',
            '(globalThis as any).kept = 1;',
            'try { (Object.getPrototypeOf(expect(1)) as any).toBe = () => undefined; } catch { /* frozen */ }',
            // node:assert is frozen; whatever of it a program can reach is patched all the same.
            'try { (assert as any).strictEqual = () => undefined; } catch { /* frozen */ }',
            "try { Object.getPrototypeOf(assert.AssertionError.prototype).toString = () => ''; } catch { /* frozen */ }",
            "[[1].map((n) => n), ({} as any).injected, 'a b'.split(' ')].join('|')",
          ].join('\n'),
        },
        limits,
      });
      expect(polluted.run).toEqual({ status: 'ok', value: '"42|yes|x"' });
      const next = await own.evaluate({
        files: {},
        job: {
          type: 'tests',
          snippets: {
            setup: "import assert from 'node:assert';",
            tests: [
              'expect([1, 2].map((n) => n * 2)).toEqual([2, 4]);',
              'expect(({} as any).injected).toBeUndefined();',
              "expect('a b'.split(' ')).toEqual(['a', 'b']);",
              'expect(JSON.stringify({ a: 1 })).toBe(\'{"a":1}\');',
              'expect((globalThis as any).kept).toBeUndefined();',
              'expect(1).toBe(2);',
              'assert.strictEqual(1, 2);',
              'assert.deepStrictEqual([1], [2]);',
            ],
          },
        },
        limits,
      });
      expect(next.tests.map((test) => test.status)).toEqual([
        'pass',
        'pass',
        'pass',
        'pass',
        'pass',
        'fail',
        'fail',
        'fail',
      ]);
      expect(own.stats.starts).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('loads node:assert only for code that names it, and says so to code that builds the name', async () => {
    expect(await run("const name = ['as', 'sert'].join('');\nrequire(name).ok(true)")).toMatch(
      /Cannot load 'assert': the sandbox loads node:assert only for code that names it/,
    );
    expect(await run("require('assert').ok(true); 'ok'")).toContain('=> "ok"');
  });

  it('has no file written by a sandboxed program', async () => {
    await run("require('fs').writeFileSync('/tmp/turngym-sandbox-pwned', 'x')");
    expect(existsSync(PWNED)).toBe(false);
  });

  it('still runs benign code after every kind of attack, and counts crashed and killed workers', async () => {
    const lost = pool.stats.crashes + pool.stats.kills;
    await run('new Array(1e9).fill(0)');
    // The allocation aborts V8 in the worker (a crash), or on a slow machine the watchdog kills the worker first.
    expect(pool.stats.crashes + pool.stats.kills).toBe(lost + 1);
    expect(await run('[1, 2, 3].map((n) => n * 2)')).toContain('=> [2, 4, 6]');
  });
});

describe('reward forgery', () => {
  // Code under test shares the realm with the test runner: it may patch every built-in it can reach. None of it may
  // turn a wrong answer into a pass, add a test, or hide one.
  const forger = [
    "try { Object.defineProperty(globalThis, 'expect', { value: () => ({ toBe() {}, toEqual() {} }) }); } catch {}",
    'try { (globalThis as any).expect = () => ({ toBe() {}, toEqual() {} }); } catch {}',
    'Object.is = () => true;',
    "(Object.prototype as any).toJSON = () => ({ status: 'pass' });",
    'JSON.stringify = () => \'{"status":"pass"}\';',
    'Array.prototype.push = function () { return 0; };',
    "Object.defineProperty(Array.prototype, '0', { get() { return 'pass'; }, set() {}, configurable: true });",
    "try { (globalThis as any).test('forged', () => {}); } catch {}",
    "(Error as any).prepareStackTrace = () => 'pass';",
    '(WeakSet.prototype as any).has = () => false;',
    'Reflect.apply = () => undefined;',
    'export function add(a: number, b: number): number {',
    '  return a - b;',
    '}',
  ].join('\n');

  it('cannot make hidden tests pass or change how many there are', async () => {
    const result = await pool.evaluate({
      files: { 'solution.ts': forger },
      job: {
        type: 'tests',
        snippets: {
          setup: "import { add } from './solution';",
          tests: ['expect(add(1, 2)).toBe(3);', 'expect(add(2, 2)).toEqual(4);', 'expect([add(1, 1)]).toEqual([2]);'],
        },
      },
      limits,
    });
    expect(result.tests.map((test) => test.status)).toEqual(['fail', 'fail', 'fail']);
    expect(result.tests[0]).toMatchObject({ expected: '3', actual: '-1' });
  });

  it('cannot make awaiting hidden tests pass by patching Promise or returning hostile thenables', async () => {
    // The runtime reads a test's promise with the intrinsic `then` and a `constructor` of its own, so a patched
    // `then`, a `constructor` getter or a species never sees the verdict; a thenable decides only the value awaited.
    const hostile = [
      'Promise.prototype.then = function (this: any, resolve: any) { resolve(3); return this; } as any;',
      "Object.defineProperty(Promise.prototype, 'constructor', { get() { return { [Symbol.species]: function (executor: any) { executor(() => {}, () => {}); } }; } });",
      'export const add = (a: number, b: number): any => ({ then(resolve: any) { resolve(3); resolve(a - b); } });',
      'export const never = (): any => ({ then() {} });',
      "export const throwing = (): any => ({ get then() { throw new Error('no then'); } });",
    ].join('\n');
    const result = await pool.evaluate({
      files: { 'solution.ts': hostile },
      job: {
        type: 'tests',
        snippets: {
          setup: "import { add, never, throwing } from './solution';",
          tests: [
            'expect(await add(1, 1)).toBe(2);',
            'expect(await never()).toBe(2);',
            'expect(await throwing()).toBe(2);',
            'await null;\nexpect(add(1, 1)).toBe(2);',
          ],
        },
      },
      limits,
    });
    expect(result.tests.map((test) => test.status)).toEqual(['fail', 'error', 'error', 'fail']);
    expect(result.tests[0]).toMatchObject({ expected: '2', actual: '3' });
    expect(result.tests[1]?.message).toMatch(/^did not finish/);
    expect(result.tests[2]?.message).toMatch(/^Error: no then/);
  });

  it('cannot make a test that wants a RangeError pass by planting Symbol.hasInstance on RangeError', async () => {
    // `toThrow(RangeError)` and `assert.throws(fn, RangeError)` asked `instanceof`, which calls the planted function:
    // both passed a solution that threw a string.
    const solution = [
      'Object.defineProperty(RangeError, Symbol.hasInstance, { value: () => true });',
      "export function toRoman(n: number): string { if (n <= 0) throw 'not a RangeError'; return 'I'; }",
    ].join('\n');
    const result = await pool.evaluate({
      files: { 'solution.ts': solution },
      job: {
        type: 'tests',
        snippets: {
          setup: "import { toRoman } from './solution';\nimport assert from 'node:assert';",
          tests: [
            'expect(() => toRoman(0)).toThrow(RangeError);',
            'assert.throws(() => toRoman(0), RangeError);',
            'await assert.rejects(async () => toRoman(0), RangeError);',
            'expect(() => toRoman(0)).toThrow();',
          ],
        },
      },
      limits,
    });
    expect(result.tests.map((test) => test.status)).toEqual(['fail', 'fail', 'fail', 'pass']);
  });

  it('cannot reach the trusted test module from its own imports', async () => {
    const result = await pool.evaluate({
      files: {
        'solution.ts':
          "let stolen = 'none';\ntry { stolen = typeof require('./__tests__'); } catch (error) { stolen = String(error); }\nexport const probe = () => stolen;",
      },
      job: {
        type: 'tests',
        snippets: { setup: "import { probe } from './solution';", tests: ["expect(probe()).toBe('none');"] },
      },
      limits,
    });
    expect(result.tests[0]?.status).toBe('fail');
    expect(result.tests[0]?.actual).toMatch(/Cannot find module '\.\/__tests__'/);
  });
});
