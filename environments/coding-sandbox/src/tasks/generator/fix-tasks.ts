import type { CodingTask, Difficulty, TaskCategory, TaskSplit } from '../coding-task';

const code = String.raw;

/** A planted bug: `correct` (a snippet of the right file) is replaced by `buggy`. */
interface Bug {
  readonly slug: string;
  readonly difficulty: Difficulty;
  readonly file: string;
  readonly correct: string;
  readonly buggy: string;
}

/** A small correct module with tests; each bug planted in it makes one "fix the failing test" task. */
interface FixModule {
  readonly name: string;
  readonly category: TaskCategory;
  readonly split: TaskSplit;
  /** What the module does, one sentence, for the prompt. */
  readonly summary: string;
  /** The correct source files (`src/...`). */
  readonly sources: Readonly<Record<string, string>>;
  /** The visible test file, `test/<name>.test.ts`, using test() and expect(). */
  readonly testFile: string;
  readonly tests: string;
  /** Imports for the hidden snippets (relative to the workspace root). */
  readonly setup: string;
  readonly hidden: readonly string[];
  readonly bugs: readonly Bug[];
}

const MODULES: readonly FixModule[] = [
  {
    name: 'shopping-cart',
    category: 'data-structures',
    split: 'train',
    summary: 'a shopping cart that keeps quantities in cents and formats totals',
    sources: {
      'src/money.ts': code`/** Formats an amount of cents as dollars: 1234 → "$12.34", -5 → "-$0.05". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(cents);
  const dollars = Math.floor(absolute / 100);
  const rest = absolute % 100;
  return sign + '$' + dollars + '.' + String(rest).padStart(2, '0');
}

/** Percentage of an amount of cents, rounded half up to a whole cent. */
export function percentOf(cents: number, percent: number): number {
  return Math.floor((cents * percent) / 100 + 0.5);
}
`,
      'src/cart.ts': code`import { formatCents, percentOf } from './money';

export interface Line {
  readonly sku: string;
  readonly priceCents: number;
  quantity: number;
}

export class Cart {
  private lines: Line[] = [];
  private discountPercent = 0;

  add(sku: string, priceCents: number, quantity = 1): void {
    const line = this.lines.find((candidate) => candidate.sku === sku);
    if (line) line.quantity += quantity;
    else this.lines.push({ sku, priceCents, quantity });
  }

  /** Removes one unit (or the given quantity); a line that reaches 0 disappears. */
  remove(sku: string, quantity = 1): void {
    const line = this.lines.find((candidate) => candidate.sku === sku);
    if (!line) return;
    line.quantity -= quantity;
    if (line.quantity <= 0) this.lines = this.lines.filter((candidate) => candidate !== line);
  }

  setDiscount(percent: number): void {
    this.discountPercent = percent;
  }

  itemCount(): number {
    return this.lines.reduce((count, line) => count + line.quantity, 0);
  }

  subtotalCents(): number {
    return this.lines.reduce((sum, line) => sum + line.priceCents * line.quantity, 0);
  }

  totalCents(): number {
    const subtotal = this.subtotalCents();
    return subtotal - percentOf(subtotal, this.discountPercent);
  }

  receipt(): string {
    return 'Total: ' + formatCents(this.totalCents());
  }
}
`,
    },
    testFile: 'test/cart.test.ts',
    tests: code`import { Cart } from '../src/cart';
import { formatCents } from '../src/money';

test('formats cents', () => {
  expect(formatCents(1234)).toBe('$12.34');
  expect(formatCents(5)).toBe('$0.05');
});

test('adds and counts items', () => {
  const cart = new Cart();
  cart.add('apple', 50, 3);
  cart.add('pear', 75);
  cart.add('apple', 50);
  expect(cart.itemCount()).toBe(5);
  expect(cart.subtotalCents()).toBe(275);
});

test('removing one unit keeps the rest', () => {
  const cart = new Cart();
  cart.add('apple', 50, 3);
  cart.remove('apple');
  expect(cart.itemCount()).toBe(2);
});

test('applies a percentage discount', () => {
  const cart = new Cart();
  cart.add('book', 1999);
  cart.setDiscount(10);
  expect(cart.totalCents()).toBe(1799);
  expect(cart.receipt()).toBe('Total: $17.99');
});
`,
    setup: "import { Cart } from './src/cart';\nimport { formatCents, percentOf } from './src/money';",
    hidden: [
      "expect(formatCents(-5)).toBe('-$0.05');",
      "expect(formatCents(100)).toBe('$1.00');",
      "expect(formatCents(0)).toBe('$0.00');",
      'expect(percentOf(250, 10)).toBe(25);',
      'expect(percentOf(5, 50)).toBe(3);',
      "const cart = new Cart();\ncart.add('a', 100, 2);\ncart.remove('a', 2);\nexpect(cart.itemCount()).toBe(0);\nexpect(cart.subtotalCents()).toBe(0);",
      "const cart = new Cart();\ncart.add('a', 100, 5);\ncart.remove('a', 2);\nexpect(cart.subtotalCents()).toBe(300);",
      "const cart = new Cart();\ncart.add('x', 333, 3);\ncart.setDiscount(15);\nexpect(cart.totalCents()).toBe(849);",
      "const cart = new Cart();\ncart.remove('missing');\nexpect(cart.receipt()).toBe('Total: $0.00');",
    ],
    bugs: [
      {
        slug: 'cents-padding',
        difficulty: 'easy',
        file: 'src/money.ts',
        correct: "String(rest).padStart(2, '0')",
        buggy: 'String(rest)',
      },
      {
        slug: 'remove-whole-line',
        difficulty: 'easy',
        file: 'src/cart.ts',
        correct: '    line.quantity -= quantity;\n    if (line.quantity <= 0) this.lines',
        buggy: '    line.quantity -= quantity;\n    this.lines',
      },
      {
        slug: 'discount-rounding',
        difficulty: 'medium',
        file: 'src/money.ts',
        correct: 'Math.floor((cents * percent) / 100 + 0.5)',
        buggy: 'Math.round(cents * (percent / 100 + 0.5))',
      },
    ],
  },
  {
    name: 'text-stats',
    category: 'strings',
    split: 'train',
    summary: 'word statistics over a text, built on a tokenizer',
    sources: {
      'src/tokenize.ts': code`/** Lowercased words: maximal runs of letters, digits and apostrophes inside a word ("don't"). */
export function tokenize(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z0-9]+(?:'[a-z0-9]+)*/g);
  return words ?? [];
}
`,
      'src/stats.ts': code`import { tokenize } from './tokenize';

export function wordCount(text: string): number {
  return tokenize(text).length;
}

export function frequencies(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of tokenize(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/** The n most frequent words, most frequent first; ties in alphabetical order. */
export function topWords(text: string, n: number): string[] {
  return [...frequencies(text).entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([word]) => word);
}

export function averageWordLength(text: string): number {
  const words = tokenize(text);
  if (words.length === 0) return 0;
  return words.reduce((sum, word) => sum + word.length, 0) / words.length;
}
`,
    },
    testFile: 'test/stats.test.ts',
    tests: code`import { topWords, wordCount, averageWordLength } from '../src/stats';
import { tokenize } from '../src/tokenize';

test('tokenizes words and contractions', () => {
  expect(tokenize("Don't panic, it's fine!")).toEqual(["don't", 'panic', "it's", 'fine']);
});

test('counts words', () => {
  expect(wordCount('one two  three')).toBe(3);
  expect(wordCount('')).toBe(0);
});

test('ranks words, ties alphabetically', () => {
  expect(topWords('b a c b a d', 3)).toEqual(['a', 'b', 'c']);
});

test('average word length', () => {
  expect(averageWordLength('ab abcd')).toBe(3);
});
`,
    setup:
      "import { topWords, wordCount, frequencies, averageWordLength } from './src/stats';\nimport { tokenize } from './src/tokenize';",
    hidden: [
      "expect(tokenize('Hello, HELLO hello')).toEqual(['hello', 'hello', 'hello']);",
      "expect(tokenize(\"rock'n'roll 2024\")).toEqual([\"rock'n'roll\", '2024']);",
      "expect(tokenize(\"'quoted'\")).toEqual(['quoted']);",
      "expect(frequencies('a b a').get('a')).toBe(2);",
      "expect(topWords('z y x', 2)).toEqual(['x', 'y']);",
      "expect(topWords('the cat the hat the end', 1)).toEqual(['the']);",
      "expect(averageWordLength('')).toBe(0);",
      "expect(wordCount('--- ...')).toBe(0);",
    ],
    bugs: [
      {
        slug: 'apostrophes',
        difficulty: 'medium',
        file: 'src/tokenize.ts',
        correct: "/[a-z0-9]+(?:'[a-z0-9]+)*/g",
        buggy: '/[a-z0-9]+/g',
      },
      {
        slug: 'tie-order',
        difficulty: 'easy',
        file: 'src/stats.ts',
        correct: 'b[1] - a[1] || a[0].localeCompare(b[0])',
        buggy: 'b[1] - a[1]',
      },
    ],
  },
  {
    name: 'inventory',
    category: 'data-structures',
    split: 'train',
    summary: 'a warehouse inventory with reservations',
    sources: {
      'src/errors.ts': code`export class StockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StockError';
  }
}
`,
      'src/inventory.ts': code`import { StockError } from './errors';

export class Inventory {
  private stock = new Map<string, number>();
  private reserved = new Map<string, number>();

  restock(sku: string, quantity: number): void {
    if (quantity <= 0) throw new StockError('restock quantity must be positive');
    this.stock.set(sku, (this.stock.get(sku) ?? 0) + quantity);
  }

  /** Units that can still be reserved. */
  available(sku: string): number {
    return (this.stock.get(sku) ?? 0) - (this.reserved.get(sku) ?? 0);
  }

  reserve(sku: string, quantity: number): void {
    if (quantity > this.available(sku)) throw new StockError('only ' + this.available(sku) + ' of ' + sku + ' available');
    this.reserved.set(sku, (this.reserved.get(sku) ?? 0) + quantity);
  }

  /** Ships reserved units: they leave both the reservation and the stock. */
  ship(sku: string, quantity: number): void {
    const held = this.reserved.get(sku) ?? 0;
    if (quantity > held) throw new StockError('cannot ship more than reserved');
    this.reserved.set(sku, held - quantity);
    this.stock.set(sku, (this.stock.get(sku) ?? 0) - quantity);
  }
}
`,
    },
    testFile: 'test/inventory.test.ts',
    tests: code`import { Inventory } from '../src/inventory';
import { StockError } from '../src/errors';

test('restocking adds up', () => {
  const inventory = new Inventory();
  inventory.restock('bolt', 5);
  inventory.restock('bolt', 3);
  expect(inventory.available('bolt')).toBe(8);
});

test('reserving everything that is available is allowed', () => {
  const inventory = new Inventory();
  inventory.restock('nut', 4);
  inventory.reserve('nut', 4);
  expect(inventory.available('nut')).toBe(0);
});

test('over-reserving throws a StockError', () => {
  const inventory = new Inventory();
  inventory.restock('nut', 1);
  expect(() => inventory.reserve('nut', 2)).toThrow(StockError);
});
`,
    setup: "import { Inventory } from './src/inventory';\nimport { StockError } from './src/errors';",
    hidden: [
      "const inventory = new Inventory();\ninventory.restock('a', 2);\ninventory.reserve('a', 1);\ninventory.ship('a', 1);\nexpect(inventory.available('a')).toBe(1);",
      "const inventory = new Inventory();\nexpect(inventory.available('none')).toBe(0);",
      "const inventory = new Inventory();\ninventory.restock('a', 2);\ninventory.restock('a', 5);\nexpect(inventory.available('a')).toBe(7);",
      "const inventory = new Inventory();\nexpect(() => inventory.restock('a', 0)).toThrow(StockError);",
      "const inventory = new Inventory();\ninventory.restock('a', 3);\ninventory.reserve('a', 3);\nexpect(() => inventory.ship('a', 4)).toThrow('cannot ship');",
      "const inventory = new Inventory();\ninventory.restock('a', 10);\ninventory.reserve('a', 6);\nexpect(() => inventory.reserve('a', 5)).toThrow('only 4 of a available');",
      "const error = new StockError('x');\nexpect(error.name).toBe('StockError');\nexpect(error instanceof Error).toBe(true);",
    ],
    bugs: [
      {
        slug: 'reserve-boundary',
        difficulty: 'easy',
        file: 'src/inventory.ts',
        correct: 'if (quantity > this.available(sku))',
        buggy: 'if (quantity >= this.available(sku))',
      },
      {
        slug: 'restock-overwrites',
        difficulty: 'easy',
        file: 'src/inventory.ts',
        correct: 'this.stock.set(sku, (this.stock.get(sku) ?? 0) + quantity);\n  }\n\n  /** Units',
        buggy: 'this.stock.set(sku, quantity);\n  }\n\n  /** Units',
      },
    ],
  },
  {
    name: 'priority-queue',
    category: 'data-structures',
    split: 'train',
    summary: 'a binary min-heap and a job scheduler built on it',
    sources: {
      'src/heap.ts': code`/** A binary min-heap ordered by a comparison function. */
export class Heap<T> {
  private items: T[] = [];
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(this.items[i], this.items[parent])) break;
      [this.items[i], this.items[parent]] = [this.items[parent], this.items[i]];
      i = parent;
    }
  }

  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    const top = this.items[0];
    const last = this.items.pop() as T;
    if (this.items.length > 0) {
      this.items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < this.items.length && this.before(this.items[left], this.items[smallest])) smallest = left;
        if (right < this.items.length && this.before(this.items[right], this.items[smallest])) smallest = right;
        if (smallest === i) break;
        [this.items[i], this.items[smallest]] = [this.items[smallest], this.items[i]];
        i = smallest;
      }
    }
    return top;
  }
}
`,
      'src/scheduler.ts': code`import { Heap } from './heap';

interface Job {
  readonly name: string;
  readonly priority: number;
  readonly order: number;
}

/** Runs jobs by priority (lower number first); equal priorities run in the order they were added. */
export class Scheduler {
  private counter = 0;
  private heap = new Heap<Job>((a, b) => a.priority < b.priority || (a.priority === b.priority && a.order < b.order));

  add(name: string, priority: number): void {
    this.heap.push({ name, priority, order: this.counter++ });
  }

  next(): string | undefined {
    return this.heap.pop()?.name;
  }

  drain(): string[] {
    const out: string[] = [];
    for (let name = this.next(); name !== undefined; name = this.next()) out.push(name);
    return out;
  }
}
`,
    },
    testFile: 'test/scheduler.test.ts',
    tests: code`import { Scheduler } from '../src/scheduler';
import { Heap } from '../src/heap';

test('the heap pops in order', () => {
  const heap = new Heap<number>((a, b) => a < b);
  for (const n of [5, 1, 8, 3, 9, 2, 7]) heap.push(n);
  const out: number[] = [];
  while (heap.size > 0) out.push(heap.pop() as number);
  expect(out).toEqual([1, 2, 3, 5, 7, 8, 9]);
});

test('jobs run by priority, then in the order added', () => {
  const scheduler = new Scheduler();
  scheduler.add('write', 2);
  scheduler.add('read', 1);
  scheduler.add('log', 2);
  scheduler.add('flush', 2);
  expect(scheduler.drain()).toEqual(['read', 'write', 'log', 'flush']);
});
`,
    setup: "import { Scheduler } from './src/scheduler';\nimport { Heap } from './src/heap';",
    hidden: [
      'const heap = new Heap<number>((a, b) => a < b);\nexpect(heap.pop()).toBeUndefined();',
      'const heap = new Heap<number>((a, b) => a < b);\n[10, 4, 6, 4, 1, 12, 0, 3].forEach((n) => heap.push(n));\nconst out: number[] = [];\nwhile (heap.size) out.push(heap.pop() as number);\nexpect(out).toEqual([0, 1, 3, 4, 4, 6, 10, 12]);',
      'const heap = new Heap<number>((a, b) => a > b);\n[3, 9, 1].forEach((n) => heap.push(n));\nexpect(heap.pop()).toBe(9);',
      "const scheduler = new Scheduler();\n['a', 'b', 'c', 'd', 'e', 'f'].forEach((name) => scheduler.add(name, 5));\nexpect(scheduler.drain()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);",
      "const scheduler = new Scheduler();\nscheduler.add('late', 3);\nscheduler.add('early', 0);\nexpect(scheduler.next()).toBe('early');\nscheduler.add('middle', 1);\nexpect(scheduler.drain()).toEqual(['middle', 'late']);",
      'const scheduler = new Scheduler();\nexpect(scheduler.drain()).toEqual([]);',
    ],
    bugs: [
      {
        slug: 'sift-down',
        difficulty: 'hard',
        file: 'src/heap.ts',
        correct:
          'if (right < this.items.length && this.before(this.items[right], this.items[smallest])) smallest = right;',
        buggy: 'if (right < this.items.length && this.before(this.items[right], this.items[i])) smallest = right;',
      },
      {
        slug: 'fifo-ties',
        difficulty: 'medium',
        file: 'src/scheduler.ts',
        correct: 'a.priority < b.priority || (a.priority === b.priority && a.order < b.order)',
        buggy: 'a.priority < b.priority',
      },
    ],
  },
  {
    name: 'bank-ledger',
    category: 'data-structures',
    split: 'train',
    summary: 'bank accounts with transfers and monthly interest',
    sources: {
      'src/account.ts': code`export class Account {
  constructor(readonly id: string, private balanceCents = 0) {}

  get balance(): number {
    return this.balanceCents;
  }

  deposit(cents: number): void {
    if (cents <= 0) throw new Error('deposit must be positive');
    this.balanceCents += cents;
  }

  withdraw(cents: number): void {
    if (cents <= 0) throw new Error('withdrawal must be positive');
    if (cents > this.balanceCents) throw new Error('insufficient funds');
    this.balanceCents -= cents;
  }
}
`,
      'src/ledger.ts': code`import { Account } from './account';

export class Ledger {
  private accounts = new Map<string, Account>();

  open(id: string, cents = 0): Account {
    const account = new Account(id, cents);
    this.accounts.set(id, account);
    return account;
  }

  get(id: string): Account {
    const account = this.accounts.get(id);
    if (!account) throw new Error('no account ' + id);
    return account;
  }

  /** Moves money between accounts; on any failure nothing changes. */
  transfer(from: string, to: string, cents: number): void {
    const source = this.get(from);
    const target = this.get(to);
    source.withdraw(cents);
    target.deposit(cents);
  }

  /** Adds monthly interest at an annual rate (in percent), compounded monthly, rounded down to a cent. */
  addInterest(id: string, annualPercent: number, months: number): void {
    const account = this.get(id);
    const factor = Math.pow(1 + annualPercent / 100 / 12, months);
    const gained = Math.floor(account.balance * factor) - account.balance;
    if (gained > 0) account.deposit(gained);
  }

  total(): number {
    let sum = 0;
    for (const account of this.accounts.values()) sum += account.balance;
    return sum;
  }
}
`,
    },
    testFile: 'test/ledger.test.ts',
    tests: code`import { Ledger } from '../src/ledger';

test('transfers move money', () => {
  const ledger = new Ledger();
  ledger.open('a', 1000);
  ledger.open('b');
  ledger.transfer('a', 'b', 250);
  expect(ledger.get('a').balance).toBe(750);
  expect(ledger.get('b').balance).toBe(250);
});

test('a failed transfer changes nothing', () => {
  const ledger = new Ledger();
  ledger.open('a', 100);
  expect(() => ledger.transfer('a', 'missing', 50)).toThrow('no account');
  expect(ledger.get('a').balance).toBe(100);
});

test('interest compounds monthly', () => {
  const ledger = new Ledger();
  ledger.open('savings', 100000);
  ledger.addInterest('savings', 12, 2);
  expect(ledger.get('savings').balance).toBe(102010);
});
`,
    setup: "import { Ledger } from './src/ledger';\nimport { Account } from './src/account';",
    hidden: [
      "const ledger = new Ledger();\nledger.open('a', 100);\nledger.open('b', 0);\nexpect(() => ledger.transfer('a', 'b', 500)).toThrow('insufficient');\nexpect(ledger.get('a').balance).toBe(100);\nexpect(ledger.get('b').balance).toBe(0);",
      "const ledger = new Ledger();\nledger.open('a', 300);\nledger.open('b', 200);\nledger.transfer('b', 'a', 200);\nexpect(ledger.total()).toBe(500);\nexpect(ledger.get('b').balance).toBe(0);",
      "const ledger = new Ledger();\nledger.open('a', 1000);\nledger.addInterest('a', 6, 12);\nexpect(ledger.get('a').balance).toBe(1061);",
      "const ledger = new Ledger();\nledger.open('a', 0);\nledger.addInterest('a', 5, 3);\nexpect(ledger.get('a').balance).toBe(0);",
      "const account = new Account('x', 10);\nexpect(() => account.withdraw(0)).toThrow('positive');",
      "const ledger = new Ledger();\nledger.open('a', 100);\nexpect(() => ledger.transfer('a', 'nobody', 30)).toThrow('no account nobody');\nexpect(ledger.get('a').balance).toBe(100);",
      "const ledger = new Ledger();\nledger.open('a', 10);\nexpect(() => ledger.transfer('missing', 'a', 5)).toThrow('no account missing');\nexpect(ledger.get('a').balance).toBe(10);",
    ],
    bugs: [
      {
        slug: 'partial-transfer',
        difficulty: 'medium',
        file: 'src/ledger.ts',
        correct:
          '    const source = this.get(from);\n    const target = this.get(to);\n    source.withdraw(cents);\n    target.deposit(cents);',
        buggy:
          '    const source = this.get(from);\n    source.withdraw(cents);\n    const target = this.get(to);\n    target.deposit(cents);',
      },
      {
        slug: 'interest-yearly',
        difficulty: 'medium',
        file: 'src/ledger.ts',
        correct: 'Math.pow(1 + annualPercent / 100 / 12, months)',
        buggy: '1 + (annualPercent / 100 / 12) * months',
      },
    ],
  },
  {
    name: 'calendar',
    category: 'math',
    split: 'train',
    summary: 'calendar arithmetic without Date: leap years, month lengths, day of year',
    sources: {
      'src/leap.ts': code`/** Gregorian leap years: divisible by 4, except centuries, except every 400 years. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
`,
      'src/days.ts': code`import { isLeapYear } from './leap';

const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in a month; month is 1-12. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2 && isLeapYear(year)) return 29;
  return LENGTHS[month - 1];
}

/** 1 for January 1st, up to 365 or 366. */
export function dayOfYear(year: number, month: number, day: number): number {
  let total = day;
  for (let m = 1; m < month; m++) total += daysInMonth(year, m);
  return total;
}

/** Days from the first date to the second (both in the same year). */
export function daysBetween(year: number, from: [number, number], to: [number, number]): number {
  return dayOfYear(year, to[0], to[1]) - dayOfYear(year, from[0], from[1]);
}
`,
    },
    testFile: 'test/days.test.ts',
    tests: code`import { daysInMonth, dayOfYear } from '../src/days';
import { isLeapYear } from '../src/leap';

test('leap years', () => {
  expect(isLeapYear(2024)).toBe(true);
  expect(isLeapYear(1900)).toBe(false);
  expect(isLeapYear(2000)).toBe(true);
});

test('month lengths', () => {
  expect(daysInMonth(2023, 2)).toBe(28);
  expect(daysInMonth(2024, 2)).toBe(29);
  expect(daysInMonth(2024, 12)).toBe(31);
});

test('day of year', () => {
  expect(dayOfYear(2023, 1, 1)).toBe(1);
  expect(dayOfYear(2023, 3, 1)).toBe(60);
});
`,
    setup:
      "import { daysInMonth, dayOfYear, daysBetween } from './src/days';\nimport { isLeapYear } from './src/leap';",
    hidden: [
      'expect(isLeapYear(2100)).toBe(false);',
      'expect(isLeapYear(1600)).toBe(true);',
      'expect(isLeapYear(2023)).toBe(false);',
      'expect(daysInMonth(1900, 2)).toBe(28);',
      'expect(daysInMonth(2023, 4)).toBe(30);',
      'expect(dayOfYear(2024, 12, 31)).toBe(366);',
      'expect(dayOfYear(2023, 12, 31)).toBe(365);',
      'expect(daysBetween(2024, [2, 28], [3, 1])).toBe(2);',
    ],
    bugs: [
      {
        slug: 'century-rule',
        difficulty: 'easy',
        file: 'src/leap.ts',
        correct: '(year % 4 === 0 && year % 100 !== 0) || year % 400 === 0',
        buggy: 'year % 4 === 0',
      },
      {
        slug: 'month-offset',
        difficulty: 'medium',
        file: 'src/days.ts',
        correct: 'for (let m = 1; m < month; m++)',
        buggy: 'for (let m = 1; m <= month; m++)',
      },
    ],
  },
  {
    name: 'roman-numerals',
    category: 'parsing',
    split: 'train',
    summary: 'Roman numeral conversion in both directions, sharing one symbol table',
    sources: {
      'src/table.ts': code`/** Symbols with their values, largest first, subtractive pairs included. */
export const SYMBOLS: readonly [string, number][] = [
  ['M', 1000],
  ['CM', 900],
  ['D', 500],
  ['CD', 400],
  ['C', 100],
  ['XC', 90],
  ['L', 50],
  ['XL', 40],
  ['X', 10],
  ['IX', 9],
  ['V', 5],
  ['IV', 4],
  ['I', 1],
];
`,
      'src/roman.ts': code`import { SYMBOLS } from './table';

export function toRoman(n: number): string {
  if (!Number.isInteger(n) || n < 1 || n > 3999) throw new RangeError('out of range: ' + n);
  let out = '';
  for (const [symbol, value] of SYMBOLS) {
    while (n >= value) {
      out += symbol;
      n -= value;
    }
  }
  return out;
}

export function fromRoman(text: string): number {
  let total = 0;
  let at = 0;
  for (const [symbol, value] of SYMBOLS) {
    while (text.startsWith(symbol, at)) {
      total += value;
      at += symbol.length;
    }
  }
  if (at !== text.length) throw new SyntaxError('not a Roman numeral: ' + text);
  return total;
}
`,
    },
    testFile: 'test/roman.test.ts',
    tests: code`import { toRoman, fromRoman } from '../src/roman';

test('writes numerals', () => {
  expect(toRoman(1994)).toBe('MCMXCIV');
  expect(toRoman(4)).toBe('IV');
});

test('reads numerals', () => {
  expect(fromRoman('MMXXIV')).toBe(2024);
  expect(fromRoman('XLII')).toBe(42);
});

test('rejects numbers outside 1-3999', () => {
  expect(() => toRoman(0)).toThrow(RangeError);
});

test('round trip', () => {
  for (const n of [1, 9, 14, 40, 90, 400, 3999]) expect(fromRoman(toRoman(n))).toBe(n);
});
`,
    setup: "import { toRoman, fromRoman } from './src/roman';",
    hidden: [
      "expect(toRoman(3999)).toBe('MMMCMXCIX');",
      "expect(toRoman(944)).toBe('CMXLIV');",
      "expect(fromRoman('CDXC')).toBe(490);",
      'expect(() => toRoman(0)).toThrow(RangeError);',
      'expect(() => toRoman(4000)).toThrow(RangeError);',
      "expect(() => fromRoman('ABC')).toThrow(SyntaxError);",
      'for (let n = 1; n <= 300; n++) expect(fromRoman(toRoman(n))).toBe(n);',
    ],
    bugs: [
      {
        slug: 'table-order',
        difficulty: 'medium',
        file: 'src/table.ts',
        correct: "  ['XL', 40],\n  ['X', 10],",
        buggy: "  ['X', 10],\n  ['XL', 40],",
      },
      {
        slug: 'range-check',
        difficulty: 'easy',
        file: 'src/roman.ts',
        correct: 'n < 1 || n > 3999',
        buggy: 'n < 0 || n > 3999',
      },
    ],
  },
  {
    name: 'url-builder',
    category: 'parsing',
    split: 'test',
    summary: 'building URLs from a base, path segments and query parameters',
    sources: {
      'src/query.ts': code`/** Encodes parameters as a query string: keys sorted, undefined values skipped, arrays repeated. */
export function buildQuery(params: Record<string, string | number | boolean | undefined | (string | number)[]>): string {
  const parts: string[] = [];
  for (const key of Object.keys(params).sort()) {
    const value = params[key];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) parts.push(encodeURIComponent(key) + '=' + encodeURIComponent(String(item)));
  }
  return parts.length === 0 ? '' : '?' + parts.join('&');
}
`,
      'src/url.ts': code`import { buildQuery } from './query';

/** Joins a base URL and path segments with exactly one "/" between them; segments are percent-encoded. */
export function joinPath(base: string, ...segments: string[]): string {
  const trimmed = base.replace(/\/+$/, '');
  return [trimmed, ...segments.map((segment) => encodeURIComponent(segment))].join('/');
}

export function buildUrl(base: string, segments: string[], params: Parameters<typeof buildQuery>[0] = {}): string {
  return joinPath(base, ...segments) + buildQuery(params);
}
`,
    },
    testFile: 'test/url.test.ts',
    tests: code`import { buildUrl, joinPath } from '../src/url';
import { buildQuery } from '../src/query';

test('joins paths with single slashes', () => {
  expect(joinPath('https://api.example.com/', 'users', '42')).toBe('https://api.example.com/users/42');
});

test('encodes query parameters', () => {
  expect(buildQuery({ q: 'a b', page: 2 })).toBe('?page=2&q=a%20b');
});

test('builds a whole URL', () => {
  expect(buildUrl('https://x.dev', ['search'], { tag: ['a', 'b'], empty: undefined })).toBe('https://x.dev/search?tag=a&tag=b');
});
`,
    setup: "import { buildUrl, joinPath } from './src/url';\nimport { buildQuery } from './src/query';",
    hidden: [
      "expect(joinPath('https://a.b//', 'x')).toBe('https://a.b/x');",
      "expect(joinPath('https://a.b', 'a/b', 'c d')).toBe('https://a.b/a%2Fb/c%20d');",
      "expect(buildQuery({})).toBe('');",
      "expect(buildQuery({ a: undefined })).toBe('');",
      "expect(buildQuery({ 'k&y': 'v=1' })).toBe('?k%26y=v%3D1');",
      "expect(buildQuery({ flag: false, z: 0 })).toBe('?flag=false&z=0');",
      "expect(buildUrl('http://h', [])).toBe('http://h');",
    ],
    bugs: [
      {
        slug: 'trailing-slash',
        difficulty: 'easy',
        file: 'src/url.ts',
        correct: "base.replace(/\\/+$/, '')",
        buggy: 'base',
      },
      {
        slug: 'encode-values',
        difficulty: 'easy',
        file: 'src/query.ts',
        correct: 'encodeURIComponent(String(item))',
        buggy: "String(item).replace(/ /g, '+')",
      },
    ],
  },
  {
    name: 'rpn-calculator',
    category: 'parsing',
    split: 'train',
    summary: 'a reverse Polish notation calculator with a separate tokenizer',
    sources: {
      'src/tokenizer.ts': code`export type Token = { kind: 'number'; value: number } | { kind: 'operator'; value: '+' | '-' | '*' | '/' };

/** Splits on whitespace; a token is a number (possibly negative or decimal) or one of + - * /. */
export function tokenize(text: string): Token[] {
  return text
    .trim()
    .split(/\s+/)
    .filter((piece) => piece.length > 0)
    .map((piece): Token => {
      if (piece === '+' || piece === '-' || piece === '*' || piece === '/') return { kind: 'operator', value: piece };
      const value = Number(piece);
      if (Number.isNaN(value)) throw new SyntaxError('bad token: ' + piece);
      return { kind: 'number', value };
    });
}
`,
      'src/rpn.ts': code`import { tokenize } from './tokenizer';

export function evaluate(text: string): number {
  const stack: number[] = [];
  for (const token of tokenize(text)) {
    if (token.kind === 'number') {
      stack.push(token.value);
      continue;
    }
    if (stack.length < 2) throw new SyntaxError('not enough operands for ' + token.value);
    const right = stack.pop() as number;
    const left = stack.pop() as number;
    switch (token.value) {
      case '+':
        stack.push(left + right);
        break;
      case '-':
        stack.push(left - right);
        break;
      case '*':
        stack.push(left * right);
        break;
      case '/':
        stack.push(left / right);
        break;
    }
  }
  if (stack.length !== 1) throw new SyntaxError('expected one result, got ' + stack.length);
  return stack[0];
}
`,
    },
    testFile: 'test/rpn.test.ts',
    tests: code`import { evaluate } from '../src/rpn';

test('adds and multiplies', () => {
  expect(evaluate('2 3 + 4 *')).toBe(20);
});

test('subtraction and division keep operand order', () => {
  expect(evaluate('10 4 -')).toBe(6);
  expect(evaluate('8 2 /')).toBe(4);
});

test('negative numbers are numbers', () => {
  expect(evaluate('-3 5 +')).toBe(2);
});
`,
    setup: "import { evaluate } from './src/rpn';\nimport { tokenize } from './src/tokenizer';",
    hidden: [
      "expect(evaluate('1 2 3 * +')).toBe(7);",
      "expect(evaluate('  5  ')).toBe(5);",
      "expect(evaluate('1.5 2 *')).toBe(3);",
      "expect(evaluate('3 -4 -')).toBe(7);",
      "expect(() => evaluate('1 +')).toThrow(SyntaxError);",
      "expect(() => evaluate('1 2')).toThrow('expected one result');",
      "expect(tokenize('4 -')).toEqual([{ kind: 'number', value: 4 }, { kind: 'operator', value: '-' }]);",
      "expect(() => evaluate('2 x +')).toThrow('bad token');",
    ],
    bugs: [
      {
        slug: 'operand-order',
        difficulty: 'medium',
        file: 'src/rpn.ts',
        correct: '    const right = stack.pop() as number;\n    const left = stack.pop() as number;',
        buggy: '    const left = stack.pop() as number;\n    const right = stack.pop() as number;',
      },
      {
        slug: 'negative-numbers',
        difficulty: 'medium',
        file: 'src/tokenizer.ts',
        correct: "if (piece === '+' || piece === '-' || piece === '*' || piece === '/') return",
        buggy:
          "if (/^[-+*/]/.test(piece)) return { kind: 'operator', value: piece[0] as '+' };\n      if (piece === '+') return",
      },
    ],
  },
  {
    name: 'grade-book',
    category: 'math',
    split: 'test',
    summary: 'course grades: weighted averages and letter grades',
    sources: {
      'src/grades.ts': code`/** Weighted average of scores (0-100); weights need not sum to 1. Empty → 0. */
export function weightedAverage(entries: { score: number; weight: number }[]): number {
  const totalWeight = entries.reduce((sum, entry) => sum + entry.weight, 0);
  if (totalWeight === 0) return 0;
  return entries.reduce((sum, entry) => sum + entry.score * entry.weight, 0) / totalWeight;
}

/** A from 90, B from 80, C from 70, D from 60, F below. */
export function letterGrade(score: number): string {
  if (score >= 90) return 'A';
  if (score >= 80) return 'B';
  if (score >= 70) return 'C';
  if (score >= 60) return 'D';
  return 'F';
}
`,
      'src/report.ts': code`import { letterGrade, weightedAverage } from './grades';

export interface Student {
  readonly name: string;
  readonly work: { score: number; weight: number }[];
}

/** One line per student, best average first (ties by name): "Ada: 91.5 (A)". Averages have one decimal. */
export function report(students: Student[]): string[] {
  return students
    .map((student) => ({ name: student.name, average: weightedAverage(student.work) }))
    .sort((a, b) => b.average - a.average || a.name.localeCompare(b.name))
    .map(({ name, average }) => name + ': ' + average.toFixed(1) + ' (' + letterGrade(average) + ')');
}
`,
    },
    testFile: 'test/report.test.ts',
    tests: code`import { report } from '../src/report';
import { letterGrade, weightedAverage } from '../src/grades';

test('weights count', () => {
  expect(weightedAverage([{ score: 100, weight: 3 }, { score: 50, weight: 1 }])).toBe(87.5);
});

test('grade boundaries', () => {
  expect(letterGrade(90)).toBe('A');
  expect(letterGrade(89.9)).toBe('B');
  expect(letterGrade(60)).toBe('D');
});

test('report is sorted', () => {
  const lines = report([
    { name: 'Bo', work: [{ score: 70, weight: 1 }] },
    { name: 'Al', work: [{ score: 95, weight: 1 }] },
  ]);
  expect(lines).toEqual(['Al: 95.0 (A)', 'Bo: 70.0 (C)']);
});
`,
    setup: "import { report } from './src/report';\nimport { letterGrade, weightedAverage } from './src/grades';",
    hidden: [
      'expect(weightedAverage([])).toBe(0);',
      'expect(weightedAverage([{ score: 80, weight: 0 }])).toBe(0);',
      "expect(letterGrade(80)).toBe('B');",
      "expect(letterGrade(90)).toBe('A');",
      "expect(letterGrade(59.99)).toBe('F');",
      "expect(letterGrade(100)).toBe('A');",
      "expect(report([{ name: 'Zed', work: [{ score: 80, weight: 1 }] }, { name: 'Amy', work: [{ score: 80, weight: 2 }] }])).toEqual(['Amy: 80.0 (B)', 'Zed: 80.0 (B)']);",
      "expect(report([{ name: 'Cy', work: [{ score: 90, weight: 1 }, { score: 60, weight: 2 }] }])).toEqual(['Cy: 70.0 (C)']);",
    ],
    bugs: [
      {
        slug: 'boundary',
        difficulty: 'easy',
        file: 'src/grades.ts',
        correct: "if (score >= 90) return 'A';",
        buggy: "if (score > 90) return 'A';",
      },
      {
        slug: 'unweighted',
        difficulty: 'medium',
        file: 'src/grades.ts',
        correct: 'entries.reduce((sum, entry) => sum + entry.score * entry.weight, 0) / totalWeight',
        buggy: 'entries.reduce((sum, entry) => sum + entry.score, 0) / entries.length',
      },
    ],
  },
  {
    name: 'slugify',
    category: 'strings',
    split: 'train',
    summary: 'URL slugs from titles, made unique with numbered suffixes',
    sources: {
      'src/slug.ts': code`/** Lowercase, runs of anything but a-z/0-9 become one "-", no leading or trailing "-". */
export function slugify(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
`,
      'src/unique.ts': code`import { slugify } from './slug';

/** Slugs for titles, in order; a repeated slug gets "-2", "-3", … appended (the first keeps the bare slug). */
export function uniqueSlugs(titles: string[]): string[] {
  const used = new Map<string, number>();
  return titles.map((title) => {
    const slug = slugify(title) || 'untitled';
    const count = (used.get(slug) ?? 0) + 1;
    used.set(slug, count);
    return count === 1 ? slug : slug + '-' + count;
  });
}
`,
    },
    testFile: 'test/slug.test.ts',
    tests: code`import { slugify } from '../src/slug';
import { uniqueSlugs } from '../src/unique';

test('slugifies titles', () => {
  expect(slugify('Hello, World!')).toBe('hello-world');
  expect(slugify('  --Spaces  &  dashes--  ')).toBe('spaces-dashes');
});

test('numbers repeated slugs from 2', () => {
  expect(uniqueSlugs(['Intro', 'intro', 'INTRO!'])).toEqual(['intro', 'intro-2', 'intro-3']);
});
`,
    setup: "import { slugify } from './src/slug';\nimport { uniqueSlugs } from './src/unique';",
    hidden: [
      "expect(slugify('C++ & Rust: 2024')).toBe('c-rust-2024');",
      "expect(slugify('already-a-slug')).toBe('already-a-slug');",
      "expect(slugify('!!!')).toBe('');",
      "expect(uniqueSlugs(['!!!', '???'])).toEqual(['untitled', 'untitled-2']);",
      "expect(uniqueSlugs(['a', 'b', 'a', 'b', 'a'])).toEqual(['a', 'b', 'a-2', 'b-2', 'a-3']);",
      'expect(uniqueSlugs([])).toEqual([]);',
    ],
    bugs: [
      {
        slug: 'collapse-runs',
        difficulty: 'easy',
        file: 'src/slug.ts',
        correct: '/[^a-z0-9]+/g',
        buggy: '/[^a-z0-9]/g',
      },
      {
        slug: 'suffix-start',
        difficulty: 'easy',
        file: 'src/unique.ts',
        correct: "count === 1 ? slug : slug + '-' + count",
        buggy: "count === 1 ? slug : slug + '-' + (count - 1)",
      },
    ],
  },
  {
    name: 'linked-list',
    category: 'data-structures',
    split: 'test',
    summary: 'a singly linked list with head and tail pointers',
    sources: {
      'src/node.ts': code`export interface ListNode<T> {
  value: T;
  next: ListNode<T> | null;
}

export function node<T>(value: T, next: ListNode<T> | null = null): ListNode<T> {
  return { value, next };
}
`,
      'src/list.ts': code`import { node, type ListNode } from './node';

export class LinkedList<T> {
  private head: ListNode<T> | null = null;
  private tail: ListNode<T> | null = null;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(value: T): void {
    const added = node(value);
    if (this.tail) this.tail.next = added;
    else this.head = added;
    this.tail = added;
    this.count += 1;
  }

  unshift(value: T): void {
    this.head = node(value, this.head);
    if (!this.tail) this.tail = this.head;
    this.count += 1;
  }

  shift(): T | undefined {
    const first = this.head;
    if (!first) return undefined;
    this.head = first.next;
    if (!this.head) this.tail = null;
    this.count -= 1;
    return first.value;
  }

  reverse(): void {
    let previous: ListNode<T> | null = null;
    let current = this.head;
    this.tail = this.head;
    while (current) {
      const next: ListNode<T> | null = current.next;
      current.next = previous;
      previous = current;
      current = next;
    }
    this.head = previous;
  }

  toArray(): T[] {
    const out: T[] = [];
    for (let current = this.head; current; current = current.next) out.push(current.value);
    return out;
  }
}
`,
    },
    testFile: 'test/list.test.ts',
    tests: code`import { LinkedList } from '../src/list';

test('push and shift keep order', () => {
  const list = new LinkedList<number>();
  list.push(1);
  list.push(2);
  list.unshift(0);
  expect(list.toArray()).toEqual([0, 1, 2]);
  expect(list.shift()).toBe(0);
  expect(list.size).toBe(2);
});

test('a list emptied by shift accepts new items', () => {
  const list = new LinkedList<number>();
  list.push(1);
  list.shift();
  list.push(2);
  expect(list.toArray()).toEqual([2]);
});

test('reverse, then push at the new tail', () => {
  const list = new LinkedList<string>();
  for (const s of ['a', 'b', 'c']) list.push(s);
  list.reverse();
  list.push('z');
  expect(list.toArray()).toEqual(['c', 'b', 'a', 'z']);
});
`,
    setup: "import { LinkedList } from './src/list';",
    hidden: [
      'const list = new LinkedList<number>();\nlist.push(1);\nlist.shift();\nlist.push(2);\nexpect(list.toArray()).toEqual([2]);',
      'const list = new LinkedList<number>();\nexpect(list.shift()).toBeUndefined();\nexpect(list.size).toBe(0);',
      'const list = new LinkedList<number>();\nlist.reverse();\nexpect(list.toArray()).toEqual([]);',
      'const list = new LinkedList<number>();\nlist.unshift(2);\nlist.push(3);\nlist.unshift(1);\nexpect(list.toArray()).toEqual([1, 2, 3]);',
      'const list = new LinkedList<number>();\n[1, 2, 3, 4].forEach((n) => list.push(n));\nlist.reverse();\nlist.reverse();\nlist.push(5);\nexpect(list.toArray()).toEqual([1, 2, 3, 4, 5]);',
      'const list = new LinkedList<number>();\n[1, 2, 3].forEach((n) => list.push(n));\nlist.reverse();\nlist.push(4);\nexpect(list.toArray()).toEqual([3, 2, 1, 4]);',
      'const list = new LinkedList<number>();\nlist.push(7);\nlist.reverse();\nlist.push(8);\nexpect(list.toArray()).toEqual([7, 8]);\nexpect(list.size).toBe(2);',
    ],
    bugs: [
      {
        slug: 'stale-tail',
        difficulty: 'medium',
        file: 'src/list.ts',
        correct: '    this.head = first.next;\n    if (!this.head) this.tail = null;',
        buggy: '    this.head = first.next;',
      },
      {
        slug: 'reverse-tail',
        difficulty: 'hard',
        file: 'src/list.ts',
        correct: '    let current = this.head;\n    this.tail = this.head;',
        buggy: '    let current = this.head;',
      },
    ],
  },
];

function fence(path: string): string {
  return path.endsWith('.ts') ? 'ts' : 'js';
}

/** The "fix the failing test" tasks: one per planted bug. */
export function buildFixTasks(): CodingTask[] {
  const tasks: CodingTask[] = [];
  for (const module of MODULES) {
    for (const bug of module.bugs) {
      const taskId = `fix/${module.name}/${bug.slug}`;
      const correct = module.sources[bug.file];
      if (correct === undefined) throw new Error(`${taskId}: no file ${bug.file}`);
      const occurrences = correct.split(bug.correct).length - 1;
      if (occurrences !== 1)
        throw new Error(`${taskId}: the correct snippet occurs ${occurrences} times in ${bug.file}`);
      const buggyFile = correct.replace(bug.correct, () => bug.buggy);
      const files: Record<string, string> = {
        ...module.sources,
        [bug.file]: buggyFile,
        [module.testFile]: module.tests,
      };
      const listing = Object.keys(files)
        .sort()
        .map((path) => [`--- ${path} ---`, '```' + fence(path), (files[path] as string).trimEnd(), '```'].join('\n'))
        .join('\n\n');
      const prompt = [
        `This project is ${module.summary}. A test in \`${module.testFile}\` fails because of a bug in the source under \`src/\`.`,
        'Find the bug and fix it (change the source, not the tests). RUN_TESTS runs the test file; SUBMIT grades the fixed code on more, hidden tests.',
        '',
        listing,
      ].join('\n');
      tasks.push({
        task_id: taskId,
        kind: 'fix',
        split: module.split,
        difficulty: bug.difficulty,
        category: module.category,
        family: `fix-${module.name}`,
        language: 'typescript',
        prompt,
        entry_point: bug.file,
        files,
        canonical_solution: { [bug.file]: correct },
        wrong_solution: { [bug.file]: buggyFile },
        test_setup_code: module.setup,
        visible_tests: [],
        hidden_tests: [...module.hidden],
      });
    }
  }
  return tasks;
}
