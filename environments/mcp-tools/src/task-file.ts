import { readFileSync } from 'node:fs';
import { ajv, describeErrors, nestsDeeperThan } from '@turngym/core';
import { compileCheck, type AnswerCheck } from './answer-check';
import { TaskFileError } from './task-file-error';

/** A tool call as a task file writes it. */
export interface TaskCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/** One task as the file holds it (see the README's "Task files"). */
export interface TaskRecord {
  /** Unique within the file; `reset({ options: { task } })` picks a task by it (or by index). */
  id: string;
  /** What the agent is asked: the first observation. */
  prompt: string;
  /** The right answer (compared as text, case and spacing aside, or as a number). */
  expected?: string | number;
  /** A check over the answer, the calls and the probe (see answer-check.ts); with `expected`, both must hold. */
  check?: unknown;
  /** Calls made at reset, before the agent's first turn (state the task needs). Not turns. */
  setup?: TaskCall[];
  /** A call made after the answer; its result is the check's `$.probe`. */
  probe?: TaskCall;
  /** A known solution (calls, then the answer): the scripted baseline plays it. */
  solution?: { calls: TaskCall[]; answer: string };
}

/** A task ready to play: its record, its compiled check, and where the file holds it. */
export interface Task extends TaskRecord {
  readonly score: AnswerCheck;
  readonly file: string;
  /** Its line in a JSON Lines file; undefined in a JSON array. */
  readonly line: number | undefined;
}

const call = {
  type: 'object',
  additionalProperties: false,
  required: ['tool'],
  properties: { tool: { type: 'string', minLength: 1 }, arguments: { type: 'object', default: {} } },
} as const;

const validateRecord = ajv.compile({
  type: 'object',
  additionalProperties: false,
  required: ['id', 'prompt'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    prompt: { type: 'string', minLength: 1 },
    expected: { type: ['string', 'number'] },
    check: { type: 'object' },
    setup: { type: 'array', items: call },
    probe: call,
    solution: {
      type: 'object',
      additionalProperties: false,
      required: ['calls', 'answer'],
      properties: { calls: { type: 'array', items: call }, answer: { type: 'string' } },
    },
  },
});

function taskOf(record: TaskRecord, where: string, file: string, line: number | undefined): Task {
  if (record.expected === undefined && record.check === undefined)
    throw new TaskFileError(where, undefined, 'a task needs "expected" or "check" (or both)');
  const check = record.check === undefined ? undefined : compileCheck(record.check, `${where} check`);
  const expected =
    record.expected === undefined ? undefined : compileCheck({ path: '$.answer', equals: record.expected }, where);
  const score: AnswerCheck = (document) =>
    (expected === undefined || expected(document)) && (check === undefined || check(document));
  // `expected` reads the answer alone, so a solution's answer can be held to it here: one that missed scored the
  // scripted baseline 0 on the task, which read as a hard task rather than a wrong file.
  if (
    record.solution &&
    expected &&
    !expected({ answer: record.solution.answer, calls: [], lastTool: null, lastResult: null })
  )
    throw new TaskFileError(
      where,
      undefined,
      `the solution answers ${JSON.stringify(record.solution.answer)}, which is not the expected ${JSON.stringify(record.expected)}`,
    );
  return { ...record, score, file, line };
}

/** Deepest nesting of a task (its check tree, its calls' arguments) read: far past any task, short of the stack. */
const MAX_TASK_DEPTH = 100;

/**
 * Reads a task file: JSON Lines (one task a line; blank lines and `//` lines skipped) or one JSON array. Every
 * task is validated and its check compiled here, so a typo fails when the env is made, naming the line.
 */
export function loadTaskFile(path: string): Task[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TaskFileError(
      path,
      undefined,
      `cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      error,
    );
  }
  // A byte-order mark (Windows editors write one) is not JSON: a JSON array file that began with one was refused.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const entries: Array<{ value: unknown; line: number | undefined }> = [];
  if (text.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new TaskFileError(path, undefined, `not valid JSON (${(error as Error).message})`, error);
    }
    (parsed as unknown[]).forEach((value) => entries.push({ value, line: undefined }));
  } else {
    text.split('\n').forEach((raw, i) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('//')) return;
      try {
        entries.push({ value: JSON.parse(line), line: i + 1 });
      } catch (error) {
        // A task spread over several lines (pretty-printed JSON) is the usual cause: say what the format is.
        throw new TaskFileError(
          path,
          i + 1,
          `not valid JSON (${(error as Error).message}); a task file holds one task per line (JSON Lines) or one JSON array of tasks`,
          error,
        );
      }
    });
  }
  if (entries.length === 0) throw new TaskFileError(path, undefined, 'holds no task');
  const ids = new Set<string>();
  return entries.map(({ value, line }, index) => {
    const where = line === undefined ? `${path} task ${index}` : `${path} line ${line}`;
    // The check is compiled and the record validated by recursion: a check nested 100,000 deep threw a bare
    // RangeError (stack overflow) out of make(), naming no file or line.
    if (nestsDeeperThan(value, MAX_TASK_DEPTH))
      throw new TaskFileError(path, line, `task ${index} nests more than ${MAX_TASK_DEPTH} levels deep`);
    if (!validateRecord(value))
      throw new TaskFileError(path, line, describeErrors(validateRecord.errors, `task ${index}`).join('; '));
    const record = value as unknown as TaskRecord;
    if (ids.has(record.id)) throw new TaskFileError(path, line, `duplicate task id "${record.id}"`);
    ids.add(record.id);
    return taskOf(record, where, path, line);
  });
}
