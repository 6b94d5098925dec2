import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  currentFaultOwner,
  EnvFaultError,
  InvalidOptionsError,
  runOwnedBy,
  runUnowned,
  trackEnvFaultOwners,
  type EnvFaultOwner,
} from '@turngym/core';
import type { SandboxLimits } from './evaluation';
import { SandboxPool } from './sandbox-pool';
import { locateWorkerFiles, SandboxProcess } from './sandbox-process';

const limits: SandboxLimits = { timeMs: 2000, totalTimeMs: 10000, memoryMb: 32, outputChars: 500 };

/** The sandbox workers this test process has started and that are still running. */
function workerPids(): number[] {
  let out = '';
  try {
    out = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'sandbox-worker.js'], { encoding: 'utf8' });
  } catch {
    return []; // pgrep exits with 1 when nothing matches
  }
  return out.split('\n').filter(Boolean).map(Number);
}

/** A process's state letter in /proc (R running, S sleeping, T stopped, Z dead and not yet reaped). */
function stateOf(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? '';
}

/**
 * Until a worker runs a program that spins: running (R) at two looks 20 ms apart, not only reading a message. A worker
 * acknowledges a request before it runs any of it, so by then it has taken the request.
 */
async function untilSpinning(pid: number): Promise<void> {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
  for (;;) {
    if (stateOf(pid) === 'R') {
      await pause();
      if (stateOf(pid) === 'R') return;
    }
    await pause();
  }
}

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

  it('says what is wrong when a test calls a name the module does not export', async () => {
    // The agent named its function `plus`, or exported it as default: the test's import finds nothing to call.
    for (const [setup, source] of [
      ["import { add } from './solution';", 'export function plus(a: number, b: number) { return a + b; }'],
      ["import add from './solution';", 'export function add(a: number, b: number) { return a + b; }'],
    ]) {
      const result = await pool.evaluate({
        files: { 'solution.ts': source as string },
        job: { type: 'tests', snippets: { setup: setup as string, tests: ['expect(add(1, 2)).toBe(3);'] } },
        limits,
      });
      // It said only "TypeError: Cannot read properties of undefined (reading 'call')".
      expect(result.tests[0]?.message).toMatch(
        /^TypeError: Cannot read properties of undefined \(reading 'call'\) \(a call of something undefined: often an imported name that the module does not export/,
      );
    }
  });

  it('says that a TypeScript namespace was removed, where its use fails with "is not defined"', async () => {
    // Valid TypeScript that sucrase compiles by erasing the namespace, values and all.
    const source =
      'export namespace Geometry {\n  export const unit = 1;\n}\nexport function area(w: number, h: number) { return w * h * Geometry.unit; }\n';
    const result = await pool.evaluate({
      files: { 'solution.ts': source },
      job: {
        type: 'tests',
        snippets: { setup: "import { area } from './solution';", tests: ['expect(area(2, 3)).toBe(6);'] },
      },
      limits,
    });
    // It said only "ReferenceError: Geometry is not defined".
    expect(result.tests[0]?.message).toMatch(
      /^ReferenceError: Geometry is not defined \(solution\.ts declares `namespace Geometry`: the sandbox strips TypeScript with sucrase, which removes namespace blocks/,
    );
    const run = await pool.evaluate({
      files: {},
      job: { type: 'run', code: 'namespace Shapes { export const sides = 3; }\nShapes.sides' },
      limits,
    });
    expect(run.run?.error).toMatch(/run\.ts declares `namespace Shapes`/);
    // An undefined name that no namespace declares gets no such hint.
    const plain = await pool.evaluate({ files: {}, job: { type: 'run', code: 'missing + 1' }, limits });
    expect(plain.run?.error).toMatch(/^ReferenceError: missing is not defined$/m);
    expect(plain.run?.error).not.toMatch(/namespace/);
  });

  it("drops what a program stopped at its time limit had queued, instead of running it in the next call's time", async () => {
    const quick: SandboxLimits = { timeMs: 500, totalTimeMs: 10000, memoryMb: 32, outputChars: 500 };
    const spinLater =
      'for (let i = 0; i < 4; i++) Promise.resolve().then(() => { const t = Date.now(); while (Date.now() - t < 300) {} });';
    // The continuations ran when the output was collected, which then ran out of time: the output was lost.
    const run = await pool.evaluate({
      files: {},
      job: { type: 'run', code: `console.log('before the loop');\n${spinLater}\nwhile (true) {}` },
      limits: quick,
    });
    expect(run.run?.status).toBe('timeout');
    expect(run.stdout).toBe('before the loop\n');
    // They ran in the next test, which timed out (and a rejection left unhandled was that test's error).
    const tests = await pool.evaluate({
      files: {
        'a.test.ts': `test('stopped', () => {\n${spinLater}\nPromise.reject(new Error('left behind'));\nwhile (true) {}\n});\ntest('next', () => { expect(1 + 1).toBe(2); });\n`,
      },
      job: { type: 'tests', testFiles: ['a.test.ts'] },
      limits: quick,
    });
    expect(tests.tests.map((test) => [test.name, test.status])).toEqual([
      ['stopped', 'timeout'],
      ['next', 'pass'],
    ]);
  });

  it('loads a TypeScript file that exports again a name it imported with `import type`', async () => {
    // A barrel file as TypeScript users write one. Sucrase removed the type-only imports but kept their exports
    // (`exports.Point = Point`), so loading the file threw "ReferenceError: Point is not defined" and every test
    // importing it failed.
    const files = {
      'src/types.ts': 'export interface Point {\n  x: number;\n  y: number;\n}\nexport type Id = string;\n',
      'src/math.ts':
        "import type { Point } from './types';\nexport function add(a: Point, b: Point): Point {\n  return { x: a.x + b.x, y: a.y + b.y };\n}\n",
      'src/index.ts':
        "import type { Point, Id as Key } from './types';\nimport type * as Types from './types';\nimport type Shape from './types';\nexport { Point, Key, Types };\nexport { add } from './math';\nexport default Shape;\n",
      'src/default.ts': "export default { kind: 'value' };\n",
      'src/type-value.ts': "import type from './default';\nexport { type };\n",
    };
    const result = await pool.evaluate({
      files,
      job: {
        type: 'tests',
        snippets: {
          setup:
            "import { add } from './src/index';\nimport * as all from './src/index';\nimport * as typeValue from './src/type-value';",
          tests: [
            'expect(add({ x: 1, y: 2 }, { x: 3, y: 4 })).toEqual({ x: 4, y: 6 });',
            "expect(Object.keys(all).filter((key) => key !== '__esModule').sort()).toEqual(['add']);",
            // `import type from` imports a value named `type`: it stays exported.
            "expect(typeof typeValue.type).toBe('object');",
          ],
        },
      },
      limits,
    });
    expect(result.compileErrors).toEqual([]);
    expect(result.loadErrors).toEqual([]);
    expect(result.tests.map((test) => [test.status, test.message])).toEqual([
      ['pass', undefined],
      ['pass', undefined],
      ['pass', undefined],
    ]);
  });

  it('refuses auto-accessors as a compile error naming them, where they silently became plain (or instance) fields', async () => {
    // `static accessor count = 0` became an instance field: `Box.count` was undefined, with no error anywhere.
    const box = 'export class Box {\n  accessor value = 1;\n  static accessor count = 0;\n}\n';
    const result = await pool.evaluate({
      files: { 'box.ts': box },
      job: { type: 'run', code: "import { Box } from './box';\nBox.count" },
      limits,
    });
    expect(result.compileErrors).toEqual([
      {
        path: 'box.ts',
        message: expect.stringMatching(
          /^SyntaxError: auto-accessors \(`accessor` class members\) are not supported \(2:3\).*write a private field with a `get` and `set` pair/,
        ),
      },
    ]);
    expect(result.run?.status).toBe('error');
    // A member, variable or loop binding named `accessor` is not an auto-accessor, and one that is only a type (in a
    // `declare class`, or `abstract`) runs nothing.
    const named = await pool.evaluate({
      files: {
        'named.ts':
          'export class C {\n  accessor = 2;\n  static accessor\n  other = 1;\n}\nexport const accessor = 5;\nfor (const accessor of [1]) void accessor;\n' +
          'declare class D {\n  accessor x: number;\n}\nexport abstract class E {\n  abstract accessor y: number;\n}\n',
      },
      job: { type: 'run', code: "import { C, accessor } from './named';\nnew C().accessor + accessor + C.accessor" },
      limits,
    });
    expect(named.compileErrors).toEqual([]);
    expect(named.run).toEqual({ status: 'ok', value: 'NaN' });
  });

  it('rejects evaluations once closed', async () => {
    const closing = new SandboxPool({ workers: 1 });
    const pending = closing.evaluate({ files: {}, job: { type: 'run', code: '1' }, limits });
    await closing.close();
    await expect(pending).rejects.toThrow(EnvFaultError);
    await expect(closing.evaluate({ files: {}, job: { type: 'run', code: '1' }, limits })).rejects.toThrow(/closed/);
  });

  it('rejects an evaluation that was running when the pool closed, instead of blaming the program', async () => {
    const closing = new SandboxPool({ workers: 1 });
    await closing.warm();
    const running = closing.evaluate({ files: {}, job: { type: 'run', code: 'while (true) {}' }, limits });
    await closing.close();
    await expect(running).rejects.toThrow(/sandbox pool was closed during the evaluation/);
    expect(closing.stats.crashes).toBe(0);
  });

  it('rejects with an EnvFaultError when the worker fails in its own code, and goes on working', async () => {
    // A request the worker cannot read (the host never sends one): the worker's code throws, not the program's.
    const broken = { setup: 0, tests: [] } as unknown as { setup: string; tests: string[] };
    await expect(pool.evaluate({ files: {}, job: { type: 'tests', snippets: broken }, limits })).rejects.toThrow(
      EnvFaultError,
    );
    const result = await pool.evaluate({ files: {}, job: { type: 'run', code: '1 + 1' }, limits });
    expect(result.run).toEqual({ status: 'ok', value: '2' });
  });

  it.each(['SIGKILL', 'SIGTERM'] as const)(
    'rejects with a retryable EnvFaultError when its worker is stopped from outside (%s), not blaming the program',
    async (signal) => {
      // As the OOM killer or an operator does: the worker dies of a signal that neither it nor the pool sent.
      const own = new SandboxPool({ workers: 1, graceMs: 60000 });
      try {
        const others = new Set(workerPids());
        await own.warm();
        const pids = workerPids().filter((candidate) => !others.has(candidate));
        expect(pids).toHaveLength(1);
        const pid = pids[0] as number;
        const running = own.evaluate({
          files: {},
          job: { type: 'run', code: 'while (true) {}' },
          limits: { ...limits, timeMs: 60000 },
        });
        // Once it has taken the request: a worker killed before it took one gets it sent to a new one.
        await untilSpinning(pid);
        process.kill(pid, signal);
        const error = await running.then(
          () => undefined,
          (caught: unknown) => caught,
        );
        // It was a result: "the program crashed the sandbox process", scored 0.
        expect(error).toBeInstanceOf(EnvFaultError);
        expect(error).toMatchObject({ isRetryable: true });
        expect((error as Error).message).toMatch(
          new RegExp(`stopped from outside during the evaluation \\(${signal}: .*not by the program`),
        );
        expect(own.stats).toMatchObject({ crashes: 0, kills: 0, stopped: 1 });
        const after = await own.evaluate({ files: {}, job: { type: 'run', code: '1 + 1' }, limits });
        expect(after.run).toEqual({ status: 'ok', value: '2' });
      } finally {
        await own.close();
      }
    },
  );

  it('sends an evaluation to a new worker when its worker died idle before receiving it, instead of blaming the program', async () => {
    // An idle worker killed from outside (the OOM killer, an operator) whose death the pool has not noticed yet, because
    // the host's event loop has not run since: the next evaluation is handed to it. It was answered "the program
    // crashed the sandbox process" for `1 + 1`, which never ran, and an env scored a correct SUBMIT 0.
    const own = new SandboxPool({ workers: 1 });
    try {
      const others = new Set(workerPids());
      await own.warm();
      const [pid] = workerPids().filter((candidate) => !others.has(candidate));
      process.kill(pid as number, 'SIGKILL');
      // Dead (a zombie, not yet reaped by this process, whose event loop is held here), so its channel is closed.
      for (const until = Date.now() + 10000; stateOf(pid as number) !== 'Z' && Date.now() < until;);
      expect(stateOf(pid as number)).toBe('Z');
      const result = await own.evaluate({ files: {}, job: { type: 'run', code: '1 + 1' }, limits });
      expect(result.run).toEqual({ status: 'ok', value: '2' });
      expect(own.stats).toMatchObject({ evaluations: 1, crashes: 0, stopped: 0 });
    } finally {
      await own.close();
    }
  });

  describe('a worker stopped with SIGSTOP (a debugger, job control) is not a program over its time limit', () => {
    const quick: SandboxLimits = { timeMs: 1000, totalTimeMs: 2000, memoryMb: 32, outputChars: 500 };

    it('sends the evaluation to a new worker when the stopped worker never took it', async () => {
      const own = new SandboxPool({ workers: 1, graceMs: 200 });
      try {
        const others = new Set(workerPids());
        await own.warm();
        const [pid] = workerPids().filter((candidate) => !others.has(candidate));
        process.kill(pid as number, 'SIGSTOP');
        // It was "time limit exceeded: the program did not stop at its 1000 ms limit", for `1 + 1`.
        const result = await own.evaluate({ files: {}, job: { type: 'run', code: '1 + 1' }, limits: quick });
        expect(result.run).toEqual({ status: 'ok', value: '2' });
        expect(own.stats).toMatchObject({ kills: 0, stalled: 0, starts: 2 });
      } finally {
        await own.close();
      }
    });

    it('rejects with a retryable EnvFaultError when the worker is stopped while it runs the program', async () => {
      const own = new SandboxPool({ workers: 1, graceMs: 200 });
      try {
        const others = new Set(workerPids());
        await own.warm();
        const [pid] = workerPids().filter((candidate) => !others.has(candidate)) as [number];
        // Stopped well within its own 2000 ms limit, however loaded the machine.
        const running = own.evaluate({
          files: {},
          job: { type: 'run', code: 'while (true) {}' },
          limits: { ...quick, timeMs: 2000, totalTimeMs: 4000 },
        });
        await untilSpinning(pid);
        process.kill(pid, 'SIGSTOP');
        const error = await running.then(
          () => undefined,
          (caught: unknown) => caught,
        );
        // It was a result, "time limit exceeded", scored 0 as the program's.
        expect(error).toBeInstanceOf(EnvFaultError);
        expect(error).toMatchObject({ isRetryable: true });
        expect((error as Error).message).toMatch(/stalled and was killed: the worker was stopped \(SIGSTOP/);
        expect(own.stats).toMatchObject({ kills: 0, stalled: 1 });
        // A program that overruns its limit in a running worker is still its own time limit.
        const overrun = await own.evaluate({
          files: {},
          job: { type: 'run', code: 'Promise.reject({ get message() { while (true) {} } }); 1' },
          limits: quick,
        });
        expect(overrun.run?.error).toMatch(/^time limit exceeded: the program did not stop at its 1000 ms limit/);
        expect(own.stats).toMatchObject({ kills: 1, stalled: 1 });
      } finally {
        await own.close();
      }
    });
  });

  it("still answers a program's own fatal allocation as its memory limit (the worker's own signal)", async () => {
    const own = new SandboxPool({ workers: 1 });
    try {
      const result = await own.evaluate({ files: {}, job: { type: 'run', code: 'new Array(1e9).fill(0)' }, limits });
      expect(result.run?.status).toBe('memory');
      expect(own.stats).toMatchObject({ crashes: 1, stopped: 0 });
    } finally {
      await own.close();
    }
  });

  it('refuses options that would leave the pool unbounded or kill every worker', () => {
    // Number(process.env.X) of an unset variable: NaN workers started one process per queued evaluation.
    expect(() => new SandboxPool({ workers: Number(undefined) })).toThrow(InvalidOptionsError);
    expect(() => new SandboxPool({ workers: Number(undefined) })).toThrow(/sandbox pool.*workers must be integer/);
    expect(() => new SandboxPool({ workers: 0 })).toThrow(/workers must be >= 1/);
    // NaN grace killed every worker at once: `1` came back as "time limit exceeded".
    expect(() => new SandboxPool({ graceMs: Number.NaN })).toThrow(/graceMs must be integer/);
    expect(() => new SandboxPool({ graceMs: -1 })).toThrow(/graceMs must be >= 0/);
    expect(() => new SandboxPool({ recycleRssMb: Number.NaN })).toThrow(/recycleRssMb/);
    expect(() => new SandboxPool({ maxEvaluationsPerWorker: 0 })).toThrow(/maxEvaluationsPerWorker/);
    expect(() => new SandboxPool({ wokers: 2 } as never)).toThrow(/wokers/);
  });

  it('keeps a script alive while warm() starts the workers', () => {
    // Idle workers do not hold the event loop; one being warmed must, or Node exits (status 0) before warm() resolves.
    const poolModule = join(__dirname, '..', '..', 'dist', 'sandbox', 'sandbox-pool.js');
    const script = `const { SandboxPool } = require(${JSON.stringify(poolModule)});
(async () => {
  const pool = new SandboxPool({ workers: 1 });
  await pool.warm();
  process.stdout.write('warm');
  await pool.close();
})();`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })).toBe('warm');
  });
});

describe('SandboxPool shared by the sessions of an env server', () => {
  it("runs its workers, their handlers and the dispatch of queued jobs as no session's code", async () => {
    // As `turngym serve` does: owners are tracked, and each session's env code runs as that session.
    const untrack = trackEnvFaultOwners();
    const pool = new SandboxPool({ workers: 1 });
    const seen: Record<'evaluate' | 'settle', Array<EnvFaultOwner | undefined>> = { evaluate: [], settle: [] };
    const prototype = SandboxProcess.prototype as unknown as Record<
      'evaluate' | 'settle',
      (...args: never[]) => unknown
    >;
    const spies = (['evaluate', 'settle'] as const).map((name) => {
      const original = prototype[name];
      return jest.spyOn(prototype, name).mockImplementation(function (this: { inFlight?: unknown }, ...args: never[]) {
        // (A settle with nothing in flight is the exit of a worker an earlier test retired: a no-op.)
        if (name === 'evaluate' || this.inFlight) seen[name].push(currentFaultOwner());
        return original.apply(this, args);
      });
    });
    try {
      const unowned = runUnowned(currentFaultOwner);
      const sessionA: EnvFaultOwner = { label: 'session A', fail: jest.fn() };
      const sessionB: EnvFaultOwner = { label: 'session B', fail: jest.fn() };
      const evaluateAs = (owner: EnvFaultOwner, code: string) =>
        runOwnedBy(owner, async () => {
          const result = await pool.evaluate({ files: {}, job: { type: 'run', code }, limits });
          return { value: result.run?.value, resumedAs: currentFaultOwner()?.label };
        });
      // A's evaluation starts the only worker; B's waits in the queue and is dispatched when A's is answered.
      expect(await Promise.all([evaluateAs(sessionA, '1 + 1'), evaluateAs(sessionB, '2 + 2')])).toEqual([
        { value: '2', resumedAs: 'session A' },
        { value: '4', resumedAs: 'session B' },
      ]);
      // A fault of B's evaluation is B's: it rejects B's promise, in B's scope.
      const broken = { setup: 0, tests: [] } as unknown as { setup: string; tests: string[] };
      const fault = await runOwnedBy(sessionB, () =>
        pool
          .evaluate({ files: {}, job: { type: 'tests', snippets: broken }, limits })
          .catch((error: unknown) => ({ error, caughtAs: currentFaultOwner()?.label })),
      );
      expect(fault).toEqual({ error: expect.any(EnvFaultError), caughtAs: 'session B' });
      // Before, the worker was A's (it started it) and so was B's job (A's answer dispatched it): a fault of the
      // worker's handlers or watchdog, serving B, closed A.
      expect(unowned).toBeDefined();
      expect(seen.evaluate).toEqual([unowned, unowned, unowned]);
      expect(seen.settle).toEqual([unowned, unowned, unowned]);
      expect(sessionA.fail).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
      untrack();
      await pool.close();
    }
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
