import { existsSync, rmSync } from 'node:fs';
import { formatRunReport } from '../observations';
import { ADVERSARIAL_PROGRAMS } from './adversarial-programs';
import type { SandboxLimits } from './evaluation';
import { SandboxPool } from './sandbox-pool';

const limits: SandboxLimits = { timeMs: 250, totalTimeMs: 2000, memoryMb: 32, outputChars: 2000 };
const PWNED = '/tmp/turngym-sandbox-pwned';
const pool = new SandboxPool({ workers: 2, graceMs: 1500 });

beforeAll(() => rmSync(PWNED, { force: true }));
afterAll(() => pool.close());

const run = async (code: string, files: Record<string, string> = {}): Promise<string> =>
  formatRunReport('(code)', await pool.evaluate({ files, job: { type: 'run', code }, limits }));

describe('every adversarial program is stopped or harmless, with a clear message', () => {
  it.each(ADVERSARIAL_PROGRAMS.map((program) => [`${program.threat}: ${program.name}`, program] as const))(
    '%s',
    async (_label, program) => {
      expect(await run(program.code)).toMatch(program.expect);
    },
  );
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
