import type { SeededRng } from '@turngym/core';
import { exact, showOperand, type Exact } from './exact-number';
import { StepList, type ProblemDraft } from './problem-builder';

type Operator = '+' | '-' | '*' | '/';

type ExpressionNode =
  | { readonly type: 'number'; readonly value: Exact }
  | {
      readonly type: 'operation';
      readonly operator: Operator;
      readonly left: ExpressionNode;
      readonly right: ExpressionNode;
      readonly value: Exact;
    };

interface Level {
  readonly operations: readonly [number, number];
  readonly operands: readonly [number, number];
  readonly operators: readonly Operator[];
  /** Keep every intermediate value >= 0 (level 1 stays with natural numbers). */
  readonly nonNegative: boolean;
}

const LEVELS: Record<number, Level> = {
  1: { operations: [2, 2], operands: [2, 20], operators: ['+', '-', '*'], nonNegative: true },
  2: { operations: [3, 3], operands: [2, 30], operators: ['+', '-', '*', '/'], nonNegative: true },
  3: { operations: [4, 5], operands: [2, 60], operators: ['+', '-', '*', '/'], nonNegative: false },
};

const SHOWN: Record<Operator, string> = { '+': '+', '-': '-', '*': '×', '/': '÷' };
const PRECEDENCE: Record<Operator, number> = { '+': 1, '-': 1, '*': 2, '/': 2 };
const MAX_PRODUCT = 10_000;

function leaf(value: number): ExpressionNode {
  return { type: 'number', value: exact(value) };
}

function combine(operator: Operator, left: ExpressionNode, right: ExpressionNode): ExpressionNode {
  const a = left.value;
  const b = right.value;
  const value = operator === '+' ? a.add(b) : operator === '-' ? a.sub(b) : operator === '*' ? a.mul(b) : a.div(b);
  return { type: 'operation', operator, left, right, value };
}

function divisorsOf(value: Exact, max: number): number[] {
  if (value.d !== 1n || value.n === 0n) return [];
  const n = Number(value.n);
  const out: number[] = [];
  for (let d = 2; d <= max; d++) if (n % d === 0) out.push(d);
  return out;
}

/** A random expression tree with `operations` operators whose every intermediate value is an integer. */
function build(rng: SeededRng, level: Level, operations: number): ExpressionNode {
  const [lo, hi] = level.operands;
  if (operations === 0) return leaf(rng.int(lo, hi));
  let operator = rng.pick(level.operators);
  if (operator === '/') {
    // Divide a subexpression by a small divisor of its value, so the quotient stays an integer.
    const dividend = build(rng, level, operations - 1);
    const divisors = dividend.value.s < 0n ? [] : divisorsOf(dividend.value, 12);
    if (divisors.length > 0) return combine('/', dividend, leaf(rng.pick(divisors)));
    operator = '+';
  }
  const leftOperations = rng.int(0, operations - 1);
  let left = build(rng, level, leftOperations);
  let right = build(rng, level, operations - 1 - leftOperations);
  if (operator === '*' && left.value.mul(right.value).abs().compare(MAX_PRODUCT) > 0) operator = '+';
  if (operator === '-' && level.nonNegative && left.value.compare(right.value) < 0) [left, right] = [right, left];
  return combine(operator, left, right);
}

/** The expression as a question shows it: minimal parentheses, plus parentheses on a right operand of equal precedence. */
function render(node: ExpressionNode): string {
  if (node.type === 'number') return showOperand(node.value);
  const wrap = (child: ExpressionNode, isRight: boolean): string => {
    const text = render(child);
    if (child.type === 'number') return text;
    const inner = PRECEDENCE[child.operator];
    const outer = PRECEDENCE[node.operator];
    return inner < outer || (isRight && inner === outer) ? `(${text})` : text;
  };
  return `${wrap(node.left, false)} ${SHOWN[node.operator]} ${wrap(node.right, true)}`;
}

/** Steps in evaluation order (post-order): one operation of the tree per step. */
function collectSteps(node: ExpressionNode, steps: StepList): void {
  if (node.type === 'number') return;
  collectSteps(node.left, steps);
  collectSteps(node.right, steps);
  const a = showOperand(node.left.value);
  const b = showOperand(node.right.value);
  steps.add(
    `s${steps.steps.length + 1}`,
    '',
    `${a} ${SHOWN[node.operator]} ${b}`,
    `${a} ${node.operator} ${b}`,
    node.value,
  );
}

/** Multi-step integer arithmetic: `Compute 12 + 7 × 3 - 15.` Level = number of operations (2, 3, 4–5). */
export function arithmeticProblem(rng: SeededRng, difficulty: number): ProblemDraft {
  const level = LEVELS[difficulty] ?? (LEVELS[1] as Level);
  const tree = build(rng, level, rng.int(level.operations[0], level.operations[1]));
  const steps = new StepList();
  collectSteps(tree, steps);
  return {
    kind: 'arithmetic',
    difficulty,
    question: `Compute ${render(tree)}.`,
    steps: steps.steps,
    answer: tree.value,
    answerKind: 'number',
    preferFraction: false,
  };
}
