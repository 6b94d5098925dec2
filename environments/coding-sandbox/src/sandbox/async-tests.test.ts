import { formatTestReport } from '../observations';
import type { EvaluationResult, SandboxLimits } from './evaluation';
import { SandboxPool } from './sandbox-pool';

// Tests that return a promise or a thenable, or take a `done` callback, are awaited: their verdict is how that
// settles. Before, the returned promise was dropped: a test whose promise never settled passed, and a failing async
// test was reported as "unhandled promise rejection: An object was thrown …" instead of its assertion.

const limits: SandboxLimits = { timeMs: 1000, totalTimeMs: 5000, memoryMb: 32, outputChars: 2000 };
const pool = new SandboxPool({ workers: 1, graceMs: 2000 });
afterAll(() => pool.close());

async function runTestFile(code: string): Promise<EvaluationResult> {
  return pool.evaluate({ files: { 'a.test.ts': code }, job: { type: 'tests', testFiles: ['a.test.ts'] }, limits });
}

const statuses = (result: EvaluationResult): Record<string, string> =>
  Object.fromEntries(result.tests.map((test) => [test.name, test.status]));

describe('async tests', () => {
  it('fail with their assertion when an async test fails, before or after an await', async () => {
    const result = await runTestFile(
      "test('at once', async () => { expect(1).toBe(2); });\ntest('later', async () => { await null; expect([1]).toEqual([2]); });",
    );
    expect(result.tests).toEqual([
      expect.objectContaining({ name: 'at once', status: 'fail', expected: '2', actual: '1' }),
      expect.objectContaining({ name: 'later', status: 'fail', expected: '[2]', actual: '[1]' }),
    ]);
  });

  it("say that Jest's .resolves and .rejects are not supported, even when the promise rejects", async () => {
    const result = await runTestFile(
      [
        "const fails = async () => { throw new Error('boom'); };",
        "test('rejects', async () => { await expect(fails()).rejects.toThrow('boom'); });",
        "test('resolves', async () => { await expect(Promise.resolve(1)).resolves.toBe(1); });",
        "test('what to write', async () => { await require('node:assert').rejects(fails(), /boom/); });",
      ].join('\n'),
    );
    expect(result.tests).toEqual([
      expect.objectContaining({
        name: 'rejects',
        status: 'error',
        message: expect.stringMatching(
          /^Error: expect\(…\)\.rejects is not supported in the sandbox: write await assert\.rejects/,
        ),
      }),
      expect.objectContaining({
        name: 'resolves',
        status: 'error',
        message: expect.stringMatching(
          /^Error: expect\(…\)\.resolves is not supported in the sandbox: write expect\(await/,
        ),
      }),
      expect.objectContaining({ name: 'what to write', status: 'pass' }),
    ]);
  });

  it('pass when the promise fulfils or done() is called from a continuation', async () => {
    const result = await runTestFile(
      [
        "test('async', async () => { const value = await Promise.resolve(3); expect(value).toBe(3); });",
        "test('returned promise', () => Promise.resolve(4).then((value) => expect(value).toBe(4)));",
        "test('done', (done: () => void) => { Promise.resolve().then(() => done()); });",
        "test('sync', () => { expect(1).toBe(1); });",
      ].join('\n'),
    );
    expect(statuses(result)).toEqual({ async: 'pass', 'returned promise': 'pass', done: 'pass', sync: 'pass' });
  });

  it('fail with "did not finish" when a promise never settles or done is never called', async () => {
    const result = await runTestFile(
      [
        "test('never', () => new Promise(() => {}));",
        "test('awaits forever', async () => { await new Promise(() => {}); });",
        "test('no done', (done: () => void) => {});",
        "test('after', () => { expect(1).toBe(1); });",
      ].join('\n'),
    );
    expect(statuses(result)).toEqual({ never: 'error', 'awaits forever': 'error', 'no done': 'error', after: 'pass' });
    expect(result.tests[0]?.message).toBe(
      "did not finish: the test's promise never settled (the sandbox has no timers, so nothing was left that could settle it)",
    );
    expect(result.tests[2]?.message).toMatch(/^did not finish: done\(\) was never called/);
    expect(formatTestReport('RUN_TESTS', result, '__tests__.ts')).toContain(
      "ERROR a.test.ts › never\n  did not finish: the test's promise never settled",
    );
  });

  it("fail with the rejection's message, cut inside the sandbox, and with done(error)", async () => {
    const result = await runTestFile(
      [
        "test('rejects', () => Promise.reject(new RangeError('r'.repeat(1e5))));",
        "test('done error', (done: (error?: unknown) => void) => { done(new Error('went wrong')); });",
      ].join('\n'),
    );
    expect(result.tests[0]).toMatchObject({ status: 'error' });
    expect(result.tests[0]?.message).toMatch(/^RangeError: r{2000}…\[truncated 98000 chars\]/);
    expect(result.tests[1]).toMatchObject({ status: 'error', message: expect.stringMatching(/^Error: went wrong/) });
  });

  it('await assert.rejects: a missing rejection fails the test, the expected one passes', async () => {
    const result = await runTestFile(
      [
        "const assert = require('node:assert');",
        "test('missing', async () => { await assert.rejects(Promise.resolve(1)); });",
        "test('returned', () => assert.rejects(async () => 1, /late/));",
        "test('expected', async () => { await assert.rejects(Promise.reject(new TypeError('no')), TypeError); });",
      ].join('\n'),
    );
    expect(result.tests).toEqual([
      expect.objectContaining({
        name: 'missing',
        status: 'fail',
        message: 'assert.rejects failed (Missing expected rejection.)',
      }),
      expect.objectContaining({
        name: 'returned',
        status: 'fail',
        message: 'assert.rejects failed (Missing expected rejection.)',
      }),
      expect.objectContaining({ name: 'expected', status: 'pass' }),
    ]);
  });

  it('charge an endless chain of continuations to the time limit, like an endless loop', async () => {
    const result = await runTestFile(
      "test('endless', async () => { for (;;) await null; });\ntest('after', () => {});",
    );
    expect(statuses(result)).toEqual({ endless: 'timeout', after: 'pass' });
  });
});

describe('hidden test snippets', () => {
  it('that await run as async tests, awaited like the others', async () => {
    const result = await pool.evaluate({
      files: {
        'solution.ts':
          'export async function double(n: number): Promise<number> { return n * 2; }\nexport function hang(): Promise<number> { return new Promise(() => {}); }',
      },
      job: {
        type: 'tests',
        snippets: {
          setup: "import { double, hang } from './solution';",
          tests: [
            'expect(await double(2)).toBe(4);',
            'expect(await double(2)).toBe(5);',
            'expect(await hang()).toBe(1);',
            "await require('assert').rejects(double(1));",
          ],
        },
      },
      limits,
    });
    expect(result.compileErrors).toEqual([]);
    expect(result.tests.map((test) => test.status)).toEqual(['pass', 'fail', 'error', 'fail']);
    expect(result.tests[2]?.message).toMatch(/^did not finish/);
  });
});
