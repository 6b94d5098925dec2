import { casesRng, generate, randomInts, type FunctionFamily, type FunctionVariant } from './function-family';

const code = String.raw;

function sortedCases(slug: string): unknown[][] {
  const rng = casesRng('binary-search', slug);
  const base: unknown[][] = [
    [[1, 3, 5, 7], 5],
    [[1, 3, 5, 7], 4],
    [[], 1],
    [[2, 2, 2, 3], 2],
    [[1, 2, 3], 0],
    [[1, 2, 3], 9],
  ];
  return [
    ...base,
    ...generate(3, () => {
      const values = randomInts(rng, rng.int(1, 12), 0, 15).sort((a, b) => a - b);
      return [values, rng.int(-1, 16)];
    }),
  ];
}

const binarySearch: FunctionVariant[] = [
  {
    slug: 'lower-bound',
    difficulty: 'medium',
    entry: 'lowerBound',
    signature: 'export function lowerBound(sorted: number[], target: number): number',
    description:
      'In an array sorted ascending, return the first index whose value is >= target (sorted.length if none), in O(log n).',
    solution: code`export function lowerBound(sorted: number[], target: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
`,
    wrong: code`export function lowerBound(sorted: number[], target: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
`,
    cases: sortedCases('lower-bound'),
  },
  {
    slug: 'upper-bound',
    difficulty: 'medium',
    entry: 'upperBound',
    signature: 'export function upperBound(sorted: number[], target: number): number',
    description:
      'In an array sorted ascending, return the first index whose value is > target (sorted.length if none), in O(log n).',
    solution: code`export function upperBound(sorted: number[], target: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
`,
    wrong: code`export function upperBound(sorted: number[], target: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
`,
    cases: sortedCases('upper-bound'),
  },
  {
    slug: 'count-occurrences',
    difficulty: 'medium',
    entry: 'countInSorted',
    signature: 'export function countInSorted(sorted: number[], target: number): number',
    description: 'How many times target occurs in an array sorted ascending.',
    solution: code`export function countInSorted(sorted: number[], target: number): number {
  const bound = (strict: boolean) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < target || (strict && sorted[mid] === target)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return bound(true) - bound(false);
}
`,
    wrong: code`export function countInSorted(sorted: number[], target: number): number {
  const at = sorted.indexOf(target);
  return at < 0 ? 0 : sorted.lastIndexOf(target) - at;
}
`,
    cases: sortedCases('count-occurrences'),
    javascript: true,
  },
  {
    slug: 'search',
    difficulty: 'easy',
    entry: 'binarySearch',
    signature: 'export function binarySearch(sorted: number[], target: number): number',
    description:
      'Return an index of target in the ascending array of distinct values, or -1 if it is absent, in O(log n).',
    solution: code`export function binarySearch(sorted: number[], target: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === target) return mid;
    if (sorted[mid] < target) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
`,
    wrong: code`export function binarySearch(sorted: number[], target: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === target) return mid;
    if (sorted[mid] < target) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
`,
    cases: [
      [[1, 3, 5, 7, 9], 7],
      [[1, 3, 5, 7, 9], 4],
      [[], 3],
      [[42], 42],
      [[1, 2], 2],
      [[-10, -5, 0, 5], -10],
      [[1, 3, 5, 7, 9], 9],
    ],
  },
];

const twoPointers: FunctionVariant[] = [
  {
    slug: 'pair-with-sum',
    difficulty: 'easy',
    entry: 'pairWithSum',
    signature: 'export function pairWithSum(values: number[], target: number): [number, number] | null',
    description:
      'Return the indices [i, j] (i < j) of two values that add up to target, choosing the smallest j and then the smallest i; null if there is no such pair.',
    solution: code`export function pairWithSum(values: number[], target: number): [number, number] | null {
  const seen = new Map<number, number>();
  for (let j = 0; j < values.length; j++) {
    const i = seen.get(target - values[j]);
    if (i !== undefined) return [i, j];
    if (!seen.has(values[j])) seen.set(values[j], j);
  }
  return null;
}
`,
    wrong: code`export function pairWithSum(values: number[], target: number): [number, number] | null {
  const seen = new Map<number, number>();
  for (let j = 0; j < values.length; j++) {
    seen.set(values[j], j);
    const i = seen.get(target - values[j]);
    if (i !== undefined) return [i, j];
  }
  return null;
}
`,
    cases: [
      [[2, 7, 11, 15], 9],
      [[3, 3], 6],
      [[1, 2, 3], 7],
      [[], 0],
      [[4, 1, 4, 3], 8],
      [[5, 0, -5], 0],
      [[1, 5, 5, 1], 2],
    ],
  },
  {
    slug: 'max-profit',
    difficulty: 'easy',
    entry: 'maxProfit',
    signature: 'export function maxProfit(prices: number[]): number',
    description:
      'Given daily prices, the largest profit from buying on one day and selling on a later day; 0 if no profit is possible.',
    solution: code`export function maxProfit(prices: number[]): number {
  let low = Infinity;
  let best = 0;
  for (const price of prices) {
    low = Math.min(low, price);
    best = Math.max(best, price - low);
  }
  return best;
}
`,
    wrong: code`export function maxProfit(prices: number[]): number {
  return prices.length === 0 ? 0 : Math.max(...prices) - Math.min(...prices);
}
`,
    cases: [[[7, 1, 5, 3, 6, 4]], [[7, 6, 4, 3, 1]], [[]], [[5]], [[2, 4, 1]], [[3, 8, 1, 9]]],
  },
  ...[2, 3].map((k): FunctionVariant => ({
    slug: `duplicate-within-${k}`,
    difficulty: 'medium',
    entry: 'hasNearbyDuplicate',
    signature: 'export function hasNearbyDuplicate(values: number[]): boolean',
    description: `Are there two equal values whose indices differ by at most ${k}?`,
    solution: code`export function hasNearbyDuplicate(values: number[]): boolean {
  const last = new Map<number, number>();
  for (let i = 0; i < values.length; i++) {
    const previous = last.get(values[i]);
    if (previous !== undefined && i - previous <= ${k}) return true;
    last.set(values[i], i);
  }
  return false;
}
`,
    wrong: code`export function hasNearbyDuplicate(values: number[]): boolean {
  const first = new Map<number, number>();
  for (let i = 0; i < values.length; i++) {
    const previous = first.get(values[i]);
    if (previous !== undefined && i - previous <= ${k}) return true;
    if (previous === undefined) first.set(values[i], i);
  }
  return false;
}
`,
    cases: [
      [[1, 2, 3, 1]],
      [[1, 2, 3, 4, 1]],
      [[]],
      [[5, 5]],
      [[1, 0, 1, 1]],
      [[7, 1, 2, 3, 7, 9, 7]],
      [[4, 1, 2, 4, 3, 1, 4]],
    ],
    javascript: k === 3,
  })),
];

const dynamic: FunctionVariant[] = [
  ...(
    [
      [[1, 2], 'stairs-1-2'],
      [[1, 2, 3], 'stairs-1-2-3'],
    ] as const
  ).map(([steps, slug]): FunctionVariant => ({
    slug,
    difficulty: 'easy',
    entry: 'countWays',
    signature: 'export function countWays(n: number): number',
    description: `In how many ways can you climb n stairs taking ${steps.join(', ').replace(/, (\d)$/, ' or $1')} steps at a time (order matters)? countWays(0) is 1.`,
    solution: code`export function countWays(n: number): number {
  const ways = [1];
  for (let i = 1; i <= n; i++) ways[i] = ${JSON.stringify(steps)}.reduce((sum, step) => sum + (i >= step ? ways[i - step] : 0), 0);
  return ways[n];
}
`,
    wrong:
      steps.length === 2
        ? code`export function countWays(n: number): number {
  if (n <= 2) return n;
  let a = 1;
  let b = 2;
  for (let i = 3; i <= n; i++) [a, b] = [b, a + b];
  return b;
}
`
        : code`export function countWays(n: number): number {
  const ways = [1, 1];
  for (let i = 2; i <= n; i++) ways[i] = ways[i - 1] + ways[i - 2];
  return ways[n];
}
`,
    cases: [[0], [1], [2], [3], [4], [10], [30]],
  })),
  {
    slug: 'coin-change-ways',
    difficulty: 'medium',
    entry: 'coinCombinations',
    signature: 'export function coinCombinations(amount: number): number',
    description:
      'With unlimited coins of 1, 2 and 5, in how many ways can you make amount? Ways that differ only in order count once; amount 0 has one way.',
    solution: code`export function coinCombinations(amount: number): number {
  const ways = new Array(amount + 1).fill(0);
  ways[0] = 1;
  for (const coin of [1, 2, 5]) for (let a = coin; a <= amount; a++) ways[a] += ways[a - coin];
  return ways[amount];
}
`,
    wrong: code`export function coinCombinations(amount: number): number {
  const ways = new Array(amount + 1).fill(0);
  ways[0] = 1;
  for (let a = 1; a <= amount; a++) for (const coin of [1, 2, 5]) if (coin <= a) ways[a] += ways[a - coin];
  return ways[amount];
}
`,
    cases: [[0], [1], [3], [5], [11], [50], [100]],
    known: [[[5], 4]],
  },
  {
    slug: 'min-coins',
    difficulty: 'medium',
    entry: 'fewestCoins',
    signature: 'export function fewestCoins(amount: number): number',
    description:
      'The fewest coins of values 1, 3 and 4 that add up to amount (greedy does not always work: 6 = 3 + 3).',
    solution: code`export function fewestCoins(amount: number): number {
  const best = [0];
  for (let a = 1; a <= amount; a++) best[a] = 1 + Math.min(...[1, 3, 4].filter((coin) => coin <= a).map((coin) => best[a - coin]));
  return best[amount];
}
`,
    wrong: code`export function fewestCoins(amount: number): number {
  let count = 0;
  for (const coin of [4, 3, 1]) {
    count += Math.floor(amount / coin);
    amount %= coin;
  }
  return count;
}
`,
    cases: [[0], [1], [6], [7], [10], [23], [100]],
    known: [[[6], 2]],
    javascript: true,
  },
  {
    slug: 'lis',
    difficulty: 'hard',
    entry: 'longestIncreasingSubsequence',
    signature: 'export function longestIncreasingSubsequence(values: number[]): number',
    description: 'The length of the longest strictly increasing subsequence (not necessarily contiguous).',
    solution: code`export function longestIncreasingSubsequence(values: number[]): number {
  const tails: number[] = [];
  for (const value of values) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = value;
  }
  return tails.length;
}
`,
    wrong: code`export function longestIncreasingSubsequence(values: number[]): number {
  let best = values.length > 0 ? 1 : 0;
  let run = 1;
  for (let i = 1; i < values.length; i++) {
    run = values[i] > values[i - 1] ? run + 1 : 1;
    best = Math.max(best, run);
  }
  return best;
}
`,
    cases: [[[10, 9, 2, 5, 3, 7, 101, 18]], [[]], [[7, 7, 7]], [[1, 2, 3]], [[3, 1, 2, 1, 8, 5, 6]], [[5, 4, 3, 2, 1]]],
    known: [[[[10, 9, 2, 5, 3, 7, 101, 18]], 4]],
  },
  {
    slug: 'edit-distance',
    difficulty: 'hard',
    entry: 'editDistance',
    signature: 'export function editDistance(a: string, b: string): number',
    description:
      'The Levenshtein distance: the fewest single-character insertions, deletions and substitutions that turn a into b.',
    solution: code`export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
`,
    wrong: code`export function editDistance(a: string, b: string): number {
  let differences = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) differences += 1;
  return differences;
}
`,
    cases: [
      ['kitten', 'sitting'],
      ['', 'abc'],
      ['same', 'same'],
      ['flaw', 'lawn'],
      ['intention', 'execution'],
      ['a', ''],
    ],
    known: [[['kitten', 'sitting'], 3]],
  },
  {
    slug: 'lcs',
    difficulty: 'hard',
    entry: 'lcsLength',
    signature: 'export function lcsLength(a: string, b: string): number',
    description: 'The length of the longest common subsequence of a and b.',
    solution: code`export function lcsLength(a: string, b: string): number {
  let previous = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const current = [0];
    for (let j = 1; j <= b.length; j++) current[j] = a[i - 1] === b[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], current[j - 1]);
    previous = current;
  }
  return previous[b.length];
}
`,
    wrong: code`export function lcsLength(a: string, b: string): number {
  let count = 0;
  for (const ch of new Set(a)) if (b.includes(ch)) count += 1;
  return count;
}
`,
    cases: [
      ['abcde', 'ace'],
      ['abc', 'def'],
      ['', 'x'],
      ['aaaa', 'aa'],
      ['AGGTAB', 'GXTXAYB'],
      ['abc', 'cba'],
    ],
    known: [[['AGGTAB', 'GXTXAYB'], 4]],
  },
];

const grids: FunctionVariant[] = [
  {
    slug: 'count-islands',
    difficulty: 'medium',
    entry: 'countIslands',
    signature: 'export function countIslands(grid: string[]): number',
    description:
      'The grid is a list of equal-length rows of "#" (land) and "." (water). Count the islands: groups of land cells connected horizontally or vertically.',
    solution: code`export function countIslands(grid: string[]): number {
  const seen = grid.map((row) => row.split('').map(() => false));
  let islands = 0;
  for (let r = 0; r < grid.length; r++) {
    for (let c = 0; c < grid[r].length; c++) {
      if (grid[r][c] !== '#' || seen[r][c]) continue;
      islands += 1;
      const stack = [[r, c]];
      seen[r][c] = true;
      while (stack.length > 0) {
        const [y, x] = stack.pop() as number[];
        for (const [dy, dx] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
          const ny = y + dy;
          const nx = x + dx;
          if (grid[ny]?.[nx] === '#' && !seen[ny][nx]) {
            seen[ny][nx] = true;
            stack.push([ny, nx]);
          }
        }
      }
    }
  }
  return islands;
}
`,
    wrong: code`export function countIslands(grid: string[]): number {
  let islands = 0;
  for (let r = 0; r < grid.length; r++) {
    for (let c = 0; c < grid[r].length; c++) {
      if (grid[r][c] === '#' && grid[r - 1]?.[c] !== '#' && grid[r][c - 1] !== '#') islands += 1;
    }
  }
  return islands;
}
`,
    cases: [
      [['##..', '#...', '..##']],
      [[]],
      [['....']],
      [['#.#', '.#.', '#.#']],
      [['###', '#.#', '###']],
      [['.#', '##']],
      [['#..#', '####']],
    ],
  },
  {
    slug: 'shortest-path',
    difficulty: 'hard',
    entry: 'shortestPath',
    signature: 'export function shortestPath(grid: string[]): number',
    description:
      'The grid is a list of equal-length rows of "." (open) and "#" (wall). Return the number of moves (up, down, left, right) of a shortest path from the top-left to the bottom-right cell, or -1 if there is none (also when either corner is a wall).',
    solution: code`export function shortestPath(grid: string[]): number {
  const rows = grid.length;
  const cols = rows > 0 ? grid[0].length : 0;
  if (rows === 0 || grid[0][0] === '#' || grid[rows - 1][cols - 1] === '#') return -1;
  const distance = grid.map((row) => row.split('').map(() => -1));
  distance[0][0] = 0;
  const queue = [[0, 0]];
  for (let head = 0; head < queue.length; head++) {
    const [y, x] = queue[head];
    if (y === rows - 1 && x === cols - 1) return distance[y][x];
    for (const [dy, dx] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const ny = y + dy;
      const nx = x + dx;
      if (grid[ny]?.[nx] === '.' && distance[ny][nx] < 0) {
        distance[ny][nx] = distance[y][x] + 1;
        queue.push([ny, nx]);
      }
    }
  }
  return -1;
}
`,
    wrong: code`export function shortestPath(grid: string[]): number {
  const rows = grid.length;
  const cols = rows > 0 ? grid[0].length : 0;
  if (rows === 0 || grid[0][0] === '#' || grid[rows - 1][cols - 1] === '#') return -1;
  return rows - 1 + cols - 1;
}
`,
    cases: [
      [['...', '.#.', '...']],
      [['.#', '#.']],
      [['.']],
      [['..#', '#..', '##.']],
      [['....', '###.', '....', '.###', '....']],
      [['#..', '...']],
    ],
  },
  {
    slug: 'flood-fill',
    difficulty: 'medium',
    entry: 'floodFill',
    signature: 'export function floodFill(grid: string[], row: number, col: number, fill: string): string[]',
    description:
      'Return a new grid in which the region of the cell (row, col) — the cells of the same character connected horizontally or vertically — is replaced by the character fill.',
    solution: code`export function floodFill(grid: string[], row: number, col: number, fill: string): string[] {
  const cells = grid.map((line) => line.split(''));
  const target = cells[row][col];
  if (target === fill) return [...grid];
  const stack = [[row, col]];
  while (stack.length > 0) {
    const [y, x] = stack.pop() as number[];
    if (cells[y]?.[x] !== target) continue;
    cells[y][x] = fill;
    stack.push([y + 1, x], [y - 1, x], [y, x + 1], [y, x - 1]);
  }
  return cells.map((line) => line.join(''));
}
`,
    wrong: code`export function floodFill(grid: string[], row: number, col: number, fill: string): string[] {
  const target = grid[row][col];
  return grid.map((line) => line.split(target).join(fill));
}
`,
    cases: [
      [['aab', 'abb', 'bba'], 0, 0, 'x'],
      [['...', '.#.', '...'], 1, 1, 'o'],
      [['z'], 0, 0, 'z'],
      [['ab', 'ba'], 0, 1, 'c'],
      [['1111', '1001', '1111'], 1, 1, '2'],
      [['aaa', 'bbb', 'aaa'], 2, 0, '-'],
    ],
    javascript: true,
  },
];

const sorting: FunctionVariant[] = [
  {
    slug: 'length-then-alpha',
    difficulty: 'easy',
    entry: 'sortByLength',
    signature: 'export function sortByLength(words: string[]): string[]',
    description:
      'Return a new array of the words sorted by length, shortest first; words of equal length in alphabetical order.',
    solution: code`export function sortByLength(words: string[]): string[] {
  return [...words].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}
`,
    wrong: code`export function sortByLength(words: string[]): string[] {
  return [...words].sort((a, b) => a.length - b.length);
}
`,
    cases: [
      [['pear', 'fig', 'apple', 'kiwi']],
      [[]],
      [['b', 'a', 'c']],
      [['same', 'size', 'abcd']],
      [['longer', 'a', 'mid']],
      [['dd', 'cc', 'bb', 'aa']],
    ],
  },
  {
    slug: 'by-frequency',
    difficulty: 'medium',
    entry: 'sortByFrequency',
    signature: 'export function sortByFrequency(values: number[]): number[]',
    description:
      'Return the values sorted by how often they occur, most frequent first; equal frequencies in increasing numeric order. Repeated values stay together.',
    solution: code`export function sortByFrequency(values: number[]): number[] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...values].sort((a, b) => (counts.get(b) as number) - (counts.get(a) as number) || a - b);
}
`,
    wrong: code`export function sortByFrequency(values: number[]): number[] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...values].sort((a, b) => (counts.get(b) as number) - (counts.get(a) as number));
}
`,
    cases: [[[1, 1, 2, 2, 2, 3]], [[]], [[4, 6, 4, 6]], [[9]], [[3, 1, 2, 3, 1, 3]], [[10, 2, 10, 2, 5]]],
  },
  {
    slug: 'by-key',
    difficulty: 'easy',
    entry: 'sortByAge',
    signature: 'export function sortByAge(people: { name: string; age: number }[]): { name: string; age: number }[]',
    description:
      'Return a new array of the people sorted by age, youngest first, keeping the original order of people with the same age. Do not modify the input.',
    solution: code`export function sortByAge(people: { name: string; age: number }[]): { name: string; age: number }[] {
  return [...people].sort((a, b) => a.age - b.age);
}
`,
    wrong: code`export function sortByAge(people: { name: string; age: number }[]): { name: string; age: number }[] {
  return [...people].sort((a, b) => a.age - b.age || (a.name < b.name ? -1 : 1));
}
`,
    cases: [
      [
        [
          { name: 'Ada', age: 36 },
          { name: 'Alan', age: 41 },
          { name: 'Grace', age: 30 },
        ],
      ],
      [[]],
      [
        [
          { name: 'Zed', age: 20 },
          { name: 'Amy', age: 20 },
        ],
      ],
      [[{ name: 'Solo', age: 1 }]],
      [
        [
          { name: 'c', age: 3 },
          { name: 'b', age: 1 },
          { name: 'a', age: 3 },
          { name: 'd', age: 1 },
        ],
      ],
      [
        [
          { name: 'x', age: 50 },
          { name: 'y', age: 5 },
        ],
      ],
    ],
    javascript: true,
  },
];

export const ALGORITHM_FAMILIES: readonly FunctionFamily[] = [
  { name: 'binary-search', category: 'algorithms', split: 'test', variants: binarySearch },
  { name: 'two-pointers', category: 'algorithms', split: 'train', variants: twoPointers },
  { name: 'dynamic-programming', category: 'algorithms', split: 'train', variants: dynamic },
  { name: 'grids', category: 'algorithms', split: 'test', variants: grids },
  { name: 'sorting', category: 'algorithms', split: 'train', variants: sorting },
];
