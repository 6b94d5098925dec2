/** @turngym/env-math-thought — math problems solved in thought factors, with and without a calculator. */
export { MathThoughtEnv, MATH_THOUGHT_ID, MATH_THOUGHT_CALC_ID } from './math-thought-env';
export {
  mathThoughtOptionsSchema,
  validateMathThoughtOptions,
  mathThoughtResetOptionsSchema,
  type MathThoughtOptions,
  type MathThoughtResetOptions,
} from './math-thought-options';
export { MathThoughtExpert, expertFactors } from './math-thought-expert';
export { MathThoughtRandomAgent } from './math-thought-random-agent';
export {
  PROBLEM_KINDS,
  DIFFICULTY_LEVELS,
  type Problem,
  type ProblemKind,
  type Difficulty,
  type AnswerKind,
  type SolutionStep,
} from './problem';
export { generateProblem, type GeneratorOptions } from './problem-generator';
export { SPLIT_SEED_RANGES, contentSplit, taskIndexForSeed, type Split } from './task-split';
export { createTaskSource, type TaskSource } from './task-source';
export { parseGsm8k, loadGsm8kFile, SAMPLE_TASKS_PATH } from './gsm8k-loader';
export { parseAnswer, isEquivalent, ANSWER_LINE, type ParsedAnswer, type AnswerParse } from './answer-equivalence';
export { readFactor, topOperator, type FactorReading, type FactorKind } from './thought-factor';
export { SafeCalculator, type CalcResult } from './safe-calculator';
export { TaskFileError } from './task-file-error';
export { register } from './register';
