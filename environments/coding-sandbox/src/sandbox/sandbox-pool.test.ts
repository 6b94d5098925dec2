import { EnvFaultError } from '@turngym/core';
import type { SandboxLimits } from './evaluation';
import { SandboxPool } from './sandbox-pool';
import { locateWorkerFiles, SandboxProcess } from './sandbox-process';

const limits: SandboxLimits = { timeMs: 2000, totalTimeMs: 10000, memoryMb: 32, outputChars: 500 };

describe('SandboxPool', () => {
  const pool = new SandboxPool({ workers: 2, graceMs: 5000 });
  afterAll(() => pool.close());

  it('answers many concurrent evaluations, each with its own result', async () => {
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        pool.evaluate({
          files: { 'n.ts': `export const n = ${i};` },
          job: { type: 'run', code: "import { n } from './n';\nn * 2" },
          limits,
        }),
      ),
    );
    expect(results.map((result) => result.run?.value)).toEqual(Array.from({ length: 24 }, (_, i) => String(i * 2)));
  });

  it('fails only the test that exhausts memory; the others run in a fresh isolate', async () => {
    const result = await pool.evaluate({
      files: {},
      job: {
        type: 'tests',
        snippets: {
          setup: '',
          tests: [
            'expect(1).toBe(1);',
            'const keep: number[][] = [];\nfor (;;) keep.push(new Array(2e5).fill(keep.length));',
            'expect(2).toBe(2);',
            'expect([1]).toEqual([1]);',
          ],
        },
      },
      limits,
    });
    expect(result.tests.map((test) => test.status)).toEqual(['pass', 'memory', 'pass', 'pass']);
    expect(result.tests[1]?.message).toMatch(/memory limit exceeded: the program used more than 32 MB/);
  });

  it('charges each timeout its full allowance and reports tests past the total budget as not run', async () => {
    const result = await pool.evaluate({
      files: {},
      job: { type: 'tests', snippets: { setup: '', tests: Array.from({ length: 5 }, () => 'while (true) {}') } },
      limits: { ...limits, timeMs: 100, totalTimeMs: 250 },
    });
    const statuses = result.tests.map((test) => test.status);
    // Two full allowances fit in the budget; what is left after loading the module (a few ms) may give a third.
    expect(statuses.slice(0, 2)).toEqual(['timeout', 'timeout']);
    expect(statuses.slice(3)).toEqual(['not-run', 'not-run']);
    expect(result.tests[4]?.message).toBe('not run: the run used up its total time limit of 250 ms');
  });

  it('reports compile errors with the file and position, and load errors of test files', async () => {
    const result = await pool.evaluate({
      files: {
        'a.ts': 'export const x = ;',
        'b.test.ts': "import { x } from './a';\ntest('t', () => expect(x).toBe(1));",
      },
      job: { type: 'tests', testFiles: ['b.test.ts'] },
      limits,
    });
    expect(result.compileErrors).toEqual([
      { path: 'a.ts', message: expect.stringMatching(/^SyntaxError: Unexpected token \(1:\d+\)/) },
    ]);
    expect(result.loadErrors).toEqual([
      { path: 'b.test.ts', message: expect.stringMatching(/^SyntaxError: a\.ts: SyntaxError/) },
    ]);
  });

  it('rejects evaluations once closed', async () => {
    const closing = new SandboxPool({ workers: 1 });
    const pending = closing.evaluate({ files: {}, job: { type: 'run', code: '1' }, limits });
    await closing.close();
    await expect(pending).rejects.toThrow(EnvFaultError);
    await expect(closing.evaluate({ files: {}, job: { type: 'run', code: '1' }, limits })).rejects.toThrow(/closed/);
  });
});

describe('SandboxProcess', () => {
  it('turns a worker that cannot start into an EnvFaultError', async () => {
    const files = { ...locateWorkerFiles(), isolatedVm: '/nonexistent/isolated-vm.js' };
    const process = new SandboxProcess(files, 64);
    await expect(process.ready()).rejects.toThrow(EnvFaultError);
    process.kill();
  });
});
