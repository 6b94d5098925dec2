import { casesRng, generate, randomInts, type FunctionFamily, type FunctionVariant } from './function-family';

const code = String.raw;

function windowSums(width: number): FunctionVariant {
  const rng = casesRng('sliding-window', `sums-${width}`);
  return {
    slug: `sums-${width}`,
    difficulty: 'easy',
    entry: 'windowSums',
    signature: 'export function windowSums(values: number[]): number[]',
    description: `Return the sum of every run of ${width} consecutive values, in order (values.length - ${width - 1} sums). Fewer than ${width} values give [].`,
    solution: code`export function windowSums(values: number[]): number[] {
  const sums: number[] = [];
  for (let i = 0; i + ${width} <= values.length; i++) {
    let sum = 0;
    for (let j = i; j < i + ${width}; j++) sum += values[j];
    sums.push(sum);
  }
  return sums;
}
`,
    wrong: code`export function windowSums(values: number[]): number[] {
  const sums: number[] = [];
  for (let i = 0; i + ${width} < values.length; i++) {
    let sum = 0;
    for (let j = i; j < i + ${width}; j++) sum += values[j];
    sums.push(sum);
  }
  return sums;
}
`,
    cases: [
      [[1, 2, 3, 4, 5]],
      [[]],
      [Array.from({ length: width }, (_, i) => i + 1)],
      [[-1, 5, -3, 7, 2, 0]],
      ...generate(4, () => [randomInts(rng, rng.int(0, 10), -20, 20)]),
    ],
    javascript: width === 4,
  };
}

const windows: FunctionVariant[] = [
  ...[2, 3, 4].map(windowSums),
  {
    slug: 'max-3',
    difficulty: 'medium',
    entry: 'windowMax',
    signature: 'export function windowMax(values: number[]): number[]',
    description: 'Return the maximum of every run of 3 consecutive values, in order. Fewer than 3 values give [].',
    solution: code`export function windowMax(values: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 3 <= values.length; i++) out.push(Math.max(values[i], values[i + 1], values[i + 2]));
  return out;
}
`,
    wrong: code`export function windowMax(values: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 3 <= values.length; i++) out.push(Math.max(values[i], values[i + 1]));
  return out;
}
`,
    cases: [[[1, 3, -1, -3, 5, 3, 6, 7]], [[1, 2]], [[4, 4, 4]], [[-5, -2, -9, -1]], [[9, 1, 1, 8, 1, 1, 7]], [[]]],
    known: [[[[1, 3, -1, -3, 5, 3, 6, 7]], [3, 3, 5, 5, 6, 7]]],
  },
  {
    slug: 'moving-average-2',
    difficulty: 'easy',
    entry: 'movingAverage',
    signature: 'export function movingAverage(values: number[]): number[]',
    description:
      'Return the average of every pair of neighbouring values, in order (values.length - 1 averages; [] for fewer than 2 values).',
    solution: code`export function movingAverage(values: number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < values.length; i++) out.push((values[i - 1] + values[i]) / 2);
  return out;
}
`,
    wrong: code`export function movingAverage(values: number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < values.length; i++) out.push(Math.round((values[i - 1] + values[i]) / 2));
  return out;
}
`,
    cases: [[[1, 2, 3, 4]], [[5]], [[]], [[-1, 1, -1]], [[10, 0, 10, 0, 3]], [[0.5, 1.5]]],
  },
];

function counting(
  slug: string,
  entry: string,
  description: string,
  predicate: string,
  wrongPredicate: string,
  difficulty: 'easy' | 'medium' = 'easy',
): FunctionVariant {
  const rng = casesRng('count-matching', slug);
  return {
    slug,
    difficulty,
    entry,
    signature: `export function ${entry}(values: number[]): number`,
    description,
    solution: code`export function ${entry}(values: number[]): number {
  ${difficulty === 'medium' ? 'const mean = values.reduce((a, b) => a + b, 0) / values.length;\n  ' : ''}let count = 0;
  for (const value of values) if (${predicate}) count += 1;
  return count;
}
`,
    wrong: code`export function ${entry}(values: number[]): number {
  ${difficulty === 'medium' ? 'const mean = values.reduce((a, b) => a + b, 0) / values.length;\n  ' : ''}let count = 0;
  for (const value of values) if (${wrongPredicate}) count += 1;
  return count;
}
`,
    cases: [
      [[1, 2, 3, 4, 5, 6]],
      [[]],
      [[-4, -3, 0, 7, 21, 14]],
      [[0]],
      [[-7, -14, 7, 3, -21]],
      ...generate(4, () => [randomInts(rng, rng.int(1, 12), -30, 30)]),
    ],
  };
}

const isPrimeSource = code`function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}
`;

const countMatching: FunctionVariant[] = [
  counting(
    'even',
    'countEven',
    'Count the even values (0 and negative even numbers included).',
    'value % 2 === 0',
    'value % 2 === 0 && value > 0',
  ),
  counting('negative', 'countNegative', 'Count the values below zero.', 'value < 0', 'value <= 0'),
  counting(
    'divisible-by-3',
    'countMultiplesOf3',
    'Count the values divisible by 3 (0 and negative multiples included).',
    'value % 3 === 0',
    'value % 3 === 0 && value !== 0',
  ),
  counting(
    'divisible-by-7',
    'countMultiplesOf7',
    'Count the values divisible by 7 (0 and negative multiples included).',
    'Math.abs(value) % 7 === 0',
    'value % 7 === 0 && value >= 0',
  ),
  counting(
    'above-mean',
    'countAboveMean',
    'Count the values strictly greater than the mean of all values (0 for an empty array).',
    'value > mean',
    'value >= mean',
    'medium',
  ),
  {
    ...counting(
      'prime',
      'countPrimes',
      'Count the values that are prime numbers (negative numbers, 0 and 1 are not prime).',
      'isPrime(value)',
      'isPrime(Math.abs(value))',
    ),
    solution: `${isPrimeSource}
export function countPrimes(values: number[]): number {
  return values.filter(isPrime).length;
}
`,
    wrong: `${isPrimeSource}
export function countPrimes(values: number[]): number {
  return values.filter((value) => isPrime(Math.abs(value))).length;
}
`,
    javascript: true,
  },
];

const kth: FunctionVariant[] = [
  {
    slug: 'second-largest',
    difficulty: 'easy',
    entry: 'secondLargest',
    signature: 'export function secondLargest(values: number[]): number | null',
    description: 'Return the second largest distinct value, or null when there are fewer than two distinct values.',
    solution: code`export function secondLargest(values: number[]): number | null {
  const distinct = [...new Set(values)].sort((a, b) => b - a);
  return distinct.length >= 2 ? distinct[1] : null;
}
`,
    wrong: code`export function secondLargest(values: number[]): number | null {
  const sorted = [...values].sort((a, b) => b - a);
  return sorted.length >= 2 ? sorted[1] : null;
}
`,
    cases: [[[3, 1, 4, 1, 5]], [[5, 5, 4]], [[7]], [[]], [[2, 2]], [[-1, -5, -3]], [[10, 9, 10, 8]]],
  },
  ...[2, 3].map((k): FunctionVariant => ({
    slug: `kth-smallest-${k}`,
    difficulty: 'easy',
    entry: 'kthSmallest',
    signature: 'export function kthSmallest(values: number[]): number | undefined',
    description: `Return the value at position ${k} (1-based) when the values are sorted in increasing numeric order, duplicates counted; undefined when there are fewer than ${k} values.`,
    solution: code`export function kthSmallest(values: number[]): number | undefined {
  return [...values].sort((a, b) => a - b)[${k - 1}];
}
`,
    wrong: code`export function kthSmallest(values: number[]): number | undefined {
  return [...values].sort()[${k - 1}];
}
`,
    cases: [[[5, 3, 9, 1]], [[10, 9, 100, 2]], [[1]], [[]], [[4, 4, 4, 4]], [[-10, 5, -20, 30]], [[25, 100, 3, 7, 12]]],
  })),
  {
    slug: 'kth-largest-distinct-3',
    difficulty: 'medium',
    entry: 'thirdLargestDistinct',
    signature: 'export function thirdLargestDistinct(values: number[]): number',
    description:
      'Return the third largest distinct value; when there are fewer than three distinct values, return the largest one. The array is never empty.',
    solution: code`export function thirdLargestDistinct(values: number[]): number {
  const distinct = [...new Set(values)].sort((a, b) => b - a);
  return distinct.length >= 3 ? distinct[2] : distinct[0];
}
`,
    wrong: code`export function thirdLargestDistinct(values: number[]): number {
  const sorted = [...values].sort((a, b) => b - a);
  return sorted.length >= 3 ? sorted[2] : sorted[0];
}
`,
    cases: [[[3, 2, 1]], [[1, 2]], [[2, 2, 3, 1]], [[5, 5, 5]], [[1, 2, 2, 5, 3, 5]], [[-1, -2, -3, -4]]],
    javascript: true,
  },
];

const nestedCases: unknown[][] = [
  [[1, [2, [3, [4]], 5]]],
  [[]],
  [[[[[]]]]],
  [[1, 2, 3]],
  [
    [
      [1, 2],
      [3, [4, [5, [6]]]],
    ],
  ],
  [[[], [0], [[0]]]],
];
const flatten: FunctionVariant[] = [
  ...[1, 2].map((depth): FunctionVariant => ({
    slug: `depth-${depth}`,
    difficulty: 'medium',
    entry: 'flattenDepth',
    signature: 'export function flattenDepth(items: unknown[]): unknown[]',
    description: `Flatten nested arrays by exactly ${depth} level${depth === 1 ? '' : 's'}, like items.flat(${depth}) (which you may not use): arrays nested deeper stay arrays.`,
    solution: code`export function flattenDepth(items: unknown[]): unknown[] {
  const flat = (list: unknown[], depth: number): unknown[] => {
    const out: unknown[] = [];
    for (const item of list) {
      if (Array.isArray(item) && depth > 0) out.push(...flat(item, depth - 1));
      else out.push(item);
    }
    return out;
  };
  return flat(items, ${depth});
}
`,
    wrong: code`export function flattenDepth(items: unknown[]): unknown[] {
  const flat = (list: unknown[], depth: number): unknown[] => {
    const out: unknown[] = [];
    for (const item of list) {
      if (Array.isArray(item) && depth > 0) out.push(...flat(item, depth - 1));
      else out.push(item);
    }
    return out;
  };
  return flat(items, ${depth === 1 ? 'Infinity' : 1});
}
`,
    cases: nestedCases,
  })),
  {
    slug: 'deep',
    difficulty: 'medium',
    entry: 'flattenDeep',
    signature: 'export function flattenDeep(items: unknown[]): number[]',
    description: 'Flatten arbitrarily nested arrays of numbers into one flat array, in order.',
    solution: code`type Nested = number | Nested[];
export function flattenDeep(items: unknown[]): number[] {
  const out: number[] = [];
  const walk = (list: Nested[]) => {
    for (const item of list) {
      if (Array.isArray(item)) walk(item);
      else out.push(item);
    }
  };
  walk(items as Nested[]);
  return out;
}
`,
    wrong: code`type Nested = number | Nested[];
export function flattenDeep(items: unknown[]): number[] {
  const out: number[] = [];
  for (const item of items as Nested[]) {
    if (Array.isArray(item)) for (const inner of item) out.push(...(Array.isArray(inner) ? (inner as number[]) : [inner]));
    else out.push(item);
  }
  return out;
}
`,
    cases: nestedCases,
  },
];

const setOps: FunctionVariant[] = [
  {
    slug: 'union',
    difficulty: 'easy',
    entry: 'union',
    signature: 'export function union(a: number[], b: number[]): number[]',
    description:
      'Return every value that occurs in a or b, once, in order of first appearance (all of a first, then b).',
    solution: code`export function union(a: number[], b: number[]): number[] {
  return [...new Set([...a, ...b])];
}
`,
    wrong: code`export function union(a: number[], b: number[]): number[] {
  return [...a, ...b.filter((value) => !a.includes(value))];
}
`,
    cases: [
      [
        [1, 2, 3],
        [2, 3, 4],
      ],
      [[], []],
      [
        [1, 1, 2],
        [2, 2, 3],
      ],
      [[5], []],
      [[], [7, 7]],
      [
        [3, 1],
        [1, 3, 2],
      ],
    ],
  },
  {
    slug: 'intersection',
    difficulty: 'easy',
    entry: 'intersection',
    signature: 'export function intersection(a: number[], b: number[]): number[]',
    description: 'Return the values that occur in both a and b, once each, in the order they first appear in a.',
    solution: code`export function intersection(a: number[], b: number[]): number[] {
  const inB = new Set(b);
  return [...new Set(a.filter((value) => inB.has(value)))];
}
`,
    wrong: code`export function intersection(a: number[], b: number[]): number[] {
  return a.filter((value) => b.includes(value));
}
`,
    cases: [
      [
        [1, 2, 3],
        [2, 3, 4],
      ],
      [[], [1]],
      [[1, 1, 2], [1]],
      [[4, 5, 6], [7]],
      [
        [2, 1, 2, 3],
        [3, 2],
      ],
      [
        [9, 8],
        [8, 9],
      ],
    ],
  },
  {
    slug: 'difference',
    difficulty: 'easy',
    entry: 'difference',
    signature: 'export function difference(a: number[], b: number[]): number[]',
    description: 'Return the values of a that do not occur in b, keeping their order and any repeats.',
    solution: code`export function difference(a: number[], b: number[]): number[] {
  const inB = new Set(b);
  return a.filter((value) => !inB.has(value));
}
`,
    wrong: code`export function difference(a: number[], b: number[]): number[] {
  return [...new Set(a)].filter((value) => !b.includes(value));
}
`,
    cases: [
      [[1, 2, 3, 2], [3]],
      [[], [1]],
      [[1, 1], []],
      [
        [4, 5],
        [4, 5],
      ],
      [[7, 8, 7, 9], [9]],
      [[0, -1], [1]],
    ],
  },
  {
    slug: 'symmetric-difference',
    difficulty: 'medium',
    entry: 'symmetricDifference',
    signature: 'export function symmetricDifference(a: number[], b: number[]): number[]',
    description:
      'Return, sorted in increasing numeric order and without repeats, the values that occur in exactly one of a and b.',
    solution: code`export function symmetricDifference(a: number[], b: number[]): number[] {
  const setA = new Set(a);
  const setB = new Set(b);
  const out = [...setA].filter((value) => !setB.has(value)).concat([...setB].filter((value) => !setA.has(value)));
  return out.sort((x, y) => x - y);
}
`,
    wrong: code`export function symmetricDifference(a: number[], b: number[]): number[] {
  const out = a.filter((value) => !b.includes(value)).concat(b.filter((value) => !a.includes(value)));
  return out.sort();
}
`,
    cases: [
      [
        [1, 2, 3],
        [2, 3, 4],
      ],
      [[], []],
      [[10, 2], [3]],
      [[5, 5, 6], [6]],
      [
        [1, 2],
        [1, 2],
      ],
      [
        [-3, 20],
        [100, -3],
      ],
    ],
    javascript: true,
  },
];

const chunking: FunctionVariant[] = [
  ...[2, 3].map((size): FunctionVariant => {
    const rng = casesRng('chunk-zip', `chunk-${size}`);
    return {
      slug: `chunk-${size}`,
      difficulty: 'easy',
      entry: 'chunk',
      signature: 'export function chunk<T>(items: T[]): T[][]',
      description: `Split the items into consecutive groups of ${size}; the last group holds what is left (it may be shorter). [] gives [].`,
      solution: code`export function chunk<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += ${size}) out.push(items.slice(i, i + ${size}));
  return out;
}
`,
      wrong: code`export function chunk<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i + ${size} <= items.length; i += ${size}) out.push(items.slice(i, i + ${size}));
  return out;
}
`,
      cases: [
        [[1, 2, 3, 4, 5, 6, 7]],
        [[]],
        [['a', 'b']],
        [[1, 2, 3, 4, 5, 6]],
        ...generate(3, () => [randomInts(rng, rng.int(1, 9), 0, 9)]),
      ],
    };
  }),
  {
    slug: 'zip',
    difficulty: 'easy',
    entry: 'zip',
    signature: 'export function zip<A, B>(a: A[], b: B[]): [A, B][]',
    description: 'Pair up the items of a and b by position; stop at the end of the shorter array.',
    solution: code`export function zip<A, B>(a: A[], b: B[]): [A, B][] {
  const out: [A, B][] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) out.push([a[i], b[i]]);
  return out;
}
`,
    wrong: code`export function zip<A, B>(a: A[], b: B[]): [A, B][] {
  return a.map((item, i) => [item, b[i]]);
}
`,
    cases: [
      [
        [1, 2, 3],
        ['a', 'b', 'c'],
      ],
      [[1, 2, 3], ['x']],
      [[], [1]],
      [[true], [false, true]],
      [
        ['p', 'q'],
        [0, 1],
      ],
      [[1], []],
    ],
  },
  {
    slug: 'unzip',
    difficulty: 'easy',
    entry: 'unzip',
    signature: 'export function unzip<A, B>(pairs: [A, B][]): [A[], B[]]',
    description: 'Split a list of pairs into the list of first elements and the list of second elements.',
    solution: code`export function unzip<A, B>(pairs: [A, B][]): [A[], B[]] {
  return [pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1])];
}
`,
    wrong: code`export function unzip<A, B>(pairs: [A, B][]): [A[], B[]] {
  return [pairs.map((pair) => pair[0]), pairs.map((pair) => pair[0] as unknown as B)];
}
`,
    cases: [
      [
        [
          [1, 'a'],
          [2, 'b'],
        ],
      ],
      [[]],
      [[[true, 0]]],
      [
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
      ],
      [[['x', 'y']]],
      [
        [
          [0, 0],
          [1, 1],
        ],
      ],
    ],
  },
  {
    slug: 'interleave',
    difficulty: 'easy',
    entry: 'interleave',
    signature: 'export function interleave<T>(a: T[], b: T[]): T[]',
    description: 'Alternate items from a and b (a first); when one runs out, append the rest of the other.',
    solution: code`export function interleave<T>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]);
    if (i < b.length) out.push(b[i]);
  }
  return out;
}
`,
    wrong: code`export function interleave<T>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) out.push(a[i], b[i]);
  return out;
}
`,
    cases: [
      [
        [1, 3, 5],
        [2, 4, 6],
      ],
      [[1], [2, 3, 4]],
      [[], []],
      [['a', 'b', 'c'], []],
      [[1, 2], [9]],
      [[0], [0]],
    ],
    javascript: true,
  },
];

const running: FunctionVariant[] = [
  {
    slug: 'sum',
    difficulty: 'easy',
    entry: 'runningSum',
    signature: 'export function runningSum(values: number[]): number[]',
    description: 'Return the running totals: element i is the sum of values[0..i].',
    solution: code`export function runningSum(values: number[]): number[] {
  let total = 0;
  return values.map((value) => (total += value));
}
`,
    wrong: code`export function runningSum(values: number[]): number[] {
  let total = 0;
  return values.map((value) => {
    const before = total;
    total += value;
    return before;
  });
}
`,
    cases: [[[1, 2, 3, 4]], [[]], [[5]], [[-1, 1, -1, 1]], [[10, -20, 30]], [[0, 0, 7]]],
  },
  {
    slug: 'max',
    difficulty: 'easy',
    entry: 'runningMax',
    signature: 'export function runningMax(values: number[]): number[]',
    description: 'Return the running maximum: element i is the largest of values[0..i].',
    solution: code`export function runningMax(values: number[]): number[] {
  let best = -Infinity;
  return values.map((value) => (best = Math.max(best, value)));
}
`,
    wrong: code`export function runningMax(values: number[]): number[] {
  let best = 0;
  return values.map((value) => (best = Math.max(best, value)));
}
`,
    cases: [[[1, 3, 2, 5, 4]], [[]], [[-3, -1, -2]], [[7, 7, 7]], [[2, -9, 8, 1]], [[-5]]],
  },
  {
    slug: 'min',
    difficulty: 'easy',
    entry: 'runningMin',
    signature: 'export function runningMin(values: number[]): number[]',
    description: 'Return the running minimum: element i is the smallest of values[0..i].',
    solution: code`export function runningMin(values: number[]): number[] {
  let best = Infinity;
  return values.map((value) => (best = Math.min(best, value)));
}
`,
    wrong: code`export function runningMin(values: number[]): number[] {
  let best = 0;
  return values.map((value) => (best = Math.min(best, value)));
}
`,
    cases: [[[5, 3, 4, 1, 2]], [[]], [[3, 5, 7]], [[0]], [[-1, 2, -3]], [[9, 9, 8]]],
    javascript: true,
  },
  {
    slug: 'product-except-self',
    difficulty: 'medium',
    entry: 'productExceptSelf',
    signature: 'export function productExceptSelf(values: number[]): number[]',
    description:
      'Element i of the result is the product of every value except values[i]. Values may be 0 or negative. (A 1-element array gives [1].)',
    solution: code`export function productExceptSelf(values: number[]): number[] {
  return values.map((_, i) => values.reduce((product, value, j) => (j === i ? product : product * value), 1));
}
`,
    wrong: code`export function productExceptSelf(values: number[]): number[] {
  const total = values.reduce((product, value) => product * value, 1);
  return values.map((value) => total / value);
}
`,
    cases: [[[1, 2, 3, 4]], [[5]], [[0, 4, 5]], [[-1, 2, -3]], [[0, 0, 2]], [[2, 2, 2, 2]]],
  },
  {
    slug: 'pairwise-differences',
    difficulty: 'easy',
    entry: 'differences',
    signature: 'export function differences(values: number[]): number[]',
    description: 'Return values[i + 1] - values[i] for every neighbouring pair, in order.',
    solution: code`export function differences(values: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < values.length; i++) out.push(values[i + 1] - values[i]);
  return out;
}
`,
    wrong: code`export function differences(values: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < values.length; i++) out.push(Math.abs(values[i + 1] - values[i]));
  return out;
}
`,
    cases: [[[1, 4, 9, 16]], [[]], [[3]], [[5, 3, 1]], [[0, 0, 1]], [[-2, 2, -2]]],
  },
];

const grouping: FunctionVariant[] = [
  {
    slug: 'dedupe',
    difficulty: 'easy',
    entry: 'dedupe',
    signature: 'export function dedupe<T>(items: T[]): T[]',
    description: 'Remove repeated values (compared with ===), keeping the first occurrence of each, in order.',
    solution: code`export function dedupe<T>(items: T[]): T[] {
  return [...new Set(items)];
}
`,
    wrong: code`export function dedupe<T>(items: T[]): T[] {
  return items.filter((item, i) => item !== items[i - 1]);
}
`,
    cases: [[[1, 2, 1, 3, 2]], [[]], [['a', 'a', 'a']], [[3, 3, 1, 1, 3]], [[true, false, true]], [['x', 'y', 'z']]],
  },
  {
    slug: 'by-parity',
    difficulty: 'easy',
    entry: 'groupByParity',
    signature: 'export function groupByParity(values: number[]): { even: number[]; odd: number[] }',
    description: 'Split integers into { even, odd }, each keeping the original order. Negative odd numbers are odd.',
    solution: code`export function groupByParity(values: number[]): { even: number[]; odd: number[] } {
  return { even: values.filter((value) => value % 2 === 0), odd: values.filter((value) => value % 2 !== 0) };
}
`,
    wrong: code`export function groupByParity(values: number[]): { even: number[]; odd: number[] } {
  return { even: values.filter((value) => value % 2 === 0), odd: values.filter((value) => value % 2 === 1) };
}
`,
    cases: [[[1, 2, 3, 4]], [[]], [[-3, -2, -1, 0]], [[7]], [[10, 20]], [[5, -5, 6]]],
  },
  {
    slug: 'by-length',
    difficulty: 'medium',
    entry: 'groupByLength',
    signature: 'export function groupByLength(words: string[]): Record<number, string[]>',
    description:
      'Group words by their length: an object from each length to the words of that length, in their original order.',
    solution: code`export function groupByLength(words: string[]): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const word of words) (out[word.length] ??= []).push(word);
  return out;
}
`,
    wrong: code`export function groupByLength(words: string[]): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const word of words) out[word.length] = [word];
  return out;
}
`,
    cases: [
      [['a', 'bb', 'cc', 'd', 'eee']],
      [[]],
      [['same', 'four', 'size']],
      [['', 'x', '']],
      [['hello']],
      [['ab', 'abc', 'ab']],
    ],
  },
  ...[0, 10].map((threshold): FunctionVariant => ({
    slug: `partition-${threshold}`,
    difficulty: 'easy',
    entry: 'partition',
    signature: 'export function partition(values: number[]): [number[], number[]]',
    description: `Return [below, rest]: the values less than ${threshold}, then the values greater than or equal to ${threshold}, each in original order.`,
    solution: code`export function partition(values: number[]): [number[], number[]] {
  return [values.filter((value) => value < ${threshold}), values.filter((value) => value >= ${threshold})];
}
`,
    wrong: code`export function partition(values: number[]): [number[], number[]] {
  return [values.filter((value) => value <= ${threshold}), values.filter((value) => value > ${threshold})];
}
`,
    cases: [[[-5, 0, 5, 10, 15]], [[]], [[threshold]], [[threshold - 1, threshold + 1]], [[3, -3, 30]], [[100, -100]]],
    javascript: threshold === 10,
  })),
];

export const ARRAY_FAMILIES: readonly FunctionFamily[] = [
  { name: 'sliding-window', category: 'arrays', split: 'train', variants: windows },
  { name: 'count-matching', category: 'arrays', split: 'test', variants: countMatching },
  { name: 'kth-element', category: 'arrays', split: 'train', variants: kth },
  { name: 'flatten', category: 'arrays', split: 'train', variants: flatten },
  { name: 'array-set-ops', category: 'arrays', split: 'test', variants: setOps },
  { name: 'chunk-zip', category: 'arrays', split: 'train', variants: chunking },
  { name: 'running-aggregates', category: 'arrays', split: 'train', variants: running },
  { name: 'dedupe-group', category: 'arrays', split: 'train', variants: grouping },
];
