import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compileValidator, TurnGymError, withoutByteOrderMark } from '@turngym/core';
import { PATH_PATTERN } from '../coding-tools';
import { codingTaskSchema, type CodingTask, type Difficulty, type TaskKind, type TaskSplit } from './coding-task';

/** The task file shipped with the package (`data/tasks.jsonl`, written by `npm run build:tasks`). */
export const DEFAULT_TASKS_FILE = join(__dirname, '..', '..', 'data', 'tasks.jsonl');

/** A task file that does not follow the documented format. */
export class InvalidTaskFileError extends TurnGymError {
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(
      'INVALID_TASKS',
      `Invalid coding task file ${source}: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; … ${problems.length - 5} more` : ''}`,
    );
  }
}

// ajv quotes PATH_PATTERN, lookaheads and all, and then says once more that the property name is invalid: the rule in
// words instead, once.
const PATH_PATTERN_WORDS = `must match pattern "${PATH_PATTERN}"`;
const PATH_RULE =
  'must be workspace paths: relative, ASCII letters, digits, "_", "." and "-" between "/", no "." or ".." part, not starting with "__"';

function readable(problems: readonly string[]): string[] {
  return problems
    .filter((problem) => !/ property name must be valid \(got /.test(problem))
    .map((problem) => problem.replace(PATH_PATTERN_WORDS, PATH_RULE));
}

const validateTask = compileValidator<CodingTask>(
  codingTaskSchema,
  (problems) => new InvalidTaskFileError('', problems),
  'task',
);

/**
 * The one problem of a file that is a single JSON document instead of JSON Lines: a JSON array of tasks, or a task
 * written over several lines. Read line by line, such a file gave a "not JSON" for every line of it (or "task must be
 * object" for an array on one line), which does not say what to change.
 */
function wholeDocumentProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[') && !(trimmed.startsWith('{') && trimmed.includes('\n'))) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  const what = Array.isArray(value) ? `a JSON array (of ${value.length} items)` : 'one JSON object over several lines';
  return `the file is ${what}, not JSON Lines: write each task as one JSON object on a line of its own (jq -c '.[]' turns an array into that)`;
}

/**
 * The first visible test that is not also a hidden one. The format says hidden ⊇ visible, and it was not checked: a
 * visible test left out of `hidden_tests` showed the agent a requirement the reward never checks (and a typo in one
 * copy, a visible test that contradicts the hidden one). Line ends and surrounding blanks do not count, as a CRLF
 * editor may have rewritten one copy.
 */
function missingVisibleTest(task: CodingTask): string | undefined {
  const normal = (test: string): string => test.replace(/\r\n?/g, '\n').trim();
  const hidden = new Set(task.hidden_tests.map(normal));
  return task.visible_tests.find((test) => !hidden.has(normal(test)));
}

/**
 * Other projects' task formats, each by the fields that tell it apart. A line of one of them gave ajv's list of every
 * field it lacks and every field it has (over 600 characters for a HumanEval line, five lines to a message), which
 * does not say that the whole file is in another format, nor how to bring it to this one.
 */
const FOREIGN_FORMATS: readonly { name: string; fields: readonly string[]; stdio: boolean }[] = [
  { name: 'HumanEval', fields: ['test', 'entry_point'], stdio: false },
  { name: 'MultiPL-E', fields: ['tests', 'stop_tokens'], stdio: false },
  { name: 'MBPP', fields: ['test_list', 'code'], stdio: false },
  { name: 'MBPP (sanitized)', fields: ['test_list', 'test_imports'], stdio: false },
  { name: 'APPS', fields: ['question', 'input_output'], stdio: true },
  { name: 'LiveCodeBench', fields: ['question_content', 'public_test_cases'], stdio: true },
  { name: 'CodeContests', fields: ['description', 'public_tests'], stdio: true },
];

/** The other project's format a line is in, if it is one. */
function foreignFormatOf(value: unknown): (typeof FOREIGN_FORMATS)[number] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return FOREIGN_FORMATS.find(({ fields }) => fields.every((field) => Object.hasOwn(value, field)));
}

/** What to do with a line of another project's format. */
function foreignFormatProblem(format: (typeof FOREIGN_FORMATS)[number]): string {
  const cases = format.stdio
    ? 'the sandbox has no stdin or stdout to compare, so write each input/output pair as a snippet that calls a function (`expect(solve("1 2\\n")).toBe("3\\n");`)'
    : 'its tests become JavaScript snippets (`expect(f(1)).toBe(2);` or `assert.deepEqual(…)`), one per string of visible_tests/hidden_tests';
  return `in the ${format.name} format (it has ${format.fields.join(', ')}), not this env's: convert it to a line with task_id "fn/<family>/<variant>", kind, split, difficulty, category, family, language (javascript or typescript), prompt, entry_point, files/canonical_solution/wrong_solution as path → text, test_setup_code and visible_tests/hidden_tests (README, "The task format"); ${cases}`;
}

/** Parses JSONL text (one task per line; blank lines allowed), validating every line against the schema. */
export function parseTasks(text: string, source = 'tasks'): CodingTask[] {
  const tasks: CodingTask[] = [];
  const problems: string[] = [];
  const ids = new Set<string>();
  const foreignSeen = new Set<string>();
  // A byte-order mark (editors on Windows write one) is not part of the first line's JSON.
  const content = withoutByteOrderMark(text);
  const whole = wholeDocumentProblem(content);
  if (whole !== undefined) throw new InvalidTaskFileError(source, [whole]);
  content.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push(`${where}: not JSON (${(error as Error).message})`);
      return;
    }
    const foreign = foreignFormatOf(value);
    if (foreign !== undefined) {
      // The advice once per format; further lines of it only say so (a converted file changes them all).
      problems.push(
        `${where}: ${foreignSeen.has(foreign.name) ? `also in the ${foreign.name} format` : foreignFormatProblem(foreign)}`,
      );
      foreignSeen.add(foreign.name);
      return;
    }
    try {
      const task = validateTask(value);
      if (ids.has(task.task_id)) problems.push(`${where}: duplicate task_id ${task.task_id}`);
      else if (task.kind === 'function' && task.visible_tests.length === 0)
        problems.push(`${where}: a function task needs visible_tests`);
      else {
        const missing = missingVisibleTest(task);
        if (missing !== undefined)
          problems.push(
            `${where}: task ${task.task_id}: visible test ${JSON.stringify(missing.slice(0, 120))} is not in hidden_tests (SUBMIT grades on hidden_tests only, so a visible test must be one of them)`,
          );
      }
      ids.add(task.task_id);
      tasks.push(task);
    } catch (error) {
      const detail =
        error instanceof InvalidTaskFileError ? readable(error.problems).join('; ') : (error as Error).message;
      problems.push(`${where}: ${detail}`);
    }
  });
  if (problems.length > 0) throw new InvalidTaskFileError(source, problems);
  // An empty file was read as a file of no tasks, and the env then said `no function task matches split "train" and
  // difficulty "any"`, as if the options were wrong.
  if (tasks.length === 0)
    throw new InvalidTaskFileError(source, ['it holds no tasks (it is empty, or only blank lines)']);
  return tasks;
}

/**
 * The text of a task file: UTF-8, or UTF-16 with its byte-order mark. Windows PowerShell 5's `Out-File` and `>` write
 * UTF-16LE, which read as UTF-8 gave a "not JSON (Unexpected token '�' …)" for every line, naming nothing to change.
 */
function decodeTaskFile(bytes: Buffer, source: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    // Big-endian: swapped to little-endian (a dangling odd byte is no character).
    const even = bytes.length - (bytes.length % 2);
    return Buffer.from(bytes.subarray(2, even)).swap16().toString('utf16le');
  }
  const text = bytes.toString('utf8');
  if (text.includes('\u0000')) {
    throw new InvalidTaskFileError(source, [
      'it holds NUL characters, as UTF-16 text without a byte-order mark does: save it as UTF-8 (JSON Lines)',
    ]);
  }
  return text;
}

interface CachedFile {
  readonly mtimeMs: number;
  readonly size: number;
  readonly tasks: readonly CodingTask[];
}
const cache = new Map<string, CachedFile>();

/**
 * Loads and validates a task file (default: the bundled one), once per path and version of the file: a file
 * rewritten since (another size or modification time) is read again. It was read once per process, so a long-running
 * process (a server, a notebook, a training script that regenerates its tasks) played the old tasks without a word.
 */
export function loadTasks(path: string = DEFAULT_TASKS_FILE): readonly CodingTask[] {
  const cannotRead = (error: unknown) =>
    new InvalidTaskFileError(path, [`cannot read it (${(error as Error).message})`]);
  let version: { mtimeMs: number; size: number };
  try {
    version = statSync(path);
  } catch (error) {
    throw cannotRead(error);
  }
  const cached = cache.get(path);
  if (cached && cached.mtimeMs === version.mtimeMs && cached.size === version.size) return cached.tasks;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw cannotRead(error);
  }
  const tasks = Object.freeze(parseTasks(decodeTaskFile(bytes, path), path));
  cache.set(path, { mtimeMs: version.mtimeMs, size: version.size, tasks });
  return tasks;
}

export interface TaskFilter {
  kind?: TaskKind;
  split?: TaskSplit | 'all';
  difficulty?: Difficulty | 'any';
}

/** The tasks matching a filter, in file order (stable, so a seed picks the same task across runs). */
export function selectTasks(tasks: readonly CodingTask[], filter: TaskFilter): CodingTask[] {
  return tasks.filter(
    (task) =>
      (filter.kind === undefined || task.kind === filter.kind) &&
      (filter.split === undefined || filter.split === 'all' || task.split === filter.split) &&
      (filter.difficulty === undefined || filter.difficulty === 'any' || task.difficulty === filter.difficulty),
  );
}
