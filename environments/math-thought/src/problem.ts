/** The families of generated problems; GSM8K-format files load as `gsm8k`. */
export const PROBLEM_KINDS = ['arithmetic', 'word', 'fraction', 'percent', 'linear'] as const;
export type ProblemKind = (typeof PROBLEM_KINDS)[number];

/** Difficulty levels of generated problems: roughly the number of steps a solution takes (2, 3, 4–5). */
export const DIFFICULTY_LEVELS = [1, 2, 3] as const;
export type Difficulty = (typeof DIFFICULTY_LEVELS)[number];

/**
 * How the final answer is read: `number` compares numeric values; `percent` means the problem asks for a
 * percentage, so `25`, `25%`, `0.25` and `1/4` all mean 25 % (see answer-equivalence.ts).
 */
export type AnswerKind = 'number' | 'percent';

/** One step of a reference solution: an intermediate quantity and the thought factors that establish it. */
export interface SolutionStep {
  /** Short name of the quantity (`cost-notebooks`, `s2`); the env's `anchor()` lists the established ones. */
  readonly label: string;
  /** The step as a calculator-free thought factor, e.g. `Cost of the notebooks: 4 × 3 = 12.` */
  readonly text: string;
  /** The same step with the calculator (`Cost of the notebooks: <calc>4 * 3</calc>`), where the calculator is exact. */
  readonly calcText?: string;
  /** Exact value as a reduced fraction string (`12`, `-3/4`); undefined when the step states no number. */
  readonly value?: string;
}

/** A task: a question with an exact answer and a reference solution. Plain JSON, immutable by convention. */
export interface Problem {
  /** Stable id: `gen-<generator seed>` or `<file name>#<line>`. */
  readonly id: string;
  readonly kind: ProblemKind | 'gsm8k';
  /** 1–3 for generated problems; 0 when unknown (files). */
  readonly difficulty: number;
  /** The first user message. */
  readonly question: string;
  /** The exact answer as a reduced fraction string; for `percent` problems, in percent (`25` = 25 %). */
  readonly answer: string;
  readonly answerKind: AnswerKind;
  /** The answer as the scripted expert writes it after `Answer:` (`17/12`, `25%`, `8`). */
  readonly answerText: string;
  readonly steps: readonly SolutionStep[];
}
