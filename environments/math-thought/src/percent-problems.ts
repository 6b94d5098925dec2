import type { SeededRng } from '@turngym/core';
import { exact, showExact, type Exact } from './exact-number';
import { StepList, type ProblemDraft } from './problem-builder';

const NAMES = ['Maya', 'Leo', 'Aisha', 'Tom', 'Priya', 'Omar', 'Lena', 'Kenji'];
const THINGS = ['jacket', 'bike', 'lamp', 'kettle', 'guitar', 'backpack', 'camera', 'chair'];
const RATES = [5, 10, 15, 20, 25, 30, 40, 50, 60, 75];
/** Bases with no prime factor but 2 and 5, so every percentage of them is a finite decimal. */
const BASES = [10, 20, 25, 40, 50, 80, 100, 125, 200, 250, 400, 500];

const s = (value: Exact): string => showExact(value);

type Builder = (
  rng: SeededRng,
  steps: StepList,
) => { question: string; answer: Exact; answerKind: 'number' | 'percent' };

const BUILDERS: Record<number, readonly Builder[]> = {
  1: [
    (rng, steps) => {
      const rate = rng.pick(RATES);
      const whole = rng.int(1, 20) * (100 / gcd(rate, 100));
      const fraction = steps.add('rate', `${rate}% as a decimal`, `${rate} ÷ 100`, `${rate} / 100`, exact(rate, 100));
      const answer = steps.add(
        'result',
        `${rate}% of ${whole}`,
        `${s(fraction)} × ${whole}`,
        `${s(fraction)} * ${whole}`,
        fraction.mul(whole),
      );
      return { question: `What is ${rate}% of ${whole}?`, answer, answerKind: 'number' };
    },
    (rng, steps) => {
      const name = rng.pick(NAMES);
      const total = rng.pick([10, 20, 25, 40, 50]);
      const correct = rng.int(1, total);
      const ratio = steps.add(
        'ratio',
        'Share answered correctly',
        `${correct} ÷ ${total}`,
        `${correct} / ${total}`,
        exact(correct, total),
      );
      const answer = steps.add('percent', 'As a percentage', `${s(ratio)} × 100`, `${s(ratio)} * 100`, ratio.mul(100));
      return {
        question: `${name} answers ${correct} of ${total} questions correctly. What percent of the questions did ${name} answer correctly?`,
        answer,
        answerKind: 'percent',
      };
    },
  ],
  2: [
    (rng, steps) => {
      const name = rng.pick(NAMES);
      const thing = rng.pick(THINGS);
      const rate = rng.pick(RATES);
      const price = rng.int(2, 30) * (100 / gcd(rate, 100));
      const salePrice = (price * (100 - rate)) / 100;
      const coupon = rng.int(1, Math.max(1, Math.min(5, Math.floor(salePrice) - 1)));
      const discount = steps.add(
        'discount',
        'Discount',
        `${price} × ${rate} ÷ 100`,
        `${price} * ${rate} / 100`,
        exact(price * rate, 100),
      );
      const sale = steps.add(
        'sale-price',
        'Sale price',
        `${price} - ${s(discount)}`,
        `${price} - ${s(discount)}`,
        exact(price).sub(discount),
      );
      const answer = steps.add(
        'paid',
        'After the coupon',
        `${s(sale)} - ${coupon}`,
        `${s(sale)} - ${coupon}`,
        sale.sub(coupon),
      );
      return {
        question: `A ${thing} costs $${price}. Its price is cut by ${rate}%, and then ${name} uses a $${coupon} coupon. How many dollars does ${name} pay?`,
        answer,
        answerKind: 'number',
      };
    },
    (rng, steps) => {
      const base = rng.pick(BASES);
      const part = rng.int(1, base - 1);
      const name = rng.pick(NAMES);
      const red = steps.add(
        'ratio',
        'Share of red marbles',
        `${part} ÷ ${base}`,
        `${part} / ${base}`,
        exact(part, base),
      );
      const answer = steps.add('percent', 'As a percentage', `${s(red)} × 100`, `${s(red)} * 100`, red.mul(100));
      return {
        question: `${name} has ${base} marbles and ${part} of them are red. What percentage of the marbles are red?`,
        answer,
        answerKind: 'percent',
      };
    },
  ],
  3: [
    (rng, steps) => {
      const thing = rng.pick(THINGS);
      const before = rng.pick(BASES);
      const rise = rng.int(1, before);
      const difference = steps.add(
        'increase',
        'Increase',
        `${before + rise} - ${before}`,
        `${before + rise} - ${before}`,
        exact(rise),
      );
      const ratio = steps.add(
        'ratio',
        'Increase relative to the old price',
        `${difference} ÷ ${before}`,
        `${difference} / ${before}`,
        difference.div(before),
      );
      const answer = steps.add('percent', 'As a percentage', `${s(ratio)} × 100`, `${s(ratio)} * 100`, ratio.mul(100));
      return {
        question: `The price of a ${thing} rose from $${before} to $${before + rise}. By what percent did the price increase?`,
        answer,
        answerKind: 'percent',
      };
    },
    (rng, steps) => {
      const thing = rng.pick(THINGS);
      const price = rng.pick(BASES) * rng.int(1, 4);
      const first = rng.pick(RATES);
      const second = rng.pick(RATES);
      const d1 = steps.add(
        'discount-1',
        'First discount',
        `${price} × ${first} ÷ 100`,
        `${price} * ${first} / 100`,
        exact(price * first, 100),
      );
      const p1 = steps.add(
        'price-1',
        'Price after the first discount',
        `${price} - ${s(d1)}`,
        `${price} - ${s(d1)}`,
        exact(price).sub(d1),
      );
      const d2 = steps.add(
        'discount-2',
        'Second discount',
        `${s(p1)} × ${second} ÷ 100`,
        `${s(p1)} * ${second} / 100`,
        p1.mul(second).div(100),
      );
      const answer = steps.add('final-price', 'Final price', `${s(p1)} - ${s(d2)}`, `${s(p1)} - ${s(d2)}`, p1.sub(d2));
      return {
        question: `A ${thing} costs $${price}. It is discounted by ${first}%, and the sale price is then discounted by another ${second}%. What is the final price in dollars?`,
        answer,
        answerKind: 'number',
      };
    },
  ],
};

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Percentages: of a quantity, discounts, shares as percentages, percent change. */
export function percentProblem(rng: SeededRng, difficulty: number): ProblemDraft {
  const steps = new StepList();
  const { question, answer, answerKind } = rng.pick(BUILDERS[difficulty] ?? (BUILDERS[1] as readonly Builder[]))(
    rng,
    steps,
  );
  return { kind: 'percent', difficulty, question, steps: steps.steps, answer, answerKind, preferFraction: false };
}
