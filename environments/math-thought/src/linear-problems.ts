import type { SeededRng } from '@turngym/core';
import { exact, showExact, type Exact } from './exact-number';
import { StepList, type ProblemDraft } from './problem-builder';

/** `a x + b` with signs written the usual way: `3x + 7`, `3x - 7`, `3x`. */
function linear(a: number, b: number): string {
  const head = a === 1 ? 'x' : a === -1 ? '-x' : `${a}x`;
  if (b === 0) return head;
  return b > 0 ? `${head} + ${b}` : `${head} - ${-b}`;
}

const n = (value: number): Exact => exact(value);
const show = (value: Exact): string => showExact(value, true);
const operand = (value: number): string => (value < 0 ? `(${value})` : String(value));

function nonZero(rng: SeededRng, min: number, max: number): number {
  let value = 0;
  while (value === 0) value = rng.int(min, max);
  return value;
}

type Builder = (rng: SeededRng, steps: StepList) => { question: string; answer: Exact };

const BUILDERS: Record<number, Builder> = {
  // a x + b = c with an integer solution.
  1: (rng, steps) => {
    const a = rng.int(2, 9);
    const x = rng.int(-5, 15);
    const b = nonZero(rng, -20, 20);
    const c = a * x + b;
    const isolated = steps.add(
      'x-term',
      b > 0 ? `Subtract ${b} from both sides` : `Add ${-b} to both sides`,
      `${a}x = ${c} ${b > 0 ? '-' : '+'} ${Math.abs(b)}`,
      `${c} - ${operand(b)}`,
      n(c - b),
    );
    const answer = steps.add(
      'x',
      `Divide both sides by ${a}`,
      `x = ${show(isolated)} ÷ ${a}`,
      `${operand(c - b)} / ${a}`,
      isolated.div(a),
    );
    return { question: `Solve for x: ${linear(a, b)} = ${c}.`, answer };
  },
  // a x + b = c x + d with an integer solution.
  2: (rng, steps) => {
    const c = rng.int(1, 6);
    const a = c + rng.int(1, 6);
    const x = rng.int(-8, 12);
    const b = nonZero(rng, -15, 15);
    const d = (a - c) * x + b;
    const coefficient = steps.add(
      'x-coefficient',
      `Coefficient of x after subtracting ${linear(c, 0)} from both sides`,
      `${a} - ${c}`,
      `${a} - ${c}`,
      n(a - c),
    );
    const constant = steps.add(
      'constant',
      `Right-hand side after subtracting ${operand(b)} from both sides`,
      `${d} - ${operand(b)}`,
      `${d} - ${operand(b)}`,
      n(d - b),
    );
    const answer = steps.add(
      'x',
      `Divide both sides of ${linear(a - c, 0)} = ${d - b} by ${a - c}`,
      `x = ${constant} ÷ ${coefficient}`,
      `${operand(d - b)} / ${a - c}`,
      constant.div(coefficient),
    );
    return { question: `Solve for x: ${linear(a, b)} = ${linear(c, d)}.`, answer };
  },
  // a (x + b) = c x + d; the solution may be a fraction.
  3: (rng, steps) => {
    const a = rng.int(2, 9);
    let c = rng.int(1, 9);
    if (c === a) c = a === 9 ? 1 : a + 1;
    const b = nonZero(rng, -9, 9);
    const d = rng.int(-30, 30);
    const expanded = steps.add(
      'expanded-constant',
      `Constant term of ${a}(${linear(1, b)})`,
      `${a} × ${operand(b)}`,
      `${a} * ${operand(b)}`,
      n(a * b),
    );
    const coefficient = steps.add(
      'x-coefficient',
      `Coefficient of x after subtracting ${linear(c, 0)} from both sides`,
      `${a} - ${c}`,
      `${a} - ${c}`,
      n(a - c),
    );
    const constant = steps.add(
      'constant',
      `Right-hand side after subtracting ${operand(a * b)} from both sides`,
      `${d} - ${operand(a * b)}`,
      `${d} - ${operand(a * b)}`,
      n(d).sub(expanded),
    );
    const answer = steps.add(
      'x',
      `Divide both sides of ${linear(a - c, 0)} = ${show(constant)} by ${a - c}`,
      `x = ${show(constant)} ÷ ${operand(a - c)}`,
      `${operand(d - a * b)} / ${operand(a - c)}`,
      constant.div(coefficient),
    );
    return { question: `Solve for x: ${a}(${linear(1, b)}) = ${linear(c, d)}.`, answer };
  },
};

/** Linear equations in one unknown; level 3 may have a fractional solution. */
export function linearProblem(rng: SeededRng, difficulty: number): ProblemDraft {
  const steps = new StepList(true);
  const { question, answer } = (BUILDERS[difficulty] ?? (BUILDERS[1] as Builder))(rng, steps);
  return {
    kind: 'linear',
    difficulty,
    question,
    steps: steps.steps,
    answer,
    answerKind: 'number',
    preferFraction: true,
  };
}
