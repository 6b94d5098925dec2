import type { SeededRng } from '@turngym/core';
import { exact, showExact, showOperand, type Exact } from './exact-number';
import { StepList, type ProblemDraft } from './problem-builder';

const NAMES = ['Maya', 'Leo', 'Aisha', 'Tom', 'Priya', 'Omar', 'Lena', 'Kenji'];

/** A proper fraction a/b in lowest terms with 2 <= b <= maxDenominator. */
function properFraction(rng: SeededRng, maxDenominator: number): Exact {
  const d = rng.int(2, maxDenominator);
  return exact(rng.int(1, d - 1), d);
}

const f = (value: Exact): string => showExact(value, true);

function lcm(a: bigint, b: bigint): bigint {
  let x = a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return (a / x) * b;
}

/** `a/b + c/d = A/L + C/L` over the common denominator, as one step. */
function sumStep(steps: StepList, label: string, a: Exact, b: Exact, operator: '+' | '-'): Exact {
  const l = lcm(a.d, b.d);
  const value = operator === '+' ? a.add(b) : a.sub(b);
  const rewritten =
    a.d === b.d ? '' : ` = ${a.n * (l / a.d) * (a.s < 0n ? -1n : 1n)}/${l} ${operator} ${b.n * (l / b.d)}/${l}`;
  steps.add(label, '', `${f(a)} ${operator} ${f(b)}${rewritten}`, `${f(a)} ${operator} ${f(b)}`, value);
  return value;
}

type Builder = (rng: SeededRng, steps: StepList) => { question: string; answer: Exact };

const BUILDERS: Record<number, readonly Builder[]> = {
  1: [
    (rng, steps) => {
      const a = properFraction(rng, 9);
      const whole = Number(a.d) * rng.int(2, 12);
      const part = steps.add(
        'one-part',
        `One of ${a.d} equal parts of ${whole}`,
        `${whole} ÷ ${a.d}`,
        `${whole} / ${a.d}`,
        exact(whole).div(a.d),
      );
      const answer = steps.add('result', `${f(a)} of ${whole}`, `${part} × ${a.n}`, `${part} * ${a.n}`, part.mul(a.n));
      return { question: `What is ${f(a)} of ${whole}?`, answer };
    },
    (rng, steps) => {
      const a = properFraction(rng, 12);
      const b = properFraction(rng, 12);
      const operator = a.compare(b) > 0 && rng.bool() ? '-' : '+';
      const answer = sumStep(steps, 'result', a, b, operator);
      return {
        question: `Compute ${f(a)} ${operator} ${f(b)}. Give the answer as a fraction in lowest terms.`,
        answer,
      };
    },
  ],
  2: [
    (rng, steps) => {
      const a = properFraction(rng, 10);
      const b = properFraction(rng, 10);
      const c = properFraction(rng, 9);
      const sum = sumStep(steps, 'sum', a, b, '+');
      const answer = steps.add('product', '', `${f(sum)} × ${f(c)}`, `(${f(sum)}) * (${f(c)})`, sum.mul(c));
      return {
        question: `Compute (${f(a)} + ${f(b)}) × ${f(c)}. Give the answer as a fraction in lowest terms.`,
        answer,
      };
    },
    (rng, steps) => {
      const [first, second] = rng.shuffle(NAMES);
      let a = properFraction(rng, 8);
      let b = properFraction(rng, 8);
      while (a.add(b).compare(1) >= 0) {
        a = properFraction(rng, 8);
        b = properFraction(rng, 8);
      }
      const eaten = sumStep(steps, 'eaten', a, b, '+');
      const answer = steps.add('left', 'Left over', `1 - ${f(eaten)}`, `1 - ${f(eaten)}`, exact(1).sub(eaten));
      return {
        question: `${first} eats ${f(a)} of a pizza and ${second} eats ${f(b)} of it. What fraction of the pizza is left? Give the answer as a fraction in lowest terms.`,
        answer,
      };
    },
  ],
  3: [
    (rng, steps) => {
      const a = properFraction(rng, 10);
      const b = properFraction(rng, 10);
      const c = properFraction(rng, 10);
      const d = properFraction(rng, 6);
      const sum = sumStep(steps, 'sum', a, b, '+');
      const difference = sumStep(steps, 'difference', sum, c, '-');
      const answer = steps.add(
        'quotient',
        '',
        `${showOperand(difference, true)} ÷ (${f(d)})`,
        `(${f(difference)}) / (${f(d)})`,
        difference.div(d),
      );
      return {
        question: `Compute (${f(a)} + ${f(b)} - ${f(c)}) ÷ (${f(d)}). Give the answer as a fraction in lowest terms.`,
        answer,
      };
    },
    (rng, steps) => {
      const name = rng.pick(NAMES);
      const full = properFraction(rng, 6);
      const used = properFraction(rng, 5);
      const capacity = Number(full.d * used.d) * rng.int(2, 8);
      const water = steps.add(
        'water',
        'Water in the tank',
        `${f(full)} × ${capacity}`,
        `${capacity} * ${full.n} / ${full.d}`,
        full.mul(capacity),
      );
      const usedWater = steps.add(
        'water-used',
        'Water used',
        `${f(used)} × ${water}`,
        `${water} * ${used.n} / ${used.d}`,
        used.mul(water),
      );
      const answer = steps.add(
        'water-left',
        'Water left',
        `${water} - ${usedWater}`,
        `${water} - ${usedWater}`,
        water.sub(usedWater),
      );
      return {
        question: `A tank holds ${capacity} litres and is ${f(full)} full. ${name} uses ${f(used)} of the water in it. How many litres of water are left in the tank?`,
        answer,
      };
    },
  ],
};

/** Fraction arithmetic and fractions of quantities; answers in lowest terms. */
export function fractionProblem(rng: SeededRng, difficulty: number): ProblemDraft {
  const steps = new StepList(true);
  const { question, answer } = rng.pick(BUILDERS[difficulty] ?? (BUILDERS[1] as readonly Builder[]))(rng, steps);
  return {
    kind: 'fraction',
    difficulty,
    question,
    steps: steps.steps,
    answer,
    answerKind: 'number',
    preferFraction: true,
  };
}
