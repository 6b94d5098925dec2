import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileValidator, TurnGymError, withoutByteOrderMark } from '@turngym/core';
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

const validateTask = compileValidator<CodingTask>(
  codingTaskSchema,
  (problems) => new InvalidTaskFileError('', problems),
  'task',
);

/** Parses JSONL text (one task per line; blank lines allowed), validating every line against the schema. */
export function parseTasks(text: string, source = 'tasks'): CodingTask[] {
  const tasks: CodingTask[] = [];
  const problems: string[] = [];
  const ids = new Set<string>();
  // A byte-order mark (editors on Windows write one) is not part of the first line's JSON.
  withoutByteOrderMark(text)
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      const where = `line ${index + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        problems.push(`${where}: not JSON (${(error as Error).message})`);
        return;
      }
      try {
        const task = validateTask(value);
        if (ids.has(task.task_id)) problems.push(`${where}: duplicate task_id ${task.task_id}`);
        else if (task.kind === 'function' && task.visible_tests.length === 0)
          problems.push(`${where}: a function task needs visible_tests`);
        ids.add(task.task_id);
        tasks.push(task);
      } catch (error) {
        const detail = error instanceof InvalidTaskFileError ? error.problems.join('; ') : (error as Error).message;
        problems.push(`${where}: ${detail}`);
      }
    });
  if (problems.length > 0) throw new InvalidTaskFileError(source, problems);
  return tasks;
}

const cache = new Map<string, readonly CodingTask[]>();

/** Loads (once per path) and validates a task file; default: the bundled one. */
export function loadTasks(path: string = DEFAULT_TASKS_FILE): readonly CodingTask[] {
  let tasks = cache.get(path);
  if (!tasks) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new InvalidTaskFileError(path, [`cannot read it (${(error as Error).message})`]);
    }
    tasks = Object.freeze(parseTasks(text, path));
    cache.set(path, tasks);
  }
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
