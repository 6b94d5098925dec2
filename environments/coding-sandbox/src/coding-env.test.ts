import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkEnv,
  EnvBusyError,
  EnvFaultError,
  EnvClosedError,
  formatCheckReport,
  InvalidOptionsError,
  RandomAgent,
  Registry,
  runEpisode,
} from '@turngym/core';
import { CodingEnv } from './coding-env';
import { CodingExpert, writeFileAction } from './coding-expert';
import { register } from './register';
import type { EvaluationRequest, EvaluationResult } from './sandbox/evaluation';
import { SandboxPool } from './sandbox/sandbox-pool';
import { InvalidTaskFileError, loadTasks, selectTasks } from './tasks/task-loader';

// One pool for the whole file, with generous limits so that a busy machine cannot fail a correct solution.
const sandbox = new SandboxPool({ workers: 2, graceMs: 10000 });
const slack = { timeLimitMs: 5000, totalTimeLimitMs: 30000 };
afterAll(() => sandbox.close());

const TASK = 'fn/gcd-lcm/gcd';
const FIX = 'fix/shopping-cart/remove-whole-line';

describe('registered ids', () => {
  it('both pass the env checker from a fresh registry', async () => {
    const registry = new Registry();
    register(registry);
    expect(registry.list()).toEqual(['turngym/coding-fix-v1', 'turngym/coding-sandbox-v1']);
    for (const id of registry.list()) {
      const report = await checkEnv(id, { registry, dependencies: { sandbox }, options: slack });
      if (!report.passed) throw new Error(formatCheckReport(report));
    }
  }, 60000);

  it('fix the task kind per id and validate options', async () => {
    const registry = new Registry();
    register(registry);
    await expect(registry.make('turngym/coding-fix-v1', { options: { taskKind: 'function' } })).rejects.toThrow(
      /taskKind is fixed by this id/,
    );
    await expect(registry.make('turngym/coding-sandbox-v1', { options: { maxTurn: 3 } })).rejects.toThrow(
      InvalidOptionsError,
    );
    const env = await registry.make('turngym/coding-fix-v1', { dependencies: { sandbox } });
    const { info } = await env.reset({ seed: 4 });
    expect(info.taskKind).toBe('fix');
    await env.close();
    expect(() => new CodingEnv({ taskId: 'fn/no/such' }, { sandbox })).toThrow(
      /taskId "fn\/no\/such" is not in the task file/,
    );
    await expect(new CodingEnv({}, { sandbox }).reset({ seed: 1, options: { taskId: 'fn/nope/x' } })).rejects.toThrow(
      InvalidOptionsError,
    );
  });
});

describe('baselines', () => {
  it('the scripted expert solves every task (at least 99%)', async () => {
    const tasks = loadTasks();
    const outcomes = await Promise.all(
      tasks.map(async (task, index) => {
        const env = new CodingEnv({ taskKind: task.kind, split: 'all', taskId: task.task_id, ...slack }, { sandbox });
        const outcome = await runEpisode(env, new CodingExpert(env.tasks), index);
        await env.close();
        return { id: task.task_id, ...outcome };
      }),
    );
    const failed = outcomes.filter((outcome) => !outcome.success).map((outcome) => outcome.id);
    expect(failed.length / outcomes.length).toBeLessThanOrEqual(0.01);
    expect(failed).toEqual([]);
    expect(outcomes.every((outcome) => outcome.totalReward === 1)).toBe(true);
  }, 120000);

  it('the random baseline almost never succeeds', async () => {
    for (const taskKind of ['function', 'fix'] as const) {
      const env = new CodingEnv({ taskKind, maxTurns: 8 }, { sandbox });
      let successes = 0;
      for (let seed = 0; seed < 15; seed++)
        successes += (await runEpisode(env, new RandomAgent(seed), seed)).success ? 1 : 0;
      expect(successes).toBe(0);
    }
  }, 60000);
});

describe('an episode', () => {
  const reference = (id: string) => loadTasks().find((task) => task.task_id === id)!;

  it('reports failing tests with expected and actual values, then rewards the fraction of hidden tests passed', async () => {
    const env = new CodingEnv({ taskId: TASK }, { sandbox });
    const { observation, info } = await env.reset({ seed: 1 });
    expect(observation).toContain('export function gcd(a: number, b: number): number');
    expect(info).toMatchObject({
      taskId: TASK,
      taskKind: 'function',
      instructions: expect.stringContaining('WRITE_FILE <path>'),
    });
    // Right for positive numbers only: some hidden tests use negatives and zero.
    await env.step(
      writeFileAction(
        'solution.ts',
        'export function gcd(a: number, b: number): number {\n  while (b !== 0) [a, b] = [b, a % b];\n  return a;\n}\n',
      ),
    );
    const tests = await env.step('RUN_TESTS');
    expect(tests.observation).toMatch(/^RUN_TESTS: 3 of 3 tests passed\./);
    const submit = await env.step('SUBMIT');
    const total = reference(TASK).hidden_tests.length;
    expect(submit).toMatchObject({ terminated: true, info: { success: false, hiddenTotal: total } });
    expect(submit.reward).toBeCloseTo((submit.info.hiddenPassed as number) / total, 10);
    expect(submit.reward).toBeGreaterThan(0.5);
    expect(submit.reward).toBeLessThan(1);
  });

  it('shows expected vs actual for a wrong answer', async () => {
    const env = new CodingEnv({ taskId: TASK }, { sandbox });
    await env.reset({ seed: 1 });
    await env.step(
      writeFileAction(
        'solution.ts',
        'export function gcd(a: number, b: number): number {\n  console.log("gcd", a, b);\n  return a * b;\n}\n',
      ),
    );
    const tests = await env.step('RUN_TESTS');
    expect(tests.observation).toContain('RUN_TESTS: 0 of 3 tests passed.');
    expect(tests.observation).toContain('FAIL expect(gcd(12, 18)).toEqual(6);\n  expected: 6\n  actual:   216');
    expect(tests.observation).toContain('stdout:\ngcd 12 18');
    expect(tests.info).toMatchObject({ testsPassed: 0, testsTotal: 3, anchor: 'failing=all;last=RUN_TESTS' });
  });

  it('with allOrNothing, partial credit is 0', async () => {
    const env = new CodingEnv({ taskId: TASK, allOrNothing: true }, { sandbox });
    await env.reset({ seed: 1 });
    await env.step(
      writeFileAction(
        'solution.ts',
        'export function gcd(a: number, b: number): number {\n  while (b !== 0) [a, b] = [b, a % b];\n  return a;\n}\n',
      ),
    );
    expect((await env.step('SUBMIT')).reward).toBe(0);
  });

  it('applies the format penalty to a submission that does not compile, and to no submission at all', async () => {
    const env = new CodingEnv({ taskId: TASK, maxTurns: 2, formatPenalty: 0.3 }, { sandbox });
    await env.reset({ seed: 1 });
    await env.step(writeFileAction('solution.ts', 'export function gcd(a: number, b: number {\n'));
    const broken = await env.step('SUBMIT');
    expect(broken).toMatchObject({ reward: -0.3, terminated: true, info: { success: false, malformed: true } });
    expect(broken.observation).toMatch(/Compile error in solution\.ts: SyntaxError/);
    await env.reset({ seed: 1 });
    await env.step('READ_FILE(solution.ts)');
    const last = await env.step('RUN_TESTS');
    expect(last).toMatchObject({
      reward: -0.3,
      truncated: true,
      terminated: false,
      info: { success: false, truncatedBy: 'time-limit' },
    });
    expect(last.observation).toContain('Turn limit (2) reached without SUBMIT');
  });

  it('answers malformed actions with feedback and no reward', async () => {
    const env = new CodingEnv({ taskId: TASK }, { sandbox });
    await env.reset({ seed: 1 });
    const result = await env.step('WRITE_FILE solution.ts\nno fence here');
    expect(result).toMatchObject({
      reward: 0,
      terminated: false,
      info: { invalidAction: true, fingerprint: 'INVALID', anchor: 'failing=untested;last=INVALID' },
    });
    expect(result.observation).toMatch(/^Invalid action: WRITE_FILE: put the file content in a fenced code block/);
  });

  it('runs code and files, showing values, output and errors', async () => {
    const env = new CodingEnv({ taskId: TASK, outputLimit: 100 }, { sandbox });
    await env.reset({ seed: 1 });
    await env.step(writeFileAction('main.ts', "console.log('x'.repeat(500));\nthrow new TypeError('boom');\n"));
    const file = await env.step('RUN main.ts');
    expect(file.observation).toContain('RUN main.ts: threw.\n  TypeError: boom\n      at main.ts:2:7');
    expect(file.observation).toContain('stdout (first 100 of 501 characters; the rest was cut):');
    const code = await env.step('RUN\n```ts\nconst xs: number[] = [3, 1, 2];\nxs.sort()\n```');
    expect(code.observation).toBe('RUN (code): finished.\n=> [1, 2, 3]\n\n(no output)');
    expect(code.info.fingerprint).toBe('RUN(code)');
  });
});

describe('hooks', () => {
  it('fingerprint is the action type and its target; anchor is the failing bucket and the last action type', async () => {
    const env = new CodingEnv({ taskKind: 'fix', taskId: FIX }, { sandbox });
    await env.reset({ seed: 2 });
    expect(env.anchor()).toBe('failing=untested;last=START');
    expect(env.fingerprint('EDIT_FILE src/cart.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE')).toBe('EDIT(cart)');
    expect(env.fingerprint('WRITE_FILE src/helper.ts\n```ts\nexport {};\n```')).toBe('WRITE(new)');
    expect(env.fingerprint('READ_FILE(test/cart.test.ts)')).toBe('READ(test)');
    expect(env.fingerprint('RUN src/money.ts')).toBe('RUN(money)');
    expect(env.fingerprint({ name: 'RUN_TESTS', arguments: {} })).toBe('RUN_TESTS');
    expect(env.fingerprint('SUBMIT()')).toBe('SUBMIT');
    expect(env.fingerprint('rm -rf /')).toBe('INVALID');
    const tests = await env.step('RUN_TESTS');
    expect(tests.info.anchor).toBe('failing=some;last=RUN_TESTS');
    const expert = new CodingExpert(env.tasks);
    await expert.start({ seed: 2, spec: env.spec, observation: '', info: { taskId: FIX } });
    const edit = await env.step(await expert.act());
    expect(edit.info).toMatchObject({ fingerprint: 'EDIT(cart)', anchor: 'failing=some;last=EDIT' });
    expect((await env.step('RUN_TESTS')).info.anchor).toBe('failing=none;last=RUN_TESTS');
  });
});

describe('fork', () => {
  it('copies the workspace natively; the fork and the original go their own ways', async () => {
    const env = new CodingEnv({ taskKind: 'fix', taskId: FIX }, { sandbox });
    await env.reset({ seed: 5 });
    await env.step('RUN_TESTS');
    const fork = (await env.fork()) as CodingEnv;
    expect(fork.files()).toEqual(env.files());
    expect(fork.anchor()).toBe(env.anchor());
    const task = selectTasks(env.tasks, { kind: 'fix', split: 'all' }).find((candidate) => candidate.task_id === FIX)!;
    await fork.step(writeFileAction('src/cart.ts', task.canonical_solution['src/cart.ts'] as string));
    const forkSubmit = await fork.step('SUBMIT');
    const originalSubmit = await env.step('SUBMIT');
    expect(forkSubmit.info.success).toBe(true);
    expect(originalSubmit.info.success).toBe(false);
    expect(env.files()['src/cart.ts']).toBe(task.files['src/cart.ts']);
  });

  it('a fork of a finished episode is finished too', async () => {
    const env = new CodingEnv({ taskId: TASK }, { sandbox });
    await env.reset({ seed: 5 });
    await env.step('SUBMIT');
    const fork = await env.fork();
    await expect(fork.step('SUBMIT')).rejects.toThrow(/episode has ended/);
  });

  it('refuses to fork while a step or reset waits for the sandbox, as every BaseEnv does', async () => {
    const env = new CodingEnv({ taskId: TASK }, { sandbox });
    await env.reset({ seed: 5 });
    // The twin was the episode halfway through the SUBMIT: `last=SUBMIT` without the SUBMIT in its history.
    const submitting = env.step('SUBMIT');
    await expect(env.fork()).rejects.toThrow(EnvBusyError);
    await submitting;
    const resetting = env.reset({ seed: 6 });
    await expect(env.fork()).rejects.toThrow(/fork\(\) was called while reset\(\) is still in flight/);
    await resetting;
    // Once idle, it forks.
    expect((await env.fork()).anchor()).toBe('failing=untested;last=START');
  });

  it('keeps its anchor when the sandbox cannot answer a step, which the caller retries', async () => {
    const failing = {
      evaluate: () => Promise.reject(new EnvFaultError('The sandbox worker was stopped from outside')),
    } as unknown as SandboxPool;
    const env = new CodingEnv({ taskId: TASK }, { sandbox: failing });
    await env.reset({ seed: 5 });
    await expect(env.step('RUN_TESTS')).rejects.toThrow(EnvFaultError);
    await expect(env.step('SUBMIT')).rejects.toThrow(EnvFaultError);
    // It said `last=SUBMIT` for an episode with no step in its log; a fork (and a tree keyed by anchors) took that.
    expect(env.anchor()).toBe('failing=untested;last=START');
    expect((await env.fork()).anchor()).toBe('failing=untested;last=START');
  });

  it('refuses to fork a closed env, as every other call on it is refused', async () => {
    const env = new CodingEnv({ taskId: TASK }, { sandbox });
    await env.reset({ seed: 5 });
    await env.close();
    await expect(env.fork()).rejects.toThrow(EnvClosedError);
  });
});

describe("a user's task file", () => {
  const dir = mkdtempSync(join(tmpdir(), 'turngym-coding-tasks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A one-task file: `add(a, b)` with the given hidden tests and solutions. */
  function taskFile(
    name: string,
    hidden: string[],
    canonical = 'a + b',
    wrong = 'a - b',
    overrides: Record<string, unknown> = {},
  ): string {
    const solution = (body: string) => ({
      'solution.ts': `export function add(a: number, b: number): number { return ${body}; }\n`,
    });
    const task = {
      task_id: `fn/peer-add/${name}`,
      kind: 'function',
      split: 'test',
      difficulty: 'easy',
      category: 'math',
      family: 'peer-add',
      language: 'typescript',
      prompt: 'Implement `add(a, b)` in solution.ts and export it.',
      entry_point: 'add',
      files: solution("(() => { throw new Error('todo'); })()"),
      canonical_solution: solution(canonical),
      wrong_solution: solution(wrong),
      test_setup_code: "import { add } from './solution';",
      visible_tests: ['expect(add(1, 2)).toBe(3);'],
      // Hidden ⊇ visible, as the format requires.
      hidden_tests: ['expect(add(1, 2)).toBe(3);', ...hidden],
      ...overrides,
    };
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, `${JSON.stringify(task)}\n`);
    return path;
  }
  const reset = async (tasksFile: string) =>
    new CodingEnv({ tasksFile, split: 'test', ...slack }, { sandbox }).reset({ seed: 1 });

  it('plays a task whose reference passes its hidden tests and whose wrong solution does not', async () => {
    const env = new CodingEnv(
      { tasksFile: taskFile('good', ['expect(add(2, 2)).toBe(4);']), split: 'test', ...slack },
      { sandbox },
    );
    await env.reset({ seed: 1 });
    await env.step(writeFileAction('solution.ts', 'export const add = (a: number, b: number) => a + b;\n'));
    expect((await env.step('SUBMIT')).reward).toBe(1);
  });

  it('refuses a task whose hidden tests are Jest-style blocks, which used to pass without running', async () => {
    await expect(reset(taskFile('it-block', ["it('adds', () => { expect(add(1, 2)).toBe(3); });"]))).rejects.toThrow(
      /task fn\/peer-add\/it-block: its canonical_solution passes 1 of 2 hidden tests \(.*it\(\) cannot be called inside a running test/,
    );
    await expect(
      reset(taskFile('describe-block', ["describe('add', () => { expect(add(1, 2)).toBe(3); });"])),
    ).rejects.toThrow(/describe\(\) cannot be called inside a running test/);
  });

  it('refuses a task whose reference fails its own tests, and one whose tests pass the wrong solution', async () => {
    await expect(reset(taskFile('bad-reference', ['expect(add(1, 2)).toBe(4);']))).rejects.toThrow(
      /bad-reference\.jsonl: task fn\/peer-add\/bad-reference: its canonical_solution passes 1 of 2 hidden tests/,
    );
    const weak = { visible_tests: ['expect(add(0, 0)).toBe(0);'], hidden_tests: ['expect(add(0, 0)).toBe(0);'] };
    await expect(reset(taskFile('weak-tests', [], 'a + b', 'a - b', weak))).rejects.toThrow(
      /task fn\/peer-add\/weak-tests: its wrong_solution passes all 1 hidden tests/,
    );
  });

  it('refuses a task whose reference fails a visible test or a test file that RUN_TESTS shows the agent', async () => {
    const hidden = ['expect(add(2, 2)).toBe(4);'];
    // A visible snippet is a hidden one too (checked when the file is read), so a wrong one fails the hidden tests.
    await expect(
      reset(taskFile('bad-visible', hidden, 'a + b', 'a - b', { visible_tests: ['expect(add(1, 2)).toBe(4);'] })),
    ).rejects.toThrow(
      /task fn\/peer-add\/bad-visible: visible test "expect\(add\(1, 2\)\)\.toBe\(4\);" is not in hidden_tests/,
    );
    const testFile = "import { add } from '../solution';\ntest('adds', () => expect(add(2, 3)).toBe(6));\n";
    const files = { 'solution.ts': 'export function add(a: number, b: number): number { return 0; }\n' };
    await expect(
      reset(taskFile('bad-test-file', hidden, 'a + b', 'a - b', { files: { ...files, 'test/add.test.ts': testFile } })),
    ).rejects.toThrow(/its canonical_solution passes 1 of 2 visible tests \(RUN_TESTS\) \(adds: toBe failed\)/);
  });

  it('checks again a task whose reference was stopped by a time limit, which a busy moment can cause', async () => {
    // The first evaluation answers as a busy machine would; the ones after it run for real.
    let calls = 0;
    const busyOnce = {
      evaluate: async (request: EvaluationRequest): Promise<EvaluationResult> => {
        calls += 1;
        const result = await sandbox.evaluate(request);
        if (calls > 1) return result;
        const message = 'time limit exceeded: stopped after 5000 ms (infinite loop, or too slow)';
        return { ...result, tests: result.tests.map((test) => ({ ...test, status: 'timeout' as const, message })) };
      },
    } as unknown as SandboxPool;
    const tasksFile = taskFile('busy', ['expect(add(2, 2)).toBe(4);']);
    const make = () => new CodingEnv({ tasksFile, split: 'test', ...slack }, { sandbox: busyOnce });
    await expect(make().reset({ seed: 1 })).rejects.toThrow(
      /passes 0 of 2 hidden tests .*time limit exceeded.*checked again at the next reset/,
    );
    const { info } = await make().reset({ seed: 1 });
    expect(info.taskId).toBe('fn/peer-add/busy');
  });

  it('refuses a reference that does not fit its time limits twice over, naming the time and the limit', async () => {
    // Wall-clock spins: at least this long whatever the load, well under the limit on any machine.
    const spin = (ms: number) => `((end: number) => { while (Date.now() < end); return a + b; })(Date.now() + ${ms})`;
    const limits = { timeLimitMs: 1000, totalTimeLimitMs: 30000 };
    const slowOne = taskFile('slow-test', ['expect(add(2, 2)).toBe(4);'], spin(600));
    const error = await new CodingEnv({ tasksFile: slowOne, split: 'test', ...limits }, { sandbox })
      .reset({ seed: 1 })
      .catch((caught: unknown) => caught);
    // It was played: an agent's solution as fast as the reference passed or timed out with the machine's load.
    expect(error).toBeInstanceOf(InvalidTaskFileError);
    expect((error as Error).message).toMatch(
      /task fn\/peer-add\/slow-test: its canonical_solution took (\d+) ms on the hidden test "expect\(add\([12], 2\)\)\.toBe\([34]\);", more than 1\/2 of its 1000 ms limit \(timeLimitMs\)/,
    );
    const measured = Number(/took (\d+) ms/.exec((error as Error).message)?.[1]);
    expect(measured).toBeGreaterThanOrEqual(600);
    const fourSlow = Array.from({ length: 4 }, (_, i) => `expect(add(${i}, 1)).toBe(${i + 1});`);
    const slowTotal = taskFile('slow-total', fourSlow, spin(200));
    await expect(
      new CodingEnv(
        { tasksFile: slowTotal, split: 'test', timeLimitMs: 1000, totalTimeLimitMs: 1500 },
        { sandbox },
      ).reset({ seed: 1 }),
    ).rejects.toThrow(
      /slow-total: its canonical_solution took \d+ ms for its 5 hidden tests together, more than 1\/2 of the 1500 ms budget of a run \(totalTimeLimitMs\).*checked again at the next reset/,
    );
  });

  it('checks a task again under tighter limits than it was checked under', async () => {
    const spin = `((end: number) => { while (Date.now() < end); return a + b; })(Date.now() + 600)`;
    const tasksFile = taskFile('limits-keyed', ['expect(add(2, 2)).toBe(4);'], spin);
    await new CodingEnv({ tasksFile, split: 'test', ...slack }, { sandbox }).reset({ seed: 1 });
    // The check under 5000 ms passed; under 1000 ms the same reference does not fit twice over. It was not checked
    // again (one check per task), so the tighter env played it.
    await expect(
      new CodingEnv({ tasksFile, split: 'test', ...slack, timeLimitMs: 1000 }, { sandbox }).reset({ seed: 1 }),
    ).rejects.toThrow(/limits-keyed: its canonical_solution took \d+ ms on the hidden test .* 1000 ms limit/);
  });

  it('refuses a reference that an agent could not write into its workspace', async () => {
    const big = {
      'solution.ts': `// ${'x'.repeat(25000)}\nexport function add(a: number, b: number): number { return a + b; }\n`,
    };
    const tasksFile = taskFile('too-big', [], 'a + b', 'a - b', { canonical_solution: big });
    // It was played: WRITE_FILE refused the reference, and the scripted expert scored 0.
    await expect(reset(tasksFile)).rejects.toThrow(
      /too-big: its canonical_solution's solution\.ts has 25\d{3} characters, more than the 20000 a workspace file may hold \(maxFileChars\)/,
    );
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra/f${i}.ts`, 'export {};\n']));
    const crowded = taskFile('too-many', [], 'a + b', 'a - b', {
      canonical_solution: { 'solution.ts': 'export const add = (a: number, b: number) => a + b;\n', ...many },
    });
    await expect(reset(crowded)).rejects.toThrow(
      /too-many: its canonical_solution needs 31 files in the workspace, more than the 30 it may hold \(maxFiles\)/,
    );
    // Within a client's smaller limit too: the check holds for the env's own limits.
    await expect(
      new CodingEnv(
        { tasksFile: taskFile('small', []), split: 'test', ...slack, maxFileChars: 100 },
        { sandbox },
      ).reset({
        seed: 1,
      }),
    ).resolves.toBeDefined();
  });

  it('reads a task file again once it is rewritten, so a fixed task is played (and checked) as it now is', async () => {
    const tasksFile = taskFile('rewritten', ['expect(add(2, 2)).toBe(4);'], 'a * 3');
    await expect(reset(tasksFile)).rejects.toThrow(/rewritten: its canonical_solution passes 1 of 2 hidden tests/);
    taskFile('rewritten', ['expect(add(2, 2)).toBe(4);', 'expect(add(1, 5)).toBe(6);'], 'a + b');
    const env = new CodingEnv({ tasksFile, split: 'test', ...slack }, { sandbox });
    await env.reset({ seed: 1 });
    expect(env.task?.hidden_tests).toHaveLength(3);
    await env.step(writeFileAction('solution.ts', 'export const add = (a: number, b: number) => a + b;\n'));
    expect((await env.step('SUBMIT')).info).toMatchObject({ hiddenPassed: 3, hiddenTotal: 3 });
  });

  it('refuses a task whose reference is scored as malformed (a starting file that does not compile)', async () => {
    const files = {
      'solution.ts': 'export function add(a: number, b: number): number { return 0; }\n',
      'notes.js': 'const total: number = 1;\n', // TypeScript in a .js file
    };
    await expect(
      reset(taskFile('malformed', ['expect(add(2, 2)).toBe(4);'], 'a + b', 'a - b', { files })),
    ).rejects.toThrow(
      /task fn\/peer-add\/malformed: its canonical_solution is scored as malformed, with the format penalty \(notes\.js: SyntaxError/,
    );
  });
});
