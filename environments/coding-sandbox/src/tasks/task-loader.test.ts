import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTasks, tasksToJsonl } from './generator/build-tasks';
import { DEFAULT_TASKS_FILE, InvalidTaskFileError, loadTasks, parseTasks, selectTasks } from './task-loader';

describe('the bundled task file', () => {
  const tasks = loadTasks();

  it('is what the generator produces (run `npm run build:tasks` after changing a family)', () => {
    expect(readFileSync(DEFAULT_TASKS_FILE, 'utf8')).toBe(tasksToJsonl(buildTasks()));
  });

  it('has at least 150 function problems over every category and difficulty, and fix-the-test tasks', () => {
    const functions = selectTasks(tasks, { kind: 'function', split: 'all' });
    expect(functions.length).toBeGreaterThanOrEqual(150);
    expect(new Set(functions.map((task) => task.category))).toEqual(
      new Set(['strings', 'arrays', 'math', 'parsing', 'data-structures', 'algorithms']),
    );
    for (const difficulty of ['easy', 'medium', 'hard'] as const)
      expect(selectTasks(functions, { difficulty }).length).toBeGreaterThanOrEqual(10);
    expect(functions.filter((task) => task.language === 'javascript').length).toBeGreaterThanOrEqual(20);
    const fixes = selectTasks(tasks, { kind: 'fix', split: 'all' });
    expect(fixes.length).toBeGreaterThanOrEqual(20);
    expect(fixes.every((task) => Object.keys(task.files).length >= 3)).toBe(true);
  });

  it('has disjoint train and test splits: no family, prompt or solution in both', () => {
    const families = new Map<string, Set<string>>();
    for (const task of tasks) families.set(task.family, (families.get(task.family) ?? new Set()).add(task.split));
    expect([...families.entries()].filter(([, splits]) => splits.size > 1)).toEqual([]);
    for (const key of ['prompt', 'task_id'] as const)
      expect(new Set(tasks.map((task) => task[key])).size).toBe(tasks.length);
    const train = new Set(
      selectTasks(tasks, { split: 'train' }).map((task) => JSON.stringify(task.canonical_solution)),
    );
    expect(
      selectTasks(tasks, { split: 'test' }).filter((task) => train.has(JSON.stringify(task.canonical_solution))),
    ).toEqual([]);
    for (const kind of ['function', 'fix'] as const) {
      const test = selectTasks(tasks, { kind, split: 'test' }).length;
      expect(test / selectTasks(tasks, { kind, split: 'all' }).length).toBeGreaterThan(0.15);
    }
  });

  it('gives every task hidden tests beyond its visible ones', () => {
    for (const task of tasks) {
      expect(task.hidden_tests.length).toBeGreaterThan(task.visible_tests.length);
      for (const test of task.visible_tests) expect(task.hidden_tests).toContain(test);
    }
  });
});

describe('parseTasks', () => {
  const valid = loadTasks()[0] as object;

  it('reads a file with a byte-order mark and CRLF line ends', () => {
    const text = `\uFEFF${JSON.stringify(valid)}\r\n${JSON.stringify({ ...valid, task_id: 'fn/x/bom' })}\r\n`;
    expect(parseTasks(text, 'bom.jsonl').map((task) => task.task_id)).toEqual([
      (valid as { task_id: string }).task_id,
      'fn/x/bom',
    ]);
  });

  it('names the line and the field of every problem', () => {
    const bad = { ...valid, task_id: 'fn/x/y', difficulty: 'extreme' };
    const { hidden_tests: _, ...missing } = { ...valid, task_id: 'fn/x/z' } as Record<string, unknown>;
    const text = [
      JSON.stringify(valid),
      '',
      JSON.stringify(bad),
      'not json',
      JSON.stringify(missing),
      JSON.stringify(valid),
    ].join('\n');
    let error: unknown;
    try {
      parseTasks(text, 'tasks.jsonl');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidTaskFileError);
    const problems = (error as InvalidTaskFileError).problems;
    expect(problems).toEqual([
      expect.stringMatching(/^line 3: task\.difficulty must be one of: "easy", "medium", "hard"/),
      expect.stringMatching(/^line 4: not JSON/),
      expect.stringMatching(/^line 5: task\.hidden_tests is required/),
      expect.stringMatching(/^line 6: duplicate task_id/),
    ]);
    expect((error as Error).message).toContain('Invalid coding task file tasks.jsonl');
  });

  it('refuses file paths the workspace refuses, with the rule in words', () => {
    const withFiles = (id: string, field: string, path: string): string =>
      JSON.stringify({ ...valid, task_id: `fn/paths/${id}`, [field]: { [path]: 'export {};' } });
    const text = [
      withFiles('up', 'files', '../solution.ts'),
      withFiles('through', 'canonical_solution', 'src/../../x.ts'),
      withFiles('dot', 'wrong_solution', './solution.ts'),
      withFiles('reserved', 'files', '__tests__.ts'),
    ].join('\n');
    let error: unknown;
    try {
      parseTasks(text, 'paths.jsonl');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidTaskFileError);
    const rule =
      'must be workspace paths: relative, ASCII letters, digits, "_", "." and "-" between "/", no "." or ".." part';
    expect((error as InvalidTaskFileError).problems).toEqual([
      expect.stringContaining(`line 1: task.files ${rule}`),
      expect.stringContaining(`line 2: task.canonical_solution ${rule}`),
      expect.stringContaining(`line 3: task.wrong_solution ${rule}`),
      expect.stringContaining(`line 4: task.files ${rule}`),
    ]);
    expect((error as InvalidTaskFileError).problems.join('\n')).not.toMatch(/pattern|property name/);
  });

  it('says so when the file is one JSON document (an array, or a task over several lines) instead of JSON Lines', () => {
    const problemsOf = (text: string): readonly string[] => {
      try {
        parseTasks(text, 'tasks.json');
      } catch (error) {
        return (error as InvalidTaskFileError).problems;
      }
      return [];
    };
    const array = 'the file is a JSON array (of 2 items), not JSON Lines: write each task as one JSON object on a line';
    expect(problemsOf(JSON.stringify([valid, valid], null, 2))).toEqual([expect.stringContaining(array)]);
    expect(problemsOf(JSON.stringify([valid, valid]))).toEqual([expect.stringContaining(array)]);
    expect(problemsOf(JSON.stringify(valid, null, 2))).toEqual([
      expect.stringContaining('the file is one JSON object over several lines, not JSON Lines'),
    ]);
  });

  it('refuses a task whose visible test is not among its hidden tests, naming the task and the test', () => {
    const task = valid as { task_id: string; visible_tests: string[]; hidden_tests: string[] };
    const dropped = task.visible_tests[0] as string;
    const hidden = task.hidden_tests.filter((test) => test !== dropped);
    const text = JSON.stringify({ ...task, task_id: 'fn/peer/visible-only', hidden_tests: hidden });
    expect(() => parseTasks(text, 'peer.jsonl')).toThrow(InvalidTaskFileError);
    expect(() => parseTasks(text, 'peer.jsonl')).toThrow(
      `line 1: task fn/peer/visible-only: visible test ${JSON.stringify(dropped.slice(0, 120))} is not in hidden_tests`,
    );
    // The same test written with CRLF line ends in one copy is the same test.
    const crlf = { ...task, visible_tests: task.visible_tests.map((test) => `${test.replace(/\n/g, '\r\n')}\r\n`) };
    expect(parseTasks(JSON.stringify(crlf))).toHaveLength(1);
  });

  it('reads a UTF-16 file with its byte-order mark (PowerShell 5 writes one), and says what a NUL-filled file is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-utf16-'));
    try {
      const text = `${JSON.stringify(valid)}\r\n${JSON.stringify({ ...valid, task_id: 'fn/x/utf16' })}\r\n`;
      const little = join(dir, 'little.jsonl');
      writeFileSync(little, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
      // It was "line 1: not JSON (Unexpected token '�' …)" for every line.
      expect(loadTasks(little).map((task) => task.task_id)).toEqual([
        (valid as { task_id: string }).task_id,
        'fn/x/utf16',
      ]);
      const big = join(dir, 'big.jsonl');
      writeFileSync(big, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
      expect(loadTasks(big)).toHaveLength(2);
      const bare = join(dir, 'bare.jsonl');
      writeFileSync(bare, Buffer.from(text, 'utf16le'));
      expect(() => loadTasks(bare)).toThrow(
        /bare\.jsonl: it holds NUL characters, as UTF-16 text without a byte-order mark/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names another project's format (HumanEval, MBPP, APPS, LiveCodeBench …) and how to convert it, once per format", () => {
    const humanEval = (id: number) =>
      JSON.stringify({
        task_id: `HumanEval/${id}`,
        prompt: 'def f(x):\n',
        canonical_solution: '    return x\n',
        test: 'def check(candidate):\n    assert candidate(1) == 1\n',
        entry_point: 'f',
      });
    const apps = JSON.stringify({
      problem_id: 7,
      question: 'Read two integers and print their sum.',
      solutions: '["print(sum(map(int, input().split())))"]',
      input_output: '{"inputs": ["1 2\\n"], "outputs": ["3\\n"]}',
    });
    const problemsOf = (text: string): readonly string[] => {
      try {
        parseTasks(text, 'peer.jsonl');
      } catch (error) {
        return (error as InvalidTaskFileError).problems;
      }
      throw new Error('not refused');
    };
    // Each line was ajv's list of the 11 fields it lacks and the ones it has, over 600 characters, five to a message.
    expect(problemsOf([humanEval(0), humanEval(1), apps].join('\n'))).toEqual([
      expect.stringMatching(
        /^line 1: in the HumanEval format \(it has test, entry_point\), not this env's: convert it to a line with task_id "fn\/<family>\/<variant>", kind, .*its tests become JavaScript snippets/,
      ),
      'line 2: also in the HumanEval format',
      expect.stringMatching(/^line 3: in the APPS format .*the sandbox has no stdin or stdout to compare/),
    ]);
    const mbpp = { task_id: 11, text: 'Write a function.', code: 'def f(): pass', test_list: ['assert f() == 1'] };
    expect(problemsOf(JSON.stringify(mbpp))).toEqual([expect.stringMatching(/^line 1: in the MBPP format/)]);
  });

  it('refuses a file that holds no tasks, instead of a file of none', () => {
    // The env then said `no function task matches split "train" and difficulty "any"`, as if the options were wrong.
    expect(() => parseTasks('\n  \n', 'empty.jsonl')).toThrow(
      'Invalid coding task file empty.jsonl: it holds no tasks (it is empty, or only blank lines)',
    );
    expect(() => parseTasks('', 'empty.jsonl')).toThrow(/it holds no tasks/);
  });

  it('reads a valid file, skipping blank lines', () => {
    expect(parseTasks(`\n${JSON.stringify(valid)}\n\n`)).toHaveLength(1);
  });
});
