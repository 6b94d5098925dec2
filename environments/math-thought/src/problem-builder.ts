import type { AnswerKind, ProblemKind, SolutionStep } from './problem';
import { exactKey, isTerminating, showExact, type Exact } from './exact-number';

/** What a problem family produces before the generator stamps an id on it. */
export interface ProblemDraft {
  readonly kind: ProblemKind;
  readonly difficulty: number;
  readonly question: string;
  readonly steps: readonly SolutionStep[];
  readonly answer: Exact;
  readonly answerKind: AnswerKind;
  /** Write non-integer values as fractions (fraction problems). */
  readonly preferFraction: boolean;
}

/**
 * Collects the steps of a reference solution. Each step is written once as a calculator-free factor
 * (`Cost of the pens: 4 × 3 = 12.`) and, where the calculator's decimal result is exact, as a calculator
 * factor (`Cost of the pens: <calc>4 * 3</calc>`), so the expert's two variants tell the same story.
 */
export class StepList {
  readonly steps: SolutionStep[] = [];

  constructor(private readonly preferFraction = false) {}

  /**
   * @param description what the step computes (may be empty for bare arithmetic)
   * @param display the computation as text, with × and ÷ (`12 + 7`, `3x = 22 - 7`)
   * @param expression the computation in calculator syntax (`12 + 7`), or undefined when it has none
   */
  add(label: string, description: string, display: string, expression: string | undefined, value: Exact): Exact {
    const valueText = showExact(value, this.preferFraction);
    const lead = description === '' ? '' : `${description}: `;
    const text = `${lead}${display} = ${valueText}.`;
    // The calculator answers in decimals: use it only where the decimal is the exact value.
    const calcExact = expression !== undefined && isTerminating(value) && value.d <= 1_000_000n;
    this.steps.push({
      label,
      text,
      ...(calcExact ? { calcText: `${lead}<calc>${expression}</calc>` } : {}),
      value: exactKey(value),
    });
    return value;
  }
}
