import type { CodingTask, Difficulty, TaskCategory, TaskSplit } from '../coding-task';
import { stripTypes } from './function-family';

const code = String.raw;

/** A problem written by hand, tests included (the expected values are not computed from the solution). */
interface HandWritten {
  readonly slug: string;
  readonly category: TaskCategory;
  readonly difficulty: Difficulty;
  readonly split: TaskSplit;
  readonly entry: string;
  /** The starting `solution.ts`. */
  readonly starter: string;
  readonly description: string;
  readonly solution: string;
  readonly wrong: string;
  readonly visible: readonly string[];
  /** More tests, run (with the visible ones) on SUBMIT. */
  readonly hidden: readonly string[];
  readonly javascript?: boolean;
}

const TASKS: readonly HandWritten[] = [
  {
    slug: 'luhn',
    category: 'parsing',
    difficulty: 'easy',
    split: 'train',
    entry: 'isValidLuhn',
    starter: "export function isValidLuhn(number: string): boolean {\n  throw new Error('not implemented');\n}\n",
    description:
      'Check a number with the Luhn algorithm. Spaces are allowed and ignored; any other non-digit makes it invalid, as does having fewer than 2 digits. From the right, double every second digit (subtract 9 when the double exceeds 9) and sum all digits: the number is valid when the sum is divisible by 10.',
    solution: code`export function isValidLuhn(number: string): boolean {
  const digits = number.replace(/ /g, '');
  if (digits.length < 2 || /\D/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
`,
    wrong: code`export function isValidLuhn(number: string): boolean {
  const digits = number.replace(/\D/g, '');
  if (digits.length < 2) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
`,
    visible: [
      'expect(isValidLuhn("4539 3195 0343 6467")).toBe(true);',
      'expect(isValidLuhn("8273 1232 7352 0569")).toBe(false);',
      'expect(isValidLuhn("0")).toBe(false);',
    ],
    hidden: [
      'expect(isValidLuhn("059")).toBe(true);',
      'expect(isValidLuhn("055-444-285")).toBe(false);',
      'expect(isValidLuhn(" 0 0 ")).toBe(true);',
      'expect(isValidLuhn("091")).toBe(true);',
      'expect(isValidLuhn("9999999999 9999999999 9999999999 9999999999")).toBe(true);',
    ],
  },
  {
    slug: 'isbn-10',
    category: 'parsing',
    difficulty: 'easy',
    split: 'test',
    entry: 'isValidIsbn10',
    starter: "export function isValidIsbn10(text: string): boolean {\n  throw new Error('not implemented');\n}\n",
    description:
      'Validate an ISBN-10. Dashes are ignored; what remains must be 9 digits followed by a digit or "X" (worth 10). It is valid when d1·10 + d2·9 + … + d10·1 is divisible by 11.',
    solution: code`export function isValidIsbn10(text: string): boolean {
  const chars = text.replace(/-/g, '');
  if (!/^\d{9}[\dX]$/.test(chars)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (chars[i] === 'X' ? 10 : Number(chars[i])) * (10 - i);
  return sum % 11 === 0;
}
`,
    wrong: code`export function isValidIsbn10(text: string): boolean {
  const chars = text.replace(/-/g, '');
  if (chars.length !== 10) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (chars[i] === 'X' ? 10 : Number(chars[i])) * (10 - i);
  return sum % 11 === 0;
}
`,
    visible: [
      'expect(isValidIsbn10("3-598-21508-8")).toBe(true);',
      'expect(isValidIsbn10("3-598-21508-9")).toBe(false);',
      'expect(isValidIsbn10("3-598-21507-X")).toBe(true);',
    ],
    hidden: [
      'expect(isValidIsbn10("3598215088")).toBe(true);',
      'expect(isValidIsbn10("3-598-2X507-9")).toBe(false);',
      'expect(isValidIsbn10("359821507")).toBe(false);',
      'expect(isValidIsbn10("3-598-21507-A")).toBe(false);',
      'expect(isValidIsbn10("")).toBe(false);',
    ],
  },
  {
    slug: 'bowling',
    category: 'algorithms',
    difficulty: 'hard',
    split: 'train',
    entry: 'bowlingScore',
    starter: "export function bowlingScore(rolls: number[]): number {\n  throw new Error('not implemented');\n}\n",
    description:
      'Score a complete ten-pin bowling game given the pins knocked down by each roll. A strike (10 on the first roll of a frame) scores 10 plus the next two rolls; a spare (10 over the two rolls of a frame) scores 10 plus the next roll; otherwise a frame scores its pins. The tenth frame may have one or two bonus rolls.',
    solution: code`export function bowlingScore(rolls: number[]): number {
  let score = 0;
  let at = 0;
  for (let frame = 0; frame < 10; frame++) {
    if (rolls[at] === 10) {
      score += 10 + rolls[at + 1] + rolls[at + 2];
      at += 1;
    } else if (rolls[at] + rolls[at + 1] === 10) {
      score += 10 + rolls[at + 2];
      at += 2;
    } else {
      score += rolls[at] + rolls[at + 1];
      at += 2;
    }
  }
  return score;
}
`,
    wrong: code`export function bowlingScore(rolls: number[]): number {
  let score = 0;
  for (let i = 0; i < rolls.length; i++) {
    score += rolls[i];
    if (rolls[i] === 10 && i < rolls.length - 2) score += rolls[i + 1] + rolls[i + 2];
  }
  return score;
}
`,
    visible: [
      'expect(bowlingScore(new Array(20).fill(0))).toBe(0);',
      'expect(bowlingScore(new Array(12).fill(10))).toBe(300);',
      'expect(bowlingScore([5, 5, 3, 0, ...new Array(16).fill(0)])).toBe(16);',
    ],
    hidden: [
      'expect(bowlingScore(new Array(20).fill(1))).toBe(20);',
      'expect(bowlingScore([10, 3, 4, ...new Array(16).fill(0)])).toBe(24);',
      'expect(bowlingScore(new Array(21).fill(5))).toBe(150);',
      'expect(bowlingScore([...new Array(18).fill(0), 10, 7, 3])).toBe(20);',
      'expect(bowlingScore([10, 10, 10, 0, 0, ...new Array(14).fill(0)])).toBe(60);',
      'expect(bowlingScore([...new Array(18).fill(0), 7, 3, 10])).toBe(20);',
    ],
  },
  {
    slug: 'word-wrap',
    category: 'strings',
    difficulty: 'medium',
    split: 'test',
    entry: 'wrap',
    starter:
      "export function wrap(text: string, width: number): string[] {\n  throw new Error('not implemented');\n}\n",
    description:
      'Greedy word wrap: split the text into words (separated by any whitespace) and fill lines of at most width characters, one space between words. A word longer than width gets a line of its own (it is not cut). No words → [].',
    solution: code`export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ' ' + word;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
`,
    wrong: code`export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line === '') line = word;
    else if (line.length + word.length < width) line += ' ' + word;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
`,
    visible: [
      'expect(wrap("the quick brown fox", 10)).toEqual(["the quick", "brown fox"]);',
      'expect(wrap("", 5)).toEqual([]);',
      'expect(wrap("extraordinary tale", 5)).toEqual(["extraordinary", "tale"]);',
    ],
    hidden: [
      'expect(wrap("a b c d e", 3)).toEqual(["a b", "c d", "e"]);',
      'expect(wrap("  lots   of\\n space  ", 20)).toEqual(["lots of space"]);',
      'expect(wrap("exact fit", 9)).toEqual(["exact fit"]);',
      'expect(wrap("one two", 3)).toEqual(["one", "two"]);',
    ],
    javascript: true,
  },
  {
    slug: 'pig-latin',
    category: 'strings',
    difficulty: 'medium',
    split: 'train',
    entry: 'toPigLatin',
    starter: "export function toPigLatin(sentence: string): string {\n  throw new Error('not implemented');\n}\n",
    description:
      'Translate each lowercase word of the sentence (words separated by single spaces) to Pig Latin: a word starting with a vowel (a, e, i, o, u) gets "way" appended; otherwise its leading consonants move to the end followed by "ay" ("string" → "ingstray"). "qu" moves together with the consonants before it ("square" → "aresquay"); a word with no vowel gets "ay" appended.',
    solution: code`export function toPigLatin(sentence: string): string {
  return sentence
    .split(' ')
    .map((word) => {
      if (/^[aeiou]/.test(word)) return word + 'way';
      const match = /^([^aeiou]*?qu|[^aeiou]+)(.*)$/.exec(word);
      if (!match || match[2] === '') return word + 'ay';
      return match[2] + match[1] + 'ay';
    })
    .join(' ');
}
`,
    wrong: code`export function toPigLatin(sentence: string): string {
  return sentence
    .split(' ')
    .map((word) => (/^[aeiou]/.test(word) ? word + 'way' : word.slice(1) + word[0] + 'ay'))
    .join(' ');
}
`,
    visible: [
      'expect(toPigLatin("pig")).toBe("igpay");',
      'expect(toPigLatin("apple")).toBe("appleway");',
      'expect(toPigLatin("string")).toBe("ingstray");',
    ],
    hidden: [
      'expect(toPigLatin("square")).toBe("aresquay");',
      'expect(toPigLatin("quiet")).toBe("ietquay");',
      'expect(toPigLatin("the quick fox")).toBe("ethay ickquay oxfay");',
      'expect(toPigLatin("rhythm")).toBe("rhythmay");',
      'expect(toPigLatin("egg")).toBe("eggway");',
    ],
  },
  {
    slug: 'get-path',
    category: 'parsing',
    difficulty: 'medium',
    split: 'train',
    entry: 'getPath',
    starter:
      "export function getPath(value: unknown, path: string): unknown {\n  throw new Error('not implemented');\n}\n",
    description:
      'Read a nested value by a path such as "user.tags[1]" or "a.b.c" or "[0].name": dot-separated property names and [index] array accesses. Return undefined as soon as a step is missing (or the value is null/undefined). The empty path returns the value itself.',
    solution: code`export function getPath(value: unknown, path: string): unknown {
  const steps = path.match(/[^.[\]]+/g) ?? [];
  let current: unknown = value;
  for (const step of steps) {
    if (current === null || current === undefined) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}
`,
    wrong: code`export function getPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const step of path.split('.')) current = (current as Record<string, unknown>)[step];
  return current;
}
`,
    visible: [
      'expect(getPath({ a: { b: { c: 1 } } }, "a.b.c")).toBe(1);',
      'expect(getPath({ user: { tags: ["x", "y"] } }, "user.tags[1]")).toBe("y");',
      'expect(getPath({ a: 1 }, "b.c")).toBeUndefined();',
    ],
    hidden: [
      'expect(getPath([{ name: "n" }], "[0].name")).toBe("n");',
      'expect(getPath({ a: null }, "a.b")).toBeUndefined();',
      'expect(getPath({ a: 2 }, "")).toEqual({ a: 2 });',
      'expect(getPath({ m: [[1, 2], [3, 4]] }, "m[1][0]")).toBe(3);',
      'expect(getPath({ "x": { "0": "zero" } }, "x.0")).toBe("zero");',
    ],
  },
  {
    slug: 'deep-merge',
    category: 'data-structures',
    difficulty: 'medium',
    split: 'train',
    entry: 'deepMerge',
    starter:
      "export function deepMerge(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {\n  throw new Error('not implemented');\n}\n",
    description:
      'Return a new object: base with override merged in. When both sides hold a plain object (not an array, not null) under the same key, merge them recursively; otherwise the override value wins (arrays are replaced, not concatenated). Neither input may be modified.',
    solution: code`function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
export function deepMerge(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    out[key] = isPlain(current) && isPlain(value) ? deepMerge(current, value) : value;
  }
  return out;
}
`,
    wrong: code`export function deepMerge(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  return { ...base, ...override };
}
`,
    visible: [
      'expect(deepMerge({ a: 1, b: 2 }, { b: 3 })).toEqual({ a: 1, b: 3 });',
      'expect(deepMerge({ a: { x: 1 } }, { a: { y: 2 } })).toEqual({ a: { x: 1, y: 2 } });',
      'expect(deepMerge({ list: [1, 2] }, { list: [3] })).toEqual({ list: [3] });',
    ],
    hidden: [
      'expect(deepMerge({}, {})).toEqual({});',
      'expect(deepMerge({ a: { b: { c: 1, d: 2 } } }, { a: { b: { d: 3 } } })).toEqual({ a: { b: { c: 1, d: 3 } } });',
      'expect(deepMerge({ a: { x: 1 } }, { a: null })).toEqual({ a: null });',
      'const base = { a: { x: 1 } };\ndeepMerge(base, { a: { x: 2 } });\nexpect(base).toEqual({ a: { x: 1 } });',
      'expect(deepMerge({ a: 1 }, { a: { deep: true } })).toEqual({ a: { deep: true } });',
    ],
  },
  {
    slug: 'memoize',
    category: 'algorithms',
    difficulty: 'medium',
    split: 'test',
    entry: 'memoize',
    starter:
      "export function memoize<A, R>(fn: (arg: A) => R): (arg: A) => R {\n  throw new Error('not implemented');\n}\n",
    description:
      'Return a function that calls fn at most once per distinct argument (compared with Object.is, so NaN is cached like any value) and returns the remembered result afterwards — including results that are undefined.',
    solution: code`export function memoize<A, R>(fn: (arg: A) => R): (arg: A) => R {
  const cache = new Map<A, R>();
  return (arg: A) => {
    if (!cache.has(arg)) cache.set(arg, fn(arg));
    return cache.get(arg) as R;
  };
}
`,
    wrong: code`export function memoize<A, R>(fn: (arg: A) => R): (arg: A) => R {
  const cache = new Map<A, R>();
  return (arg: A) => {
    if (cache.get(arg) === undefined) cache.set(arg, fn(arg));
    return cache.get(arg) as R;
  };
}
`,
    visible: [
      'let calls = 0;\nconst square = memoize((n: number) => { calls += 1; return n * n; });\nexpect(square(4)).toBe(16);\nexpect(square(4)).toBe(16);\nexpect(calls).toBe(1);',
      'const id = memoize((s: string) => s.toUpperCase());\nexpect(id("a")).toBe("A");\nexpect(id("b")).toBe("B");',
    ],
    hidden: [
      'let calls = 0;\nconst f = memoize((n: number) => { calls += 1; return undefined; });\nf(1);\nf(1);\nexpect(calls).toBe(1);',
      'let calls = 0;\nconst f = memoize((n: number) => { calls += 1; return n; });\nf(NaN);\nf(NaN);\nexpect(calls).toBe(1);',
      'let calls = 0;\nconst f = memoize((n: number) => { calls += 1; return n + 1; });\nexpect([f(1), f(2), f(1), f(2)]).toEqual([2, 3, 2, 3]);\nexpect(calls).toBe(2);',
      'const key = {};\nlet calls = 0;\nconst f = memoize((o: object) => { calls += 1; return calls; });\nexpect(f(key)).toBe(1);\nexpect(f({})).toBe(2);\nexpect(f(key)).toBe(1);',
    ],
    javascript: true,
  },
  {
    slug: 'compose',
    category: 'algorithms',
    difficulty: 'easy',
    split: 'train',
    entry: 'compose',
    starter:
      "export function compose(...fns: ((value: any) => any)[]): (value: any) => any {\n  throw new Error('not implemented');\n}\n",
    description:
      'Compose functions right to left: compose(f, g, h)(x) is f(g(h(x))). compose() with no functions is the identity.',
    solution: code`export function compose(...fns: ((value: any) => any)[]): (value: any) => any {
  return (value: any) => fns.reduceRight((acc, fn) => fn(acc), value);
}
`,
    wrong: code`export function compose(...fns: ((value: any) => any)[]): (value: any) => any {
  return (value: any) => fns.reduce((acc, fn) => fn(acc), value);
}
`,
    visible: [
      'expect(compose((x: number) => x + 1, (x: number) => x * 2)(5)).toBe(11);',
      'expect(compose()(7)).toBe(7);',
    ],
    hidden: [
      'expect(compose((s: string) => s + "!", (s: string) => s.toUpperCase())("hi")).toBe("HI!");',
      'expect(compose((x: number) => x - 3)(3)).toBe(0);',
      'expect(compose((x: number) => x * 10, (x: number) => x + 1, (x: number) => x * x)(2)).toBe(50);',
      'expect(compose((a: number[]) => a.length, (a: number[]) => a.filter((n) => n > 1))([1, 2, 3])).toBe(2);',
    ],
  },
  {
    slug: 'column-name',
    category: 'math',
    difficulty: 'medium',
    split: 'train',
    entry: 'columnName',
    starter: "export function columnName(n: number): string {\n  throw new Error('not implemented');\n}\n",
    description:
      'Spreadsheet column names: 1 → "A", 26 → "Z", 27 → "AA", 28 → "AB", 702 → "ZZ", 703 → "AAA". Return the name of column n >= 1.',
    solution: code`export function columnName(n: number): string {
  let name = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    name = String.fromCharCode(65 + rest) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}
`,
    wrong: code`export function columnName(n: number): string {
  let name = '';
  while (n > 0) {
    name = String.fromCharCode(64 + (n % 26)) + name;
    n = Math.floor(n / 26);
  }
  return name;
}
`,
    visible: [
      'expect(columnName(1)).toBe("A");',
      'expect(columnName(28)).toBe("AB");',
      'expect(columnName(702)).toBe("ZZ");',
    ],
    hidden: [
      'expect(columnName(26)).toBe("Z");',
      'expect(columnName(27)).toBe("AA");',
      'expect(columnName(52)).toBe("AZ");',
      'expect(columnName(703)).toBe("AAA");',
      'expect(columnName(16384)).toBe("XFD");',
    ],
  },
  {
    slug: 'glob-match',
    category: 'algorithms',
    difficulty: 'hard',
    split: 'test',
    entry: 'globMatch',
    starter:
      "export function globMatch(pattern: string, text: string): boolean {\n  throw new Error('not implemented');\n}\n",
    description:
      'Does the whole text match the pattern? In the pattern "?" matches exactly one character, "*" matches any sequence (including none); every other character matches itself. No regular expressions, and it must stay fast for long patterns with many stars.',
    solution: code`export function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === text[t])) {
      p += 1;
      t += 1;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p;
      mark = t;
      p += 1;
    } else if (star >= 0) {
      p = star + 1;
      mark += 1;
      t = mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}
`,
    wrong: code`export function globMatch(pattern: string, text: string): boolean {
  let t = 0;
  for (let p = 0; p < pattern.length; p++) {
    if (pattern[p] === '*') {
      const next = pattern[p + 1];
      if (next === undefined) return true;
      while (t < text.length && text[t] !== next) t += 1;
    } else if (pattern[p] === '?' || pattern[p] === text[t]) t += 1;
    else return false;
  }
  return t === text.length;
}
`,
    visible: [
      'expect(globMatch("a*b", "axxb")).toBe(true);',
      'expect(globMatch("a?c", "abd")).toBe(false);',
      'expect(globMatch("*", "")).toBe(true);',
    ],
    hidden: [
      'expect(globMatch("*.ts", "index.test.ts")).toBe(true);',
      'expect(globMatch("a*b*c", "abcbc")).toBe(true);',
      'expect(globMatch("*ab", "aab")).toBe(true);',
      'expect(globMatch("?", "")).toBe(false);',
      'expect(globMatch("a*a*a*a*a*a*a*a*b", "a".repeat(60))).toBe(false);',
      'expect(globMatch("", "x")).toBe(false);',
    ],
  },
  {
    slug: 'format-list',
    category: 'strings',
    difficulty: 'easy',
    split: 'train',
    entry: 'formatList',
    starter: "export function formatList(items: string[]): string {\n  throw new Error('not implemented');\n}\n",
    description:
      'Join items for an English sentence: [] → "", ["a"] → "a", ["a", "b"] → "a and b", ["a", "b", "c"] → "a, b and c" (no comma before "and").',
    solution: code`export function formatList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return items.slice(0, -1).join(', ') + ' and ' + items[items.length - 1];
}
`,
    wrong: code`export function formatList(items: string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return items.slice(0, -1).join(', ') + ', and ' + items[items.length - 1];
}
`,
    visible: [
      'expect(formatList(["a", "b", "c"])).toBe("a, b and c");',
      'expect(formatList([])).toBe("");',
      'expect(formatList(["solo"])).toBe("solo");',
    ],
    hidden: [
      'expect(formatList(["x", "y"])).toBe("x and y");',
      'expect(formatList(["1", "2", "3", "4"])).toBe("1, 2, 3 and 4");',
      'expect(formatList(["", "b"])).toBe(" and b");',
      'expect(formatList(["tea", "milk", "sugar"])).toBe("tea, milk and sugar");',
    ],
    javascript: true,
  },
  {
    slug: 'event-emitter',
    category: 'data-structures',
    difficulty: 'medium',
    split: 'train',
    entry: 'Emitter',
    starter:
      "export class Emitter {\n  on(event: string, listener: (...args: unknown[]) => void): () => void {\n    throw new Error('not implemented');\n  }\n  emit(event: string, ...args: unknown[]): number {\n    throw new Error('not implemented');\n  }\n}\n",
    description:
      'A small event emitter. on(event, listener) registers a listener and returns a function that unregisters it (calling that twice is harmless). emit(event, ...args) calls the listeners of that event in registration order with the arguments and returns how many were called. A listener registered twice is called twice; a listener removed while an emit is running is still called in that emit.',
    solution: code`export class Emitter {
  private listeners = new Map<string, { fn: (...args: unknown[]) => void }[]>();
  on(event: string, listener: (...args: unknown[]) => void): () => void {
    const entry = { fn: listener };
    const list = this.listeners.get(event) ?? [];
    list.push(entry);
    this.listeners.set(event, list);
    return () => {
      const current = this.listeners.get(event) ?? [];
      const at = current.indexOf(entry);
      if (at >= 0) current.splice(at, 1);
    };
  }
  emit(event: string, ...args: unknown[]): number {
    const list = [...(this.listeners.get(event) ?? [])];
    for (const entry of list) entry.fn(...args);
    return list.length;
  }
}
`,
    wrong: code`export class Emitter {
  private listeners = new Map<string, ((...args: unknown[]) => void)[]>();
  on(event: string, listener: (...args: unknown[]) => void): () => void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
    return () => this.listeners.set(event, list.filter((fn) => fn !== listener));
  }
  emit(event: string, ...args: unknown[]): number {
    const list = this.listeners.get(event) ?? [];
    for (const fn of list) fn(...args);
    return list.length;
  }
}
`,
    visible: [
      'const emitter = new Emitter();\nconst seen: unknown[] = [];\nemitter.on("x", (a) => seen.push(a));\nexpect(emitter.emit("x", 1)).toBe(1);\nexpect(seen).toEqual([1]);',
      'const emitter = new Emitter();\nexpect(emitter.emit("nothing")).toBe(0);',
    ],
    hidden: [
      'const emitter = new Emitter();\nlet n = 0;\nconst off = emitter.on("e", () => (n += 1));\nemitter.emit("e");\noff();\noff();\nemitter.emit("e");\nexpect(n).toBe(1);',
      'const emitter = new Emitter();\nconst calls: string[] = [];\nconst f = () => calls.push("f");\nconst offFirst = emitter.on("e", f);\nemitter.on("e", f);\noffFirst();\nexpect(emitter.emit("e")).toBe(1);\nexpect(calls).toEqual(["f"]);',
      'const emitter = new Emitter();\nconst calls: string[] = [];\nlet offB = () => {};\nemitter.on("e", () => { calls.push("a"); offB(); });\noffB = emitter.on("e", () => calls.push("b"));\nexpect(emitter.emit("e")).toBe(2);\nexpect(calls).toEqual(["a", "b"]);\nemitter.emit("e");\nexpect(calls).toEqual(["a", "b", "a"]);',
      'const emitter = new Emitter();\nconst got: unknown[][] = [];\nemitter.on("sum", (...args) => got.push(args));\nemitter.emit("sum", 1, "two", null);\nexpect(got).toEqual([[1, "two", null]]);',
    ],
  },
  {
    slug: 'rate-limiter',
    category: 'data-structures',
    difficulty: 'hard',
    split: 'test',
    entry: 'RateLimiter',
    starter:
      "export class RateLimiter {\n  constructor(limit: number, windowMs: number) {}\n  allow(client: string, now: number): boolean {\n    throw new Error('not implemented');\n  }\n}\n",
    description:
      'A sliding-window rate limiter: allow(client, now) returns true and records the request when the client made fewer than limit allowed requests in the window (now - windowMs, now]; otherwise it returns false (a refused request is not recorded). Clients are independent; now never decreases.',
    solution: code`export class RateLimiter {
  private log = new Map<string, number[]>();
  constructor(private limit: number, private windowMs: number) {}
  allow(client: string, now: number): boolean {
    const times = (this.log.get(client) ?? []).filter((time) => time > now - this.windowMs);
    const allowed = times.length < this.limit;
    if (allowed) times.push(now);
    this.log.set(client, times);
    return allowed;
  }
}
`,
    wrong: code`export class RateLimiter {
  private log = new Map<string, number[]>();
  constructor(private limit: number, private windowMs: number) {}
  allow(client: string, now: number): boolean {
    const times = (this.log.get(client) ?? []).filter((time) => time >= now - this.windowMs);
    times.push(now);
    this.log.set(client, times);
    return times.length <= this.limit;
  }
}
`,
    visible: [
      'const limiter = new RateLimiter(2, 1000);\nexpect(limiter.allow("a", 0)).toBe(true);\nexpect(limiter.allow("a", 10)).toBe(true);\nexpect(limiter.allow("a", 20)).toBe(false);',
      'const limiter = new RateLimiter(1, 100);\nexpect(limiter.allow("a", 0)).toBe(true);\nexpect(limiter.allow("b", 0)).toBe(true);',
    ],
    hidden: [
      'const limiter = new RateLimiter(1, 100);\nexpect(limiter.allow("a", 0)).toBe(true);\nexpect(limiter.allow("a", 100)).toBe(true);',
      'const limiter = new RateLimiter(2, 1000);\nlimiter.allow("a", 0);\nlimiter.allow("a", 1);\nexpect(limiter.allow("a", 2)).toBe(false);\nexpect(limiter.allow("a", 999)).toBe(false);\nexpect(limiter.allow("a", 1000)).toBe(true);',
      'const limiter = new RateLimiter(1, 50);\nexpect(limiter.allow("a", 0)).toBe(true);\nexpect(limiter.allow("a", 40)).toBe(false);\nexpect(limiter.allow("a", 60)).toBe(true);',
      'const limiter = new RateLimiter(3, 10);\nconst results = [0, 1, 2, 3, 11, 12, 13, 14].map((t) => limiter.allow("c", t));\nexpect(results).toEqual([true, true, true, false, true, true, true, false]);',
    ],
    javascript: true,
  },
];

/** The hand-written problems, each its own split unit. */
export function buildHandWrittenTasks(): CodingTask[] {
  return TASKS.map((task) => {
    const javascript = task.javascript ?? false;
    const file = javascript ? 'solution.js' : 'solution.ts';
    const convert = (source: string): string => (javascript ? stripTypes(source) : source);
    // Tests are TypeScript-flavoured where they annotate parameters; the runner strips types either way.
    const visible = [...task.visible];
    const kindOfThing = /^[A-Z]/.test(task.entry) ? 'class' : 'function';
    const prompt = [
      `Implement the ${kindOfThing} \`${task.entry}\` in \`${file}\` (${javascript ? 'JavaScript' : 'TypeScript'}) and export it.`,
      '',
      task.description,
      '',
      'Starting code:',
      '```' + (javascript ? 'js' : 'ts'),
      convert(task.starter).trimEnd(),
      '```',
      '',
      'Visible tests (RUN_TESTS runs them; SUBMIT grades your code on more, hidden tests):',
      '```js',
      visible.join(visible.some((test) => test.includes('\n')) ? '\n\n' : '\n'),
      '```',
    ].join('\n');
    return {
      task_id: `fn/hand-written/${task.slug}`,
      kind: 'function',
      split: task.split,
      difficulty: task.difficulty,
      category: task.category,
      family: `hand-written-${task.slug}`,
      language: javascript ? 'javascript' : 'typescript',
      prompt,
      entry_point: task.entry,
      files: { [file]: convert(task.starter) },
      canonical_solution: { [file]: convert(task.solution) },
      wrong_solution: { [file]: convert(task.wrong) },
      test_setup_code: `import { ${task.entry} } from './solution';`,
      visible_tests: visible,
      hidden_tests: [...visible, ...task.hidden],
    } satisfies CodingTask;
  });
}
