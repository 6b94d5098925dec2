import { defineOptions, type ClientOptions, type JSONSchemaType } from '@turngym/core';

/** Options of the coding environments (`turngym/coding-sandbox-v1`, `turngym/coding-fix-v1`). */
export interface CodingOptions {
  /** Which tasks: `function` (write a function or class) or `fix` (fix the bug behind a failing test). Fixed by each id. */
  taskKind: 'function' | 'fix';
  /** Task split to draw from; the splits are disjoint by problem family. */
  split: 'train' | 'test' | 'all';
  /** Only tasks of this difficulty. */
  difficulty: 'any' | 'easy' | 'medium' | 'hard';
  /** Always this task ('' = a task drawn with the episode seed). A reset option `taskId` overrides it per episode. */
  taskId: string;
  /** A JSONL task file in the documented format ('' = the bundled `data/tasks.jsonl`). */
  tasksFile: string;
  /** Turn limit; reaching it without SUBMIT ends the episode with the format penalty. */
  maxTurns: number;
  /** Reward 1 only when every hidden test passes, instead of the fraction passed. */
  allOrNothing: boolean;
  /** Subtracted when the final answer is missing (no SUBMIT) or malformed (does not compile or load). ALGORITHMS.md §0. */
  formatPenalty: number;
  /** Wall-clock limit of one call into the sandbox: loading a file, one test, one RUN (ms). */
  timeLimitMs: number;
  /** Wall-clock budget of one RUN_TESTS or SUBMIT (ms). */
  totalTimeLimitMs: number;
  /** Heap limit of the sandbox (MB). */
  memoryLimitMb: number;
  /** Characters of stdout and of stderr kept per run (each); the rest is cut with a note. */
  outputLimit: number;
  /** Largest file the agent may write (characters). */
  maxFileChars: number;
  /** Most files the workspace may hold. */
  maxFiles: number;
}

export const codingOptionsSchema: JSONSchemaType<CodingOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    taskKind: { type: 'string', enum: ['function', 'fix'], default: 'function' },
    split: { type: 'string', enum: ['train', 'test', 'all'], default: 'train' },
    difficulty: { type: 'string', enum: ['any', 'easy', 'medium', 'hard'], default: 'any' },
    taskId: { type: 'string', maxLength: 200, default: '' },
    tasksFile: { type: 'string', maxLength: 4096, default: '' },
    maxTurns: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
    allOrNothing: { type: 'boolean', default: false },
    formatPenalty: { type: 'number', minimum: 0, maximum: 1, default: 0.2 },
    timeLimitMs: { type: 'integer', minimum: 10, maximum: 60000, default: 1000 },
    totalTimeLimitMs: { type: 'integer', minimum: 10, maximum: 300000, default: 5000 },
    memoryLimitMb: { type: 'integer', minimum: 16, maximum: 1024, default: 64 },
    outputLimit: { type: 'integer', minimum: 100, maximum: 100000, default: 2000 },
    maxFileChars: { type: 'integer', minimum: 100, maximum: 1000000, default: 20000 },
    maxFiles: { type: 'integer', minimum: 1, maximum: 200, default: 30 },
  },
};

/**
 * What a client of the env server may set: which task (split, difficulty, id), the episode's rules, and the sandbox's
 * budgets only at or below their defaults. Not `tasksFile` (a path: the server would read any JSONL file and show its
 * tasks, and its errors would tell whether a file exists), and not `memoryLimitMb`: each distinct limit is an isolate
 * of its own in every worker, so even lowered limits would let a client fill the workers with isolates. `taskKind` is
 * fixed by each id.
 */
export const codingClientOptions: ClientOptions<CodingOptions> = {
  split: true,
  difficulty: true,
  taskId: true,
  maxTurns: true,
  allOrNothing: true,
  formatPenalty: true,
  timeLimitMs: { maximum: 1000 },
  totalTimeLimitMs: { maximum: 5000 },
  outputLimit: { maximum: 2000 },
  maxFileChars: { maximum: 20000 },
  maxFiles: { maximum: 30 },
};

export const validateCodingOptions = defineOptions<CodingOptions>('coding environment', codingOptionsSchema);

/** Per-episode options (`reset({ options })`). */
export interface CodingResetOptions {
  /** Play this task in this episode. */
  taskId?: string;
}

export const codingResetOptionsSchema: JSONSchemaType<CodingResetOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: { taskId: { type: 'string', maxLength: 200, nullable: true } },
};

export const validateCodingResetOptions = defineOptions<CodingResetOptions>(
  'coding environment reset',
  codingResetOptionsSchema,
);
