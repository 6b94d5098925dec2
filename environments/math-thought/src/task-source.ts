import { InvalidOptionsError } from '@turngym/core';
import { loadGsm8kFile, SAMPLE_TASKS_PATH } from './gsm8k-loader';
import type { MathThoughtOptions } from './math-thought-options';
import { DIFFICULTY_LEVELS, PROBLEM_KINDS, type Problem } from './problem';
import { generateProblem, type GeneratorOptions } from './problem-generator';
import { TaskFileError } from './task-file-error';
import { contentSplit, SPLIT_SEED_RANGES } from './task-split';

/** The tasks of one split: a fixed-size, indexable list (generated on demand or read from a file). */
export interface TaskSource {
  /** Number of tasks; a `taskId` is an index below it. */
  readonly size: number;
  /** A short description for messages: `generated train split`, `gsm8k-sample.jsonl (test split)`. */
  readonly name: string;
  problem(index: number): Problem;
}

/** Generated problems: task `i` of a split is the problem of generator seed `range.start + i`. */
class GeneratedTasks implements TaskSource {
  readonly size: number;
  readonly name: string;
  private readonly start: number;
  private readonly generator: GeneratorOptions;

  constructor(options: MathThoughtOptions) {
    const range = SPLIT_SEED_RANGES[options.split];
    this.start = range.start;
    this.size = range.size;
    this.name = `generated ${options.split} split`;
    // `kinds` and `difficulties` are sets: in the generator's draws, `['word', 'arithmetic']` posed other tasks for the
    // same seed than `['arithmetic', 'word']`. The canonical order is the defaults', so default runs are unchanged.
    this.generator = {
      kinds: PROBLEM_KINDS.filter((kind) => options.kinds.includes(kind)),
      difficulties: DIFFICULTY_LEVELS.filter((level) => options.difficulties.includes(level)),
      split: options.split,
    };
  }

  problem(index: number): Problem {
    return generateProblem(this.start + index, this.generator);
  }
}

/** Problems of a GSM8K-format file, partitioned into train/test by the content rule of task-split.ts. */
class FileTasks implements TaskSource {
  readonly size: number;
  readonly name: string;
  private readonly problems: readonly Problem[];

  constructor(path: string, split: MathThoughtOptions['split']) {
    const all = loadGsm8kFile(path);
    this.problems = split === 'all' ? all : all.filter((problem) => contentSplit(problem.question) === split);
    this.size = this.problems.length;
    this.name = `${path} (${split} split)`;
    if (this.size === 0) {
      throw new TaskFileError(
        path,
        undefined,
        `none of its ${all.length} problems falls in the ${split} split; use split "all" to take every problem`,
      );
    }
  }

  problem(index: number): Problem {
    return this.problems[index] as Problem;
  }
}

/** Builds the task source the options name; file errors surface as `TaskFileError`, bad values as `InvalidOptionsError`. */
export function createTaskSource(options: MathThoughtOptions): TaskSource {
  if (options.source === 'generated') return new GeneratedTasks(options);
  if (options.source === 'sample') return new FileTasks(SAMPLE_TASKS_PATH, options.split);
  if (!options.source.endsWith('.jsonl')) {
    throw new InvalidOptionsError('turngym/math-thought-v1', [
      `options.source must be "generated", "sample" or a path to a .jsonl file (got ${JSON.stringify(options.source)})`,
    ]);
  }
  return new FileTasks(options.source, options.split);
}
