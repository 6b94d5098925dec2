import type { CodingTask } from '../coding-task';
import { ALGORITHM_FAMILIES } from './algorithm-families';
import { ARRAY_FAMILIES } from './array-families';
import { buildFixTasks } from './fix-tasks';
import { buildFunctionTask, type FunctionFamily } from './function-family';
import { buildHandWrittenTasks } from './hand-written-tasks';
import { MATH_FAMILIES } from './math-families';
import { PARSING_FAMILIES } from './parsing-families';
import { STRING_FAMILIES } from './string-families';
import { STRUCTURE_FAMILIES } from './structure-families';

/** Every generated family of function problems, by category. */
export const FUNCTION_FAMILIES: readonly FunctionFamily[] = [
  ...STRING_FAMILIES,
  ...ARRAY_FAMILIES,
  ...MATH_FAMILIES,
  ...PARSING_FAMILIES,
  ...STRUCTURE_FAMILIES,
  ...ALGORITHM_FAMILIES,
];

/**
 * Every task of the bundled dataset in a stable order: generated function problems by family, the hand-written
 * ones, then the fix-the-failing-test tasks. `npm run build:tasks` writes them to `data/tasks.jsonl`; a test checks
 * that the file matches this function.
 */
export function buildTasks(): CodingTask[] {
  const tasks: CodingTask[] = [];
  for (const family of FUNCTION_FAMILIES)
    for (const variant of family.variants) tasks.push(buildFunctionTask(family, variant));
  tasks.push(...buildHandWrittenTasks(), ...buildFixTasks());
  return tasks;
}

/** The JSONL text of the tasks, one per line. */
export function tasksToJsonl(tasks: readonly CodingTask[]): string {
  return tasks.map((task) => JSON.stringify(task)).join('\n') + '\n';
}
