import type { JSONSchemaType } from '@turngym/core';
import { PATH_PATTERN } from '../coding-tools';

export type TaskKind = 'function' | 'fix';
export type TaskSplit = 'train' | 'test';
export type Difficulty = 'easy' | 'medium' | 'hard';
export type TaskCategory = 'strings' | 'arrays' | 'math' | 'parsing' | 'data-structures' | 'algorithms';
export type TaskLanguage = 'typescript' | 'javascript';

/**
 * One task, one line of `data/tasks.jsonl`. The fields follow HumanEval (`task_id`, `prompt`, `entry_point`,
 * `canonical_solution`) and MBPP (`test_setup_code`, `test_list` → `visible_tests`, `challenge_test_list` →
 * `hidden_tests`), with files instead of single strings so that multi-file tasks fit, and JavaScript tests.
 *
 * A test is a snippet of statements using `expect(...)` (Jest's matchers) or `assert`; it passes when it runs
 * without throwing. `test_setup_code` (imports) is prepended once, as in a module at the workspace root.
 */
export interface CodingTask {
  /** Unique id, `fn/<family>/<variant>` or `fix/<module>/<bug>`. */
  task_id: string;
  /** `function`: write a function (or class) from a description; `fix`: fix the bug that makes a test fail. */
  kind: TaskKind;
  /** Disjoint splits, assigned per family, so no test task is a re-parameterised train task. */
  split: TaskSplit;
  difficulty: Difficulty;
  category: TaskCategory;
  /** The generator family (or `hand-written`, or the fix module); the unit of the train/test split. */
  family: string;
  language: TaskLanguage;
  /** The task statement the agent sees. */
  prompt: string;
  /** The function or class under test (function tasks), or the module with the bug (fix tasks). */
  entry_point: string;
  /** The starting workspace: path → contents. */
  files: Record<string, string>;
  /** Files that, written over `files`, pass every visible and hidden test. */
  canonical_solution: Record<string, string>;
  /** A plausible wrong solution (files written over `files`) that fails at least one hidden test. */
  wrong_solution: Record<string, string>;
  /** Imports for the test snippets, as seen from the workspace root. */
  test_setup_code: string;
  /** Shown in the prompt and run by RUN_TESTS (fix tasks also have test files in `files`). */
  visible_tests: string[];
  /** Run on SUBMIT; the reward is the fraction of these that pass. */
  hidden_tests: string[];
}

const files: JSONSchemaType<Record<string, string>> = {
  type: 'object',
  required: [],
  minProperties: 1,
  // The workspace's own path rule: a task's `a/../b.ts` or `./x.ts` was loaded but could be neither read, edited nor
  // imported, and a `__tests__.ts` collided with the module the test runner writes.
  propertyNames: { type: 'string', pattern: PATH_PATTERN },
  additionalProperties: { type: 'string' },
};

export const codingTaskSchema: JSONSchemaType<CodingTask> = {
  $id: 'https://turngym.dev/schemas/coding-task.json',
  type: 'object',
  additionalProperties: false,
  required: [
    'task_id',
    'kind',
    'split',
    'difficulty',
    'category',
    'family',
    'language',
    'prompt',
    'entry_point',
    'files',
    'canonical_solution',
    'wrong_solution',
    'test_setup_code',
    'visible_tests',
    'hidden_tests',
  ],
  properties: {
    task_id: { type: 'string', pattern: '^(fn|fix)/[a-z0-9-]+/[a-z0-9-]+$' },
    kind: { type: 'string', enum: ['function', 'fix'] },
    split: { type: 'string', enum: ['train', 'test'] },
    difficulty: { type: 'string', enum: ['easy', 'medium', 'hard'] },
    category: { type: 'string', enum: ['strings', 'arrays', 'math', 'parsing', 'data-structures', 'algorithms'] },
    family: { type: 'string', minLength: 1 },
    language: { type: 'string', enum: ['typescript', 'javascript'] },
    prompt: { type: 'string', minLength: 1 },
    entry_point: { type: 'string', minLength: 1 },
    files,
    canonical_solution: files,
    wrong_solution: files,
    test_setup_code: { type: 'string' },
    visible_tests: { type: 'array', items: { type: 'string', minLength: 1 } },
    hidden_tests: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
  },
};
