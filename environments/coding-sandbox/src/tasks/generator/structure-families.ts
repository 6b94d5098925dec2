import type { ClassVariant, FunctionFamily, FunctionVariant } from './function-family';

const code = String.raw;

const stacks: ClassVariant[] = [
  {
    slug: 'min-stack',
    difficulty: 'medium',
    entry: 'MinStack',
    description:
      'A stack that also reports its smallest element in O(1): push(value), pop() (returns the removed value, undefined when empty), top() (undefined when empty), min() (undefined when empty) and size().',
    starter: code`export class MinStack {
  push(value: number): void {
    throw new Error('not implemented');
  }
  pop(): number | undefined {
    throw new Error('not implemented');
  }
  top(): number | undefined {
    throw new Error('not implemented');
  }
  min(): number | undefined {
    throw new Error('not implemented');
  }
  size(): number {
    throw new Error('not implemented');
  }
}
`,
    solution: code`export class MinStack {
  private items: number[] = [];
  private mins: number[] = [];
  push(value: number): void {
    this.items.push(value);
    this.mins.push(this.mins.length === 0 ? value : Math.min(value, this.mins[this.mins.length - 1]));
  }
  pop(): number | undefined {
    this.mins.pop();
    return this.items.pop();
  }
  top(): number | undefined {
    return this.items[this.items.length - 1];
  }
  min(): number | undefined {
    return this.mins[this.mins.length - 1];
  }
  size(): number {
    return this.items.length;
  }
}
`,
    wrong: code`export class MinStack {
  private items: number[] = [];
  private smallest: number | undefined = undefined;
  push(value: number): void {
    this.items.push(value);
    if (this.smallest === undefined || value < this.smallest) this.smallest = value;
  }
  pop(): number | undefined {
    return this.items.pop();
  }
  top(): number | undefined {
    return this.items[this.items.length - 1];
  }
  min(): number | undefined {
    return this.items.length === 0 ? undefined : this.smallest;
  }
  size(): number {
    return this.items.length;
  }
}
`,
    sequences: [
      { args: [], calls: [['push', 5], ['push', 3], ['push', 7], ['min'], ['top'], ['size']] },
      { args: [], calls: [['push', 2], ['push', 1], ['pop'], ['min'], ['top']] },
      { args: [], calls: [['min'], ['pop'], ['top'], ['size']] },
      { args: [], calls: [['push', -1], ['push', -1], ['pop'], ['min'], ['pop'], ['min']] },
      { args: [], calls: [['push', 4], ['push', 9], ['push', 1], ['pop'], ['pop'], ['min'], ['size']] },
      {
        args: [],
        calls: [['push', 3], ['push', 2], ['push', 1], ['pop'], ['min'], ['pop'], ['min'], ['push', 0], ['min']],
      },
    ],
  },
  {
    slug: 'queue-from-stacks',
    difficulty: 'medium',
    entry: 'StackQueue',
    description:
      'A FIFO queue built from two arrays used only as stacks (push/pop): enqueue(value), dequeue() (undefined when empty), peek() (undefined when empty) and size().',
    starter: code`export class StackQueue<T> {
  enqueue(value: T): void {
    throw new Error('not implemented');
  }
  dequeue(): T | undefined {
    throw new Error('not implemented');
  }
  peek(): T | undefined {
    throw new Error('not implemented');
  }
  size(): number {
    throw new Error('not implemented');
  }
}
`,
    solution: code`export class StackQueue<T> {
  private inbox: T[] = [];
  private outbox: T[] = [];
  enqueue(value: T): void {
    this.inbox.push(value);
  }
  private shift(): void {
    if (this.outbox.length === 0) while (this.inbox.length > 0) this.outbox.push(this.inbox.pop() as T);
  }
  dequeue(): T | undefined {
    this.shift();
    return this.outbox.pop();
  }
  peek(): T | undefined {
    this.shift();
    return this.outbox[this.outbox.length - 1];
  }
  size(): number {
    return this.inbox.length + this.outbox.length;
  }
}
`,
    wrong: code`export class StackQueue<T> {
  private inbox: T[] = [];
  private outbox: T[] = [];
  enqueue(value: T): void {
    this.inbox.push(value);
  }
  dequeue(): T | undefined {
    while (this.inbox.length > 0) this.outbox.push(this.inbox.pop() as T);
    return this.outbox.pop();
  }
  peek(): T | undefined {
    while (this.inbox.length > 0) this.outbox.push(this.inbox.pop() as T);
    return this.outbox[this.outbox.length - 1];
  }
  size(): number {
    return this.inbox.length + this.outbox.length;
  }
}
`,
    sequences: [
      { args: [], calls: [['enqueue', 1], ['enqueue', 2], ['enqueue', 3], ['dequeue'], ['peek'], ['size']] },
      { args: [], calls: [['dequeue'], ['peek'], ['size']] },
      {
        args: [],
        calls: [
          ['enqueue', 'a'],
          ['dequeue'],
          ['enqueue', 'b'],
          ['enqueue', 'c'],
          ['dequeue'],
          ['dequeue'],
          ['dequeue'],
        ],
      },
      {
        args: [],
        calls: [
          ['enqueue', 1],
          ['enqueue', 2],
          ['dequeue'],
          ['enqueue', 3],
          ['enqueue', 4],
          ['dequeue'],
          ['dequeue'],
          ['dequeue'],
        ],
      },
      { args: [], calls: [['enqueue', 5], ['peek'], ['enqueue', 6], ['peek'], ['size']] },
    ],
    javascript: true,
  },
  ...[3, 5].map((capacity): ClassVariant => ({
    slug: `ring-buffer-${capacity}`,
    difficulty: 'medium',
    entry: 'RingBuffer',
    description: `A buffer that keeps the last ${capacity} values pushed: push(value) adds a value (dropping the oldest when ${capacity} are already held), toArray() returns the held values oldest first, and size().`,
    starter: code`export class RingBuffer {
  push(value: number): void {
    throw new Error('not implemented');
  }
  toArray(): number[] {
    throw new Error('not implemented');
  }
  size(): number {
    throw new Error('not implemented');
  }
}
`,
    solution: code`export class RingBuffer {
  private slots: number[] = new Array(${capacity});
  private start = 0;
  private count = 0;
  push(value: number): void {
    this.slots[(this.start + this.count) % ${capacity}] = value;
    if (this.count < ${capacity}) this.count += 1;
    else this.start = (this.start + 1) % ${capacity};
  }
  toArray(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.slots[(this.start + i) % ${capacity}]);
    return out;
  }
  size(): number {
    return this.count;
  }
}
`,
    wrong: code`export class RingBuffer {
  private slots: number[] = [];
  push(value: number): void {
    if (this.slots.length === ${capacity}) this.slots.pop();
    this.slots.push(value);
  }
  toArray(): number[] {
    return [...this.slots];
  }
  size(): number {
    return this.slots.length;
  }
}
`,
    sequences: [
      { args: [], calls: [['push', 1], ['push', 2], ['toArray'], ['size']] },
      {
        args: [],
        calls: [
          ...Array.from({ length: capacity + 2 }, (_, i) => ['push', i + 1] as [string, number]),
          ['toArray'],
          ['size'],
        ],
      },
      { args: [], calls: [['toArray'], ['size']] },
      {
        args: [],
        calls: [
          ...Array.from({ length: 2 * capacity + 1 }, (_, i) => ['push', i * 10] as [string, number]),
          ['toArray'],
        ],
      },
      {
        args: [],
        calls: [
          ...Array.from({ length: capacity }, (_, i) => ['push', -i] as [string, number]),
          ['toArray'],
          ['push', 99],
          ['toArray'],
        ],
      },
    ],
  })),
];

const caches: ClassVariant[] = [
  {
    slug: 'lru',
    difficulty: 'hard',
    entry: 'LruCache',
    description:
      'A least-recently-used cache with a fixed capacity (given to the constructor): get(key) returns the value or undefined and marks the key as recently used; put(key, value) inserts or updates (also marking it used) and, when the cache is over capacity, evicts the least recently used key; size().',
    starter: code`export class LruCache<K, V> {
  constructor(capacity: number) {}
  get(key: K): V | undefined {
    throw new Error('not implemented');
  }
  put(key: K, value: V): void {
    throw new Error('not implemented');
  }
  size(): number {
    throw new Error('not implemented');
  }
}
`,
    solution: code`export class LruCache<K, V> {
  private entries = new Map<K, V>();
  constructor(private capacity: number) {}
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }
  put(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
  size(): number {
    return this.entries.size;
  }
}
`,
    wrong: code`export class LruCache<K, V> {
  private entries = new Map<K, V>();
  constructor(private capacity: number) {}
  get(key: K): V | undefined {
    return this.entries.get(key);
  }
  put(key: K, value: V): void {
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
  size(): number {
    return this.entries.size;
  }
}
`,
    sequences: [
      {
        args: [2],
        calls: [
          ['put', 'a', 1],
          ['put', 'b', 2],
          ['get', 'a'],
          ['put', 'c', 3],
          ['get', 'b'],
          ['get', 'a'],
          ['get', 'c'],
        ],
      },
      { args: [1], calls: [['put', 'x', 1], ['put', 'y', 2], ['get', 'x'], ['get', 'y'], ['size']] },
      { args: [2], calls: [['put', 'a', 1], ['put', 'a', 10], ['put', 'b', 2], ['get', 'a'], ['size']] },
      {
        args: [2],
        calls: [
          ['put', 'a', 1],
          ['put', 'b', 2],
          ['put', 'a', 3],
          ['put', 'c', 4],
          ['get', 'a'],
          ['get', 'b'],
          ['get', 'c'],
        ],
      },
      {
        args: [3],
        calls: [
          ['get', 'none'],
          ['put', 1, 'one'],
          ['put', 2, 'two'],
          ['put', 3, 'three'],
          ['get', 1],
          ['put', 4, 'four'],
          ['get', 2],
          ['get', 3],
          ['size'],
        ],
      },
    ],
  },
  {
    slug: 'counter',
    difficulty: 'medium',
    entry: 'Counter',
    description:
      'Counts occurrences of strings: add(item) counts one more, count(item) returns its count (0 if never added), mostCommon(n) returns the n [item, count] pairs with the highest counts, ties broken alphabetically, and total() the number of add calls.',
    starter: code`export class Counter {
  add(item: string): void {
    throw new Error('not implemented');
  }
  count(item: string): number {
    throw new Error('not implemented');
  }
  mostCommon(n: number): [string, number][] {
    throw new Error('not implemented');
  }
  total(): number {
    throw new Error('not implemented');
  }
}
`,
    solution: code`export class Counter {
  private counts = new Map<string, number>();
  private added = 0;
  add(item: string): void {
    this.counts.set(item, (this.counts.get(item) ?? 0) + 1);
    this.added += 1;
  }
  count(item: string): number {
    return this.counts.get(item) ?? 0;
  }
  mostCommon(n: number): [string, number][] {
    return [...this.counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
  }
  total(): number {
    return this.added;
  }
}
`,
    wrong: code`export class Counter {
  private counts: Record<string, number> = {};
  add(item: string): void {
    this.counts[item] = (this.counts[item] ?? 0) + 1;
  }
  count(item: string): number {
    return this.counts[item] ?? 0;
  }
  mostCommon(n: number): [string, number][] {
    return Object.entries(this.counts).sort((a, b) => b[1] - a[1]).slice(0, n);
  }
  total(): number {
    return Object.keys(this.counts).length;
  }
}
`,
    sequences: [
      { args: [], calls: [['add', 'a'], ['add', 'b'], ['add', 'a'], ['count', 'a'], ['count', 'z'], ['total']] },
      {
        args: [],
        calls: [
          ['add', 'x'],
          ['add', 'y'],
          ['add', 'y'],
          ['add', 'z'],
          ['add', 'z'],
          ['mostCommon', 2],
        ],
      },
      { args: [], calls: [['mostCommon', 3], ['total']] },
      {
        args: [],
        calls: [
          ['add', 'b'],
          ['add', 'a'],
          ['mostCommon', 5],
        ],
      },
      {
        args: [],
        calls: [
          ['add', 'constructor'],
          ['add', 'toString'],
          ['count', 'constructor'],
          ['count', 'valueOf'],
        ],
      },
    ],
    javascript: true,
  },
];

const matrixCases: unknown[][] = [
  [
    [
      [1, 2],
      [3, 4],
    ],
  ],
  [
    [
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ],
  ],
  [[[5]]],
  [
    [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ],
  ],
  [
    [
      [2, -1, 0, 3],
      [1, 1, 1, 1],
      [0, 0, 0, 0],
      [9, 8, 7, 6],
    ],
  ],
];
const matrices: FunctionVariant[] = [
  {
    slug: 'transpose',
    difficulty: 'easy',
    entry: 'transpose',
    signature: 'export function transpose(matrix: number[][]): number[][]',
    description: 'Return the transpose of a (possibly non-square, non-empty) matrix: rows become columns.',
    solution: code`export function transpose(matrix: number[][]): number[][] {
  return matrix[0].map((_, column) => matrix.map((row) => row[column]));
}
`,
    wrong: code`export function transpose(matrix: number[][]): number[][] {
  return matrix.map((row, r) => row.map((_, c) => matrix[c]?.[r] ?? 0));
}
`,
    cases: [...matrixCases, [[[1, 2, 3]]], [[[1], [2]]]],
  },
  {
    slug: 'rotate-clockwise',
    difficulty: 'medium',
    entry: 'rotateClockwise',
    signature: 'export function rotateClockwise(matrix: number[][]): number[][]',
    description: 'Return a new matrix: the (possibly non-square, non-empty) matrix rotated 90° clockwise.',
    solution: code`export function rotateClockwise(matrix: number[][]): number[][] {
  return matrix[0].map((_, column) => matrix.map((row) => row[column]).reverse());
}
`,
    wrong: code`export function rotateClockwise(matrix: number[][]): number[][] {
  return matrix[0].map((_, column) => matrix.map((row) => row[column])).reverse();
}
`,
    cases: [...matrixCases, [[[1, 2, 3]]]],
  },
  {
    slug: 'spiral',
    difficulty: 'hard',
    entry: 'spiralOrder',
    signature: 'export function spiralOrder(matrix: number[][]): number[]',
    description:
      'Return the elements of the matrix in clockwise spiral order, starting at the top-left corner. The matrix may be empty ([]) or non-square.',
    solution: code`export function spiralOrder(matrix: number[][]): number[] {
  const out: number[] = [];
  if (matrix.length === 0) return out;
  let top = 0;
  let bottom = matrix.length - 1;
  let left = 0;
  let right = matrix[0].length - 1;
  while (top <= bottom && left <= right) {
    for (let c = left; c <= right; c++) out.push(matrix[top][c]);
    for (let r = top + 1; r <= bottom; r++) out.push(matrix[r][right]);
    if (top < bottom) for (let c = right - 1; c >= left; c--) out.push(matrix[bottom][c]);
    if (left < right) for (let r = bottom - 1; r > top; r--) out.push(matrix[r][left]);
    top += 1;
    bottom -= 1;
    left += 1;
    right -= 1;
  }
  return out;
}
`,
    wrong: code`export function spiralOrder(matrix: number[][]): number[] {
  const out: number[] = [];
  if (matrix.length === 0) return out;
  let top = 0;
  let bottom = matrix.length - 1;
  let left = 0;
  let right = matrix[0].length - 1;
  while (top <= bottom && left <= right) {
    for (let c = left; c <= right; c++) out.push(matrix[top][c]);
    for (let r = top + 1; r <= bottom; r++) out.push(matrix[r][right]);
    for (let c = right - 1; c >= left; c--) out.push(matrix[bottom][c]);
    for (let r = bottom - 1; r > top; r--) out.push(matrix[r][left]);
    top += 1;
    bottom -= 1;
    left += 1;
    right -= 1;
  }
  return out;
}
`,
    cases: [...matrixCases, [[]], [[[1, 2, 3]]], [[[1], [2], [3]]]],
  },
  {
    slug: 'diagonal-sum',
    difficulty: 'easy',
    entry: 'diagonalSum',
    signature: 'export function diagonalSum(matrix: number[][]): number',
    description: 'Sum of both diagonals of a square matrix; the centre element of an odd-sized matrix is counted once.',
    solution: code`export function diagonalSum(matrix: number[][]): number {
  const n = matrix.length;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += matrix[i][i];
    if (i !== n - 1 - i) sum += matrix[i][n - 1 - i];
  }
  return sum;
}
`,
    wrong: code`export function diagonalSum(matrix: number[][]): number {
  const n = matrix.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += matrix[i][i] + matrix[i][n - 1 - i];
  return sum;
}
`,
    cases: matrixCases
      .filter((args) => (args[0] as number[][]).length === (args[0] as number[][])[0]!.length)
      .concat([
        [
          [
            [1, 1, 1],
            [1, 1, 1],
            [1, 1, 1],
          ],
        ],
        [
          [
            [0, 2],
            [3, 0],
          ],
        ],
      ]),
    javascript: true,
  },
  {
    slug: 'is-identity',
    difficulty: 'easy',
    entry: 'isIdentity',
    signature: 'export function isIdentity(matrix: number[][]): boolean',
    description: 'Is the matrix square with 1 on the main diagonal and 0 everywhere else?',
    solution: code`export function isIdentity(matrix: number[][]): boolean {
  return matrix.every((row, r) => row.length === matrix.length && row.every((value, c) => value === (r === c ? 1 : 0)));
}
`,
    wrong: code`export function isIdentity(matrix: number[][]): boolean {
  return matrix.every((row, r) => row[r] === 1);
}
`,
    cases: [
      ...matrixCases,
      [
        [
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      ],
      [
        [
          [1, 0, 0],
          [0, 1, 0],
        ],
      ],
    ],
  },
  {
    slug: 'multiply',
    difficulty: 'medium',
    entry: 'multiply',
    signature: 'export function multiply(a: number[][], b: number[][]): number[][]',
    description: 'The matrix product a × b (a has as many columns as b has rows; neither is empty).',
    solution: code`export function multiply(a: number[][], b: number[][]): number[][] {
  return a.map((row) => b[0].map((_, c) => row.reduce((sum, value, k) => sum + value * b[k][c], 0)));
}
`,
    wrong: code`export function multiply(a: number[][], b: number[][]): number[][] {
  return a.map((row, r) => row.map((value, c) => value * b[r][c]));
}
`,
    cases: [
      [
        [
          [1, 2],
          [3, 4],
        ],
        [
          [5, 6],
          [7, 8],
        ],
      ],
      [[[1, 2, 3]], [[1], [2], [3]]],
      [[[2]], [[3]]],
      [
        [
          [1, 0],
          [0, 1],
        ],
        [
          [9, 8],
          [7, 6],
        ],
      ],
      [[[1], [2]], [[3, 4]]],
      [
        [
          [1, -1],
          [2, 0],
        ],
        [
          [0, 1],
          [1, 0],
        ],
      ],
    ],
  },
];

const intervals: FunctionVariant[] = [
  {
    slug: 'merge',
    difficulty: 'medium',
    entry: 'mergeIntervals',
    signature: 'export function mergeIntervals(intervals: [number, number][]): [number, number][]',
    description:
      'Merge overlapping or touching closed intervals [start, end] (given in any order) and return them sorted by start.',
    solution: code`export function mergeIntervals(intervals: [number, number][]): [number, number][] {
  const sorted = intervals.map((pair) => [...pair] as [number, number]).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
`,
    wrong: code`export function mergeIntervals(intervals: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [start, end] of intervals) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
`,
    cases: [
      [
        [
          [1, 3],
          [2, 6],
          [8, 10],
        ],
      ],
      [[]],
      [
        [
          [5, 7],
          [1, 2],
        ],
      ],
      [
        [
          [1, 4],
          [4, 5],
        ],
      ],
      [
        [
          [1, 10],
          [2, 3],
          [4, 5],
        ],
      ],
      [
        [
          [6, 8],
          [1, 9],
          [2, 4],
        ],
      ],
    ],
  },
  {
    slug: 'covered-length',
    difficulty: 'medium',
    entry: 'coveredLength',
    signature: 'export function coveredLength(intervals: [number, number][]): number',
    description:
      'Total length of the number line covered by the union of the intervals [start, end) (overlaps count once).',
    solution: code`export function coveredLength(intervals: [number, number][]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = -Infinity;
  for (const [start, end] of sorted) {
    if (end <= reach) continue;
    total += end - Math.max(start, reach);
    reach = end;
  }
  return total;
}
`,
    wrong: code`export function coveredLength(intervals: [number, number][]): number {
  return intervals.reduce((total, [start, end]) => total + (end - start), 0);
}
`,
    cases: [
      [
        [
          [1, 3],
          [2, 6],
        ],
      ],
      [[]],
      [
        [
          [0, 10],
          [2, 3],
        ],
      ],
      [
        [
          [5, 6],
          [1, 2],
        ],
      ],
      [
        [
          [-5, -1],
          [-3, 2],
          [10, 11],
        ],
      ],
      [
        [
          [1, 2],
          [2, 3],
        ],
      ],
    ],
  },
  {
    slug: 'insert',
    difficulty: 'medium',
    entry: 'insertInterval',
    signature:
      'export function insertInterval(intervals: [number, number][], added: [number, number]): [number, number][]',
    description:
      'The intervals are sorted by start and do not overlap. Insert the added closed interval, merging everything it overlaps or touches, and return the sorted result.',
    solution: code`export function insertInterval(intervals: [number, number][], added: [number, number]): [number, number][] {
  const out: [number, number][] = [];
  let [start, end] = added;
  let placed = false;
  for (const [s, e] of intervals) {
    if (e < start) out.push([s, e]);
    else if (s > end) {
      if (!placed) {
        out.push([start, end]);
        placed = true;
      }
      out.push([s, e]);
    } else {
      start = Math.min(start, s);
      end = Math.max(end, e);
    }
  }
  if (!placed) out.push([start, end]);
  return out;
}
`,
    wrong: code`export function insertInterval(intervals: [number, number][], added: [number, number]): [number, number][] {
  return [...intervals, added].sort((a, b) => a[0] - b[0]);
}
`,
    cases: [
      [
        [
          [1, 3],
          [6, 9],
        ],
        [2, 5],
      ],
      [[], [4, 8]],
      [
        [
          [1, 2],
          [3, 5],
          [6, 7],
          [8, 10],
          [12, 16],
        ],
        [4, 8],
      ],
      [[[5, 6]], [1, 2]],
      [[[1, 2]], [3, 4]],
      [[[1, 5]], [2, 3]],
    ],
  },
  {
    slug: 'has-overlap',
    difficulty: 'easy',
    entry: 'hasOverlap',
    signature: 'export function hasOverlap(intervals: [number, number][]): boolean',
    description:
      'Do any two of the half-open intervals [start, end) overlap? (Touching intervals such as [1, 2) and [2, 3) do not.)',
    solution: code`export function hasOverlap(intervals: [number, number][]): boolean {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) if (sorted[i][0] < sorted[i - 1][1]) return true;
  return false;
}
`,
    wrong: code`export function hasOverlap(intervals: [number, number][]): boolean {
  for (let i = 1; i < intervals.length; i++) if (intervals[i][0] < intervals[i - 1][1]) return true;
  return false;
}
`,
    cases: [
      [
        [
          [1, 2],
          [2, 3],
        ],
      ],
      [
        [
          [1, 5],
          [4, 6],
        ],
      ],
      [[]],
      [
        [
          [5, 9],
          [1, 6],
        ],
      ],
      [
        [
          [0, 1],
          [3, 4],
          [1, 3],
        ],
      ],
      [
        [
          [10, 20],
          [0, 5],
          [4, 8],
        ],
      ],
    ],
    javascript: true,
  },
];

export const STRUCTURE_FAMILIES: readonly FunctionFamily[] = [
  { name: 'stack-queue', category: 'data-structures', split: 'train', variants: stacks },
  { name: 'caches', category: 'data-structures', split: 'test', variants: caches },
  { name: 'matrix', category: 'data-structures', split: 'train', variants: matrices },
  { name: 'intervals', category: 'data-structures', split: 'train', variants: intervals },
];
