import type { SeededRng } from '@turngym/core';
import { exact, type Exact } from './exact-number';
import { StepList, type ProblemDraft } from './problem-builder';

const NAMES = [
  'Maya',
  'Leo',
  'Aisha',
  'Tom',
  'Priya',
  'Omar',
  'Lena',
  'Kenji',
  'Sofia',
  'Ben',
  'Nadia',
  'Diego',
  'Ines',
  'Yusuf',
];
const ITEMS = ['notebooks', 'pens', 'apples', 'tickets', 'candles', 'mugs', 'stickers', 'plants', 'books', 'scarves'];
const THINGS = ['bike', 'lamp', 'jacket', 'kettle', 'guitar', 'backpack', 'camera', 'chair'];

interface Template {
  readonly difficulty: number;
  readonly build: (rng: SeededRng) => { question: string; steps: StepList; answer: Exact };
}

/** The smallest bill among those that cover `cost`, or a random larger one. */
function billFor(rng: SeededRng, cost: number): number {
  const bills = [10, 20, 50, 100, 200, 500].filter((bill) => bill > cost);
  return rng.pick(bills.slice(0, 2));
}

const n = (value: number): Exact => exact(value);

const TEMPLATES: readonly Template[] = [
  {
    difficulty: 1,
    build: (rng) => {
      const name = rng.pick(NAMES);
      const item = rng.pick(ITEMS);
      const count = rng.int(2, 9);
      const price = rng.int(2, 15);
      const bill = billFor(rng, count * price);
      const steps = new StepList();
      const cost = steps.add(
        'cost',
        `Cost of the ${item}`,
        `${count} × ${price}`,
        `${count} * ${price}`,
        n(count * price),
      );
      const change = steps.add('change', 'Change', `${bill} - ${cost}`, `${bill} - ${cost}`, n(bill).sub(cost));
      return {
        question: `${name} buys ${count} ${item} at $${price} each and pays with a $${bill} bill. How much change, in dollars, does ${name} get?`,
        steps,
        answer: change,
      };
    },
  },
  {
    difficulty: 1,
    build: (rng) => {
      const name = rng.pick(NAMES);
      const trays = rng.int(2, 6);
      const perTray = rng.int(6, 12);
      const given = rng.int(1, trays * perTray - 1);
      const steps = new StepList();
      const total = steps.add(
        'cookies-baked',
        'Cookies baked',
        `${trays} × ${perTray}`,
        `${trays} * ${perTray}`,
        n(trays * perTray),
      );
      const left = steps.add(
        'cookies-left',
        'Cookies left',
        `${total} - ${given}`,
        `${total} - ${given}`,
        total.sub(given),
      );
      return {
        question: `${name} bakes ${trays} trays of ${perTray} cookies and gives away ${given} cookies. How many cookies does ${name} have left?`,
        steps,
        answer: left,
      };
    },
  },
  {
    difficulty: 1,
    build: (rng) => {
      const name = rng.pick(NAMES);
      const perDay = rng.int(5, 30);
      const days = rng.int(2, 9);
      const pages = perDay * days + rng.int(5, 200);
      const steps = new StepList();
      const read = steps.add(
        'pages-read',
        'Pages read',
        `${perDay} × ${days}`,
        `${perDay} * ${days}`,
        n(perDay * days),
      );
      const unread = steps.add(
        'pages-unread',
        'Pages unread',
        `${pages} - ${read}`,
        `${pages} - ${read}`,
        n(pages).sub(read),
      );
      return {
        question: `A book has ${pages} pages. ${name} reads ${perDay} pages every day for ${days} days. How many pages are still unread?`,
        steps,
        answer: unread,
      };
    },
  },
  {
    difficulty: 2,
    build: (rng) => {
      const cows = rng.int(3, 40);
      const hens = rng.int(3, 60);
      const steps = new StepList();
      const cowLegs = steps.add('cow-legs', 'Cow legs', `${cows} × 4`, `${cows} * 4`, n(cows * 4));
      const henLegs = steps.add('hen-legs', 'Hen legs', `${hens} × 2`, `${hens} * 2`, n(hens * 2));
      const legs = steps.add(
        'legs',
        'All legs',
        `${cowLegs} + ${henLegs}`,
        `${cowLegs} + ${henLegs}`,
        cowLegs.add(henLegs),
      );
      return {
        question: `A farm has ${cows} cows and ${hens} hens. A cow has 4 legs and a hen has 2. How many legs are there on the farm?`,
        steps,
        answer: legs,
      };
    },
  },
  {
    difficulty: 2,
    build: (rng) => {
      const v1 = rng.int(4, 12) * 10;
      const t1 = rng.int(2, 6);
      const v2 = rng.int(4, 12) * 10;
      const t2 = rng.int(1, 5);
      const steps = new StepList();
      const d1 = steps.add('distance-1', 'First part', `${v1} × ${t1}`, `${v1} * ${t1}`, n(v1 * t1));
      const d2 = steps.add('distance-2', 'Second part', `${v2} × ${t2}`, `${v2} * ${t2}`, n(v2 * t2));
      const total = steps.add('distance', 'Total distance', `${d1} + ${d2}`, `${d1} + ${d2}`, d1.add(d2));
      return {
        question: `A train travels at ${v1} km/h for ${t1} hours, then at ${v2} km/h for ${t2} hours. How many kilometres does it travel in total?`,
        steps,
        answer: total,
      };
    },
  },
  {
    difficulty: 2,
    build: (rng) => {
      const name = rng.pick(NAMES);
      const baskets = rng.int(2, 8);
      const perBasket = rng.int(5, 15);
      const friends = rng.int(2, 6);
      const picked = baskets * perBasket;
      // Keep a number of apples that leaves a multiple of `friends`.
      const maxK = Math.floor((picked - 1 - (picked % friends)) / friends);
      const kept =
        (picked % friends) + friends * rng.int(picked % friends === 0 ? 1 : 0, Math.max(1, Math.min(maxK, 4)));
      const steps = new StepList();
      const total = steps.add(
        'apples',
        'Apples picked',
        `${baskets} × ${perBasket}`,
        `${baskets} * ${perBasket}`,
        n(picked),
      );
      const rest = steps.add(
        'apples-shared',
        'Apples to share',
        `${total} - ${kept}`,
        `${total} - ${kept}`,
        total.sub(kept),
      );
      const each = steps.add(
        'apples-each',
        'Apples per friend',
        `${rest} ÷ ${friends}`,
        `${rest} / ${friends}`,
        rest.div(friends),
      );
      return {
        question: `${name} picks ${baskets} baskets of ${perBasket} apples, keeps ${kept} apples and shares the rest equally among ${friends} friends. How many apples does each friend get?`,
        steps,
        answer: each,
      };
    },
  },
  {
    difficulty: 3,
    build: (rng) => {
      const name = rng.pick(NAMES);
      const [item1, item2] = rng.shuffle(ITEMS);
      const a = rng.int(2, 8);
      const p = rng.int(2, 12);
      const b = rng.int(2, 8);
      const q = rng.int(2, 12);
      const bill = billFor(rng, a * p + b * q);
      const steps = new StepList();
      const c1 = steps.add(`cost-${item1}`, `Cost of the ${item1}`, `${a} × ${p}`, `${a} * ${p}`, n(a * p));
      const c2 = steps.add(`cost-${item2}`, `Cost of the ${item2}`, `${b} × ${q}`, `${b} * ${q}`, n(b * q));
      const total = steps.add('total', 'Total cost', `${c1} + ${c2}`, `${c1} + ${c2}`, c1.add(c2));
      const change = steps.add('change', 'Change', `${bill} - ${total}`, `${bill} - ${total}`, n(bill).sub(total));
      return {
        question: `${name} buys ${a} ${item1} at $${p} each and ${b} ${item2} at $${q} each, and pays with a $${bill} bill. How much change, in dollars, does ${name} get?`,
        steps,
        answer: change,
      };
    },
  },
  {
    difficulty: 3,
    build: (rng) => {
      const name = rng.pick(NAMES);
      const thing = rng.pick(THINGS);
      const weekly = rng.int(5, 40);
      const weeks = rng.int(3, 12);
      const gift = rng.int(1, 10) * 5;
      const jars = rng.int(2, 5);
      const have = weekly * weeks + gift;
      // Spend an amount that leaves a positive multiple of `jars`.
      const maxLeft = Math.floor((have - 1) / jars);
      const left = jars * rng.int(1, Math.max(1, Math.min(maxLeft, Math.floor(have / (2 * jars)) + 1)));
      const spent = have - left;
      const steps = new StepList();
      const earned = steps.add(
        'earned',
        'Money earned',
        `${weekly} × ${weeks}`,
        `${weekly} * ${weeks}`,
        n(weekly * weeks),
      );
      const total = steps.add(
        'with-gift',
        'With the gift',
        `${earned} + ${gift}`,
        `${earned} + ${gift}`,
        earned.add(gift),
      );
      const rest = steps.add(
        'after-spending',
        `After the ${thing}`,
        `${total} - ${spent}`,
        `${total} - ${spent}`,
        total.sub(spent),
      );
      const each = steps.add('per-jar', 'Per jar', `${rest} ÷ ${jars}`, `${rest} / ${jars}`, rest.div(jars));
      return {
        question: `${name} earns $${weekly} a week for ${weeks} weeks and also gets a $${gift} gift. After spending $${spent} on a ${thing}, ${name} splits the rest equally into ${jars} jars. How many dollars go into each jar?`,
        steps,
        answer: each,
      };
    },
  },
  {
    difficulty: 3,
    build: (rng) => {
      const name = rng.pick(NAMES);
      const length = rng.int(4, 30);
      const width = rng.int(3, 20);
      const perMetre = rng.int(2, 15);
      const gate = rng.int(2, 12) * 5;
      const steps = new StepList();
      const half = steps.add(
        'half-perimeter',
        'Length plus width',
        `${length} + ${width}`,
        `${length} + ${width}`,
        n(length + width),
      );
      const perimeter = steps.add('perimeter', 'Perimeter', `2 × ${half}`, `2 * ${half}`, half.mul(2));
      const fence = steps.add(
        'fence-cost',
        'Cost of the fence',
        `${perimeter} × ${perMetre}`,
        `${perimeter} * ${perMetre}`,
        perimeter.mul(perMetre),
      );
      const total = steps.add(
        'total-cost',
        'With the gate',
        `${fence} + ${gate}`,
        `${fence} + ${gate}`,
        fence.add(gate),
      );
      return {
        question: `A rectangular garden is ${length} m long and ${width} m wide. Fencing costs $${perMetre} per metre. ${name} fences all four sides and also buys a gate for $${gate}. What is the total cost in dollars?`,
        steps,
        answer: total,
      };
    },
  },
  {
    difficulty: 3,
    build: (rng) => {
      const start = rng.int(10, 50);
      const off1 = rng.int(1, start - 2);
      let on1 = rng.int(1, 20);
      if ((start - off1 + on1) % 2 === 1) on1 += 1; // half get off at the second stop: keep it even
      const on2 = rng.int(1, 15);
      const steps = new StepList();
      const a = steps.add(
        'after-off',
        'After some get off',
        `${start} - ${off1}`,
        `${start} - ${off1}`,
        n(start - off1),
      );
      const b = steps.add('after-stop-1', 'After the first stop', `${a} + ${on1}`, `${a} + ${on1}`, a.add(on1));
      const c = steps.add('after-half', 'After half get off', `${b} ÷ 2`, `${b} / 2`, b.div(2));
      const d = steps.add('passengers', 'After the last stop', `${c} + ${on2}`, `${c} + ${on2}`, c.add(on2));
      return {
        question: `A bus starts with ${start} passengers. At the first stop ${off1} get off and ${on1} get on. At the second stop half of the passengers get off. Then ${on2} get on. How many passengers are on the bus now?`,
        steps,
        answer: d,
      };
    },
  },
];

/** Word problems from templates with several quantities; level = number of steps (2, 3, 4). */
export function wordProblem(rng: SeededRng, difficulty: number): ProblemDraft {
  const candidates = TEMPLATES.filter((template) => template.difficulty === difficulty);
  const template = rng.pick(candidates.length > 0 ? candidates : TEMPLATES);
  const { question, steps, answer } = template.build(rng);
  return {
    kind: 'word',
    difficulty,
    question,
    steps: steps.steps,
    answer,
    answerKind: 'number',
    preferFraction: false,
  };
}
