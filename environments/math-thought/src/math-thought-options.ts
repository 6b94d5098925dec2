import { defineOptions, type ClientOptions, type JSONSchemaType } from '@turngym/core';
import { DIFFICULTY_LEVELS, PROBLEM_KINDS, type ProblemKind } from './problem';
import type { Split } from './task-split';

/** Options of `turngym/math-thought-v1` and `turngym/math-thought-calc-v1`. Type and schema side by side. */
export interface MathThoughtOptions {
  /** Which tasks: `train`, `test` (disjoint by generator seed range and by content), or `all`. */
  split: Split;
  /** `generated` (the seeded generator), `sample` (the GSM8K-format sample shipped in data/), or a path to a GSM8K-format JSONL file. */
  source: string;
  /** Generated problem families to draw from. */
  kinds: ProblemKind[];
  /** Generated difficulty levels to draw from (1: two steps, 2: three, 3: four or five). */
  difficulties: number[];
  /** Turn limit: the episode is truncated (with the format penalty) when no answer came by then. */
  maxTurns: number;
  /** Evaluate `<calc>expr</calc>` and return the result as the observation. */
  calculator: boolean;
  /** λ_f of ALGORITHMS.md §0: subtracted when the final answer is missing or malformed. */
  formatPenalty: number;
  /** Longest factor read; longer ones are truncated with a note. */
  maxFactorChars: number;
}

export const mathThoughtOptionsSchema: JSONSchemaType<MathThoughtOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    split: { type: 'string', enum: ['train', 'test', 'all'], default: 'train' },
    source: { type: 'string', minLength: 1, default: 'generated' },
    kinds: {
      type: 'array',
      items: { type: 'string', enum: [...PROBLEM_KINDS] },
      minItems: 1,
      uniqueItems: true,
      default: [...PROBLEM_KINDS],
    },
    difficulties: {
      type: 'array',
      items: { type: 'integer', enum: [...DIFFICULTY_LEVELS] },
      minItems: 1,
      uniqueItems: true,
      default: [...DIFFICULTY_LEVELS],
    },
    maxTurns: { type: 'integer', minimum: 1, maximum: 1000, default: 16 },
    calculator: { type: 'boolean', default: false },
    formatPenalty: { type: 'number', minimum: 0, maximum: 1, default: 0.2 },
    maxFactorChars: { type: 'integer', minimum: 16, maximum: 100000, default: 2000 },
  },
};

/**
 * What a client of the env server may set: the task mix, not where tasks are read from. `source` only names
 * the two built-in sets, since a path would have the server read (and show) any JSONL file.
 */
export const mathThoughtClientOptions: ClientOptions<MathThoughtOptions> = {
  split: true,
  source: { enum: ['generated', 'sample'] },
  kinds: true,
  difficulties: true,
  maxTurns: true,
  formatPenalty: true,
  maxFactorChars: true,
};

export const validateMathThoughtOptions = defineOptions<MathThoughtOptions>(
  'turngym/math-thought-v1',
  mathThoughtOptionsSchema,
);

/** Per-episode options of `reset({ seed, options })`. */
export interface MathThoughtResetOptions {
  /** Pick this task of the split (0-based) instead of the one the seed selects. */
  taskId?: number;
}

export const mathThoughtResetOptionsSchema: JSONSchemaType<MathThoughtResetOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    taskId: { type: 'integer', minimum: 0, nullable: true },
  },
};

export const validateMathThoughtResetOptions = defineOptions<MathThoughtResetOptions>(
  'turngym/math-thought-v1 reset()',
  mathThoughtResetOptionsSchema,
);
