import { casesRng, generate, randomInts, type FunctionFamily, type FunctionVariant } from './function-family';

const code = String.raw;

const gcdSource = code`function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
`;

const gcdLcm: FunctionVariant[] = [
  {
    slug: 'gcd',
    difficulty: 'easy',
    entry: 'gcd',
    signature: 'export function gcd(a: number, b: number): number',
    description:
      'Greatest common divisor of two integers (either may be negative or 0). gcd(0, 0) is 0; the result is never negative.',
    solution: `export ${gcdSource}`,
    wrong: code`export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
`,
    cases: [
      [12, 18],
      [17, 5],
      [0, 9],
      [0, 0],
      [-12, 18],
      [48, -36],
      [270, 192],
      [-12, 0],
      [0, -5],
    ],
  },
  {
    slug: 'lcm',
    difficulty: 'easy',
    entry: 'lcm',
    signature: 'export function lcm(a: number, b: number): number',
    description: 'Least common multiple of two non-negative integers; lcm(x, 0) is 0.',
    solution: `${gcdSource}
export function lcm(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return (a / gcd(a, b)) * b;
}
`,
    wrong: code`export function lcm(a: number, b: number): number {
  return a * b;
}
`,
    cases: [
      [4, 6],
      [21, 6],
      [5, 0],
      [7, 13],
      [12, 12],
      [1, 99],
    ],
  },
  {
    slug: 'gcd-of-array',
    difficulty: 'easy',
    entry: 'gcdOfAll',
    signature: 'export function gcdOfAll(values: number[]): number',
    description: 'Greatest common divisor of all the (non-negative) values; 0 for an empty array.',
    solution: `${gcdSource}
export function gcdOfAll(values: number[]): number {
  return values.reduce((acc, value) => gcd(acc, value), 0);
}
`,
    wrong: `${gcdSource}
export function gcdOfAll(values: number[]): number {
  return values.length < 2 ? 0 : values.reduce((acc, value) => gcd(acc, value));
}
`,
    cases: [[[12, 18, 24]], [[]], [[7]], [[5, 10, 0]], [[9, 28]], [[100, 75, 50]]],
  },
  {
    slug: 'lcm-of-range',
    difficulty: 'medium',
    entry: 'smallestMultiple',
    signature: 'export function smallestMultiple(n: number): number',
    description: 'The smallest positive number divisible by every integer from 1 to n (1 <= n <= 20).',
    solution: `${gcdSource}
export function smallestMultiple(n: number): number {
  let result = 1;
  for (let k = 2; k <= n; k++) result = (result / gcd(result, k)) * k;
  return result;
}
`,
    wrong: code`export function smallestMultiple(n: number): number {
  let result = 1;
  for (let k = 2; k <= n; k++) if (result % k !== 0) result *= k;
  return result;
}
`,
    cases: [[1], [5], [10], [4], [20], [12]],
    known: [
      [[10], 2520],
      [[20], 232792560],
    ],
    javascript: true,
  },
  {
    slug: 'reduce-fraction',
    difficulty: 'medium',
    entry: 'reduceFraction',
    signature: 'export function reduceFraction(numerator: number, denominator: number): [number, number]',
    description:
      'Reduce a fraction to lowest terms and return [numerator, denominator] with a positive denominator (the sign goes on the numerator). The denominator is never 0; 0/x reduces to [0, 1].',
    solution: `${gcdSource}
export function reduceFraction(numerator: number, denominator: number): [number, number] {
  const divisor = gcd(numerator, denominator) * (denominator < 0 ? -1 : 1);
  return [numerator / divisor + 0, denominator / divisor];
}
`,
    wrong: `${gcdSource}
export function reduceFraction(numerator: number, denominator: number): [number, number] {
  const divisor = gcd(numerator, denominator);
  return [numerator / divisor, denominator / divisor];
}
`,
    cases: [
      [6, 8],
      [3, -9],
      [-4, -6],
      [0, 5],
      [7, 7],
      [10, 3],
      [-15, 25],
    ],
  },
];

function digitCase(rng: ReturnType<typeof casesRng>): number[] {
  return [rng.int(0, 999999)];
}

const digits: FunctionVariant[] = [
  {
    slug: 'digit-sum',
    difficulty: 'easy',
    entry: 'digitSum',
    signature: 'export function digitSum(n: number): number',
    description: 'Sum of the decimal digits of the integer n (the sign is ignored).',
    solution: code`export function digitSum(n: number): number {
  return String(Math.abs(n)).split('').reduce((sum, digit) => sum + Number(digit), 0);
}
`,
    wrong: code`export function digitSum(n: number): number {
  return String(n).split('').reduce((sum, digit) => sum + Number(digit), 0);
}
`,
    cases: [[123], [0], [-45], [9999], [100], ...generate(2, () => digitCase(casesRng('digits', 'digit-sum')))],
  },
  {
    slug: 'digital-root',
    difficulty: 'easy',
    entry: 'digitalRoot',
    signature: 'export function digitalRoot(n: number): number',
    description:
      'Repeatedly replace the non-negative integer n by the sum of its digits until one digit remains; return it.',
    solution: code`export function digitalRoot(n: number): number {
  while (n >= 10) n = String(n).split('').reduce((sum, digit) => sum + Number(digit), 0);
  return n;
}
`,
    wrong: code`export function digitalRoot(n: number): number {
  return n % 9;
}
`,
    cases: [[16], [942], [0], [9], [132189], [493193], [18]],
  },
  {
    slug: 'reverse-digits',
    difficulty: 'easy',
    entry: 'reverseDigits',
    signature: 'export function reverseDigits(n: number): number',
    description:
      'Reverse the decimal digits of the integer n, keeping its sign; leading zeros of the result vanish (120 → 21, -45 → -54).',
    solution: code`export function reverseDigits(n: number): number {
  const reversed = Number(String(Math.abs(n)).split('').reverse().join(''));
  return n < 0 ? -reversed : reversed;
}
`,
    wrong: code`export function reverseDigits(n: number): number {
  return Number(String(Math.abs(n)).split('').reverse().join(''));
}
`,
    cases: [[123], [-45], [120], [0], [7], [-1000], [90817]],
  },
  {
    slug: 'armstrong',
    difficulty: 'easy',
    entry: 'isArmstrong',
    signature: 'export function isArmstrong(n: number): boolean',
    description:
      'Is the non-negative integer n equal to the sum of its digits each raised to the power of the number of digits (153 = 1³ + 5³ + 3³)?',
    solution: code`export function isArmstrong(n: number): boolean {
  const text = String(n);
  return text.split('').reduce((sum, digit) => sum + Number(digit) ** text.length, 0) === n;
}
`,
    wrong: code`export function isArmstrong(n: number): boolean {
  const text = String(n);
  return text.split('').reduce((sum, digit) => sum + Number(digit) ** 3, 0) === n;
}
`,
    cases: [[153], [370], [9474], [10], [0], [9], [100], [8208]],
    javascript: true,
  },
  ...[2, 16].map((base): FunctionVariant => ({
    slug: `digit-count-base-${base}`,
    difficulty: 'easy',
    entry: 'digitCount',
    signature: 'export function digitCount(n: number): number',
    description: `How many digits the non-negative integer n has when written in base ${base} (0 has one digit).`,
    solution: code`export function digitCount(n: number): number {
  let count = 1;
  while (n >= ${base}) {
    n = Math.floor(n / ${base});
    count += 1;
  }
  return count;
}
`,
    wrong: code`export function digitCount(n: number): number {
  return Math.ceil(Math.log(n + 1) / Math.log(${base}));
}
`,
    cases: [[0], [1], [base - 1], [base], [base * base], [1000], [255], [4096]],
  })),
];

const isPrimeSource = code`function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}
`;

const primes: FunctionVariant[] = [
  {
    slug: 'is-prime',
    difficulty: 'easy',
    entry: 'isPrime',
    signature: 'export function isPrime(n: number): boolean',
    description: 'Is the integer n a prime number? (Numbers below 2 are not.)',
    solution: `export ${isPrimeSource}`,
    wrong: code`export function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d < n; d++) if (n % d === 0) return false;
  return true;
}
`,
    cases: [[2], [1], [0], [-7], [9], [97], [25], [7919], [49]],
  },
  {
    slug: 'nth-prime',
    difficulty: 'medium',
    entry: 'nthPrime',
    signature: 'export function nthPrime(n: number): number',
    description: 'Return the n-th prime number, 1-based (nthPrime(1) is 2). 1 <= n <= 2000.',
    solution: `${isPrimeSource}
export function nthPrime(n: number): number {
  let found = 0;
  for (let candidate = 2; ; candidate++) if (isPrime(candidate) && ++found === n) return candidate;
}
`,
    wrong: `${isPrimeSource}
export function nthPrime(n: number): number {
  let found = 0;
  for (let candidate = 3; ; candidate += 2) if (isPrime(candidate) && ++found === n) return candidate;
}
`,
    cases: [[1], [2], [6], [10], [100], [2000]],
    known: [
      [[6], 13],
      [[100], 541],
    ],
  },
  {
    slug: 'primes-below',
    difficulty: 'medium',
    entry: 'primesBelow',
    signature: 'export function primesBelow(limit: number): number[]',
    description: 'Return every prime strictly less than limit, in increasing order.',
    solution: code`export function primesBelow(limit: number): number[] {
  const sieve = new Array(Math.max(limit, 0)).fill(true);
  const out: number[] = [];
  for (let n = 2; n < limit; n++) {
    if (!sieve[n]) continue;
    out.push(n);
    for (let m = n * n; m < limit; m += n) sieve[m] = false;
  }
  return out;
}
`,
    wrong: code`export function primesBelow(limit: number): number[] {
  const sieve = new Array(Math.max(limit + 1, 0)).fill(true);
  const out: number[] = [];
  for (let n = 2; n <= limit; n++) {
    if (!sieve[n]) continue;
    out.push(n);
    for (let m = n * n; m <= limit; m += n) sieve[m] = false;
  }
  return out;
}
`,
    cases: [[10], [2], [3], [0], [30], [13], [50]],
  },
  {
    slug: 'prime-factors',
    difficulty: 'medium',
    entry: 'primeFactors',
    signature: 'export function primeFactors(n: number): number[]',
    description:
      'Return the prime factors of the integer n >= 1 with multiplicity, in increasing order (primeFactors(12) is [2, 2, 3]; primeFactors(1) is []).',
    solution: code`export function primeFactors(n: number): number[] {
  const out: number[] = [];
  for (let d = 2; d * d <= n; d++) {
    while (n % d === 0) {
      out.push(d);
      n /= d;
    }
  }
  if (n > 1) out.push(n);
  return out;
}
`,
    wrong: code`export function primeFactors(n: number): number[] {
  const out: number[] = [];
  for (let d = 2; d * d <= n; d++) {
    if (n % d === 0) {
      out.push(d);
      n /= d;
    }
  }
  if (n > 1) out.push(n);
  return out;
}
`,
    cases: [[12], [1], [97], [360], [1024], [9991], [49]],
    javascript: true,
  },
  {
    slug: 'sum-of-primes',
    difficulty: 'easy',
    entry: 'sumOfPrimes',
    signature: 'export function sumOfPrimes(n: number): number',
    description: 'Sum of all primes less than or equal to n.',
    solution: `${isPrimeSource}
export function sumOfPrimes(n: number): number {
  let sum = 0;
  for (let k = 2; k <= n; k++) if (isPrime(k)) sum += k;
  return sum;
}
`,
    wrong: `${isPrimeSource}
export function sumOfPrimes(n: number): number {
  let sum = 0;
  for (let k = 2; k < n; k++) if (isPrime(k)) sum += k;
  return sum;
}
`,
    cases: [[10], [1], [2], [11], [100], [13]],
  },
];

function toBase(base: number): FunctionVariant {
  const rng = casesRng('base-conversion', `to-base-${base}`);
  return {
    slug: `to-base-${base}`,
    difficulty: 'easy',
    entry: 'toBase',
    signature: 'export function toBase(n: number): string',
    description: `Write the integer n in base ${base}${base > 10 ? ' with lowercase letters for digits above 9' : ''}, with a leading "-" for negative numbers, without using Number.prototype.toString(radix).`,
    solution: code`export function toBase(n: number): string {
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz';
  if (n === 0) return '0';
  let rest = Math.abs(n);
  let out = '';
  while (rest > 0) {
    out = digits[rest % ${base}] + out;
    rest = Math.floor(rest / ${base});
  }
  return n < 0 ? '-' + out : out;
}
`,
    wrong: code`export function toBase(n: number): string {
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz';
  let rest = Math.abs(n);
  let out = '';
  while (rest > 0) {
    out = digits[rest % ${base}] + out;
    rest = Math.floor(rest / ${base});
  }
  return n < 0 ? '-' + out : out;
}
`,
    cases: [[0], [1], [base], [-base - 1], [255], [1000], ...generate(2, () => [rng.int(-5000, 5000)])],
    javascript: base === 8,
  };
}

const baseConversion: FunctionVariant[] = [
  ...[2, 3, 8, 16].map(toBase),
  {
    slug: 'from-binary',
    difficulty: 'easy',
    entry: 'fromBinary',
    signature: 'export function fromBinary(bits: string): number',
    description: 'Read a string of 0s and 1s as a binary number (the empty string is 0), without parseInt or Number().',
    solution: code`export function fromBinary(bits: string): number {
  let value = 0;
  for (const bit of bits) value = value * 2 + (bit === '1' ? 1 : 0);
  return value;
}
`,
    wrong: code`export function fromBinary(bits: string): number {
  let value = 0;
  for (let i = 0; i < bits.length; i++) if (bits[i] === '1') value += 2 ** i;
  return value;
}
`,
    cases: [['101'], [''], ['0'], ['1'], ['1100'], ['11111111'], ['100000']],
  },
];

function linearRecurrence(p: number, q: number, a0: number, a1: number): FunctionVariant {
  return {
    slug: `linear-${p}-${q}-${a0}-${a1}`.replace(/-(-)/g, '-m'),
    difficulty: 'medium',
    entry: 'term',
    signature: 'export function term(n: number): number',
    description: `The sequence a(0) = ${a0}, a(1) = ${a1}, a(n) = ${p}·a(n-1) + ${q}·a(n-2). Return a(n) for 0 <= n <= 30.`,
    solution: code`export function term(n: number): number {
  let previous = ${a0};
  let current = ${a1};
  if (n === 0) return previous;
  for (let i = 2; i <= n; i++) [previous, current] = [current, ${p} * current + ${q} * previous];
  return current;
}
`,
    wrong: code`export function term(n: number): number {
  let previous = ${a0};
  let current = ${a1};
  if (n === 0) return previous;
  for (let i = 2; i < n; i++) [previous, current] = [current, ${p} * current + ${q} * previous];
  return current;
}
`,
    cases: [[0], [1], [2], [3], [5], [10], [20]],
  };
}

const recurrences: FunctionVariant[] = [
  {
    slug: 'tribonacci',
    difficulty: 'easy',
    entry: 'tribonacci',
    signature: 'export function tribonacci(n: number): number',
    description: 'T(0) = 0, T(1) = 1, T(2) = 1 and T(n) = T(n-1) + T(n-2) + T(n-3). Return T(n) for 0 <= n <= 37.',
    solution: code`export function tribonacci(n: number): number {
  const t = [0, 1, 1];
  for (let i = 3; i <= n; i++) t.push(t[i - 1] + t[i - 2] + t[i - 3]);
  return t[n];
}
`,
    wrong: code`export function tribonacci(n: number): number {
  const t = [0, 1, 1];
  for (let i = 3; i <= n; i++) t.push(t[i - 1] + t[i - 2]);
  return t[n];
}
`,
    cases: [[0], [1], [2], [3], [4], [10], [25], [37]],
    known: [[[4], 4]],
  },
  linearRecurrence(1, 1, 2, 1),
  linearRecurrence(2, 1, 0, 1),
  { ...linearRecurrence(3, -2, 0, 1), javascript: true },
  {
    slug: 'fibonacci-mod-1000',
    difficulty: 'medium',
    entry: 'fibonacciMod',
    signature: 'export function fibonacciMod(n: number): number',
    description:
      'F(0) = 0, F(1) = 1, F(n) = F(n-1) + F(n-2). Return F(n) modulo 1000 for 0 <= n <= 100000 (F(n) itself overflows doubles long before that).',
    solution: code`export function fibonacciMod(n: number): number {
  let a = 0;
  let b = 1;
  for (let i = 0; i < n; i++) [a, b] = [b, (a + b) % 1000];
  return a;
}
`,
    wrong: code`export function fibonacciMod(n: number): number {
  let a = 0;
  let b = 1;
  for (let i = 0; i < n; i++) [a, b] = [b, a + b];
  return a % 1000;
}
`,
    cases: [[0], [1], [10], [20], [100], [1500], [100000]],
    known: [[[20], 765]],
  },
];

function thousands(separator: string, slug: string): FunctionVariant {
  const rng = casesRng('number-format', slug);
  return {
    slug,
    difficulty: 'easy',
    entry: 'groupThousands',
    signature: 'export function groupThousands(n: number): string',
    description: `Write the integer n with ${JSON.stringify(separator)} between groups of three digits, counting from the right (1234567 → "1${separator}234${separator}567"); negative numbers keep their "-".`,
    solution: code`export function groupThousands(n: number): string {
  const digits = String(Math.abs(n));
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ${JSON.stringify(separator)};
    out += digits[i];
  }
  return n < 0 ? '-' + out : out;
}
`,
    wrong: code`export function groupThousands(n: number): string {
  const digits = String(n);
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ${JSON.stringify(separator)};
    out += digits[i];
  }
  return out;
}
`,
    cases: [[1234567], [0], [999], [1000], [-123456], [-12], ...generate(2, () => [rng.int(-99999999, 99999999)])],
    javascript: separator === ' ',
  };
}

const numberFormat: FunctionVariant[] = [
  thousands(',', 'thousands-comma'),
  thousands('.', 'thousands-dot'),
  thousands(' ', 'thousands-space'),
  {
    slug: 'to-roman',
    difficulty: 'medium',
    entry: 'toRoman',
    signature: 'export function toRoman(n: number): string',
    description:
      'Write 1 <= n <= 3999 in Roman numerals with subtractive pairs (4 = IV, 9 = IX, 40 = XL, 90 = XC, 400 = CD, 900 = CM).',
    solution: code`export function toRoman(n: number): string {
  const table: [number, string][] = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];
  let out = '';
  for (const [value, symbol] of table) {
    while (n >= value) {
      out += symbol;
      n -= value;
    }
  }
  return out;
}
`,
    wrong: code`export function toRoman(n: number): string {
  const table: [number, string][] = [[1000, 'M'], [500, 'D'], [100, 'C'], [50, 'L'], [10, 'X'], [5, 'V'], [1, 'I']];
  let out = '';
  for (const [value, symbol] of table) {
    while (n >= value) {
      out += symbol;
      n -= value;
    }
  }
  return out;
}
`,
    cases: [[1], [4], [9], [14], [40], [1994], [3999], [2024]],
    known: [[[1994], 'MCMXCIV']],
  },
  {
    slug: 'from-roman',
    difficulty: 'medium',
    entry: 'fromRoman',
    signature: 'export function fromRoman(numeral: string): number',
    description:
      'Read a valid Roman numeral (I, V, X, L, C, D, M with subtractive pairs such as IV and CM) and return its value.',
    solution: code`export function fromRoman(numeral: string): number {
  const values: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
  let total = 0;
  for (let i = 0; i < numeral.length; i++) {
    const value = values[numeral[i]];
    const next = values[numeral[i + 1]] ?? 0;
    total += value < next ? -value : value;
  }
  return total;
}
`,
    wrong: code`export function fromRoman(numeral: string): number {
  const values: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
  let total = 0;
  for (const ch of numeral) total += values[ch];
  return total;
}
`,
    cases: [['III'], ['IV'], ['IX'], ['LVIII'], ['MCMXCIV'], ['MMMCMXCIX'], ['XL']],
    javascript: true,
  },
  {
    slug: 'ordinal',
    difficulty: 'easy',
    entry: 'ordinal',
    signature: 'export function ordinal(n: number): string',
    description:
      'Write the non-negative integer n with its English ordinal suffix: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th …',
    solution: code`export function ordinal(n: number): string {
  const lastTwo = n % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return n + 'th';
  const suffix = ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return n + suffix;
}
`,
    wrong: code`export function ordinal(n: number): string {
  const suffix = ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return n + suffix;
}
`,
    cases: [[1], [2], [3], [4], [11], [12], [13], [21], [102], [111], [0]],
  },
];

const stats: FunctionVariant[] = [
  {
    slug: 'mean',
    difficulty: 'easy',
    entry: 'mean',
    signature: 'export function mean(values: number[]): number',
    description: 'The arithmetic mean of the values; NaN for an empty array.',
    solution: code`export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
`,
    wrong: code`export function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
`,
    cases: [[[1, 2, 3, 4]], [[5]], [[]], [[-1, 1]], [[0.5, 0.25, 0.25]], [[10, 20, 35]]],
    approximate: true,
  },
  {
    slug: 'median',
    difficulty: 'easy',
    entry: 'median',
    signature: 'export function median(values: number[]): number',
    description:
      'The median of a non-empty array: the middle value after sorting numerically, or the mean of the two middle values for an even count. Do not modify the input.',
    solution: code`export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
`,
    wrong: code`export function median(values: number[]): number {
  const sorted = [...values].sort();
  return sorted[Math.floor(sorted.length / 2)];
}
`,
    cases: [[[3, 1, 2]], [[4, 1, 3, 2]], [[7]], [[10, 2, 33, 4]], [[-5, 0, 5, 100]], [[1, 1, 2, 2]]],
    approximate: true,
  },
  {
    slug: 'mode',
    difficulty: 'easy',
    entry: 'mode',
    signature: 'export function mode(values: number[]): number',
    description: 'The most frequent value of a non-empty array; on a tie, the smallest such value.',
    solution: code`export function mode(values: number[]): number {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best = values[0];
  for (const [value, count] of counts) {
    const bestCount = counts.get(best) as number;
    if (count > bestCount || (count === bestCount && value < best)) best = value;
  }
  return best;
}
`,
    wrong: code`export function mode(values: number[]): number {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best = values[0];
  for (const [value, count] of counts) if (count > (counts.get(best) as number)) best = value;
  return best;
}
`,
    cases: [[[1, 2, 2, 3]], [[5]], [[3, 1, 3, 1]], [[-1, -1, 2, 2, 0]], [[9, 8, 7]], [[4, 4, 4, 1, 1]]],
    javascript: true,
  },
  {
    slug: 'variance',
    difficulty: 'medium',
    entry: 'variance',
    signature: 'export function variance(values: number[]): number',
    description: 'The population variance of a non-empty array: the mean of the squared differences from the mean.',
    solution: code`export function variance(values: number[]): number {
  const average = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((sum, value) => sum + (value - average) ** 2, 0) / values.length;
}
`,
    wrong: code`export function variance(values: number[]): number {
  const average = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((sum, value) => sum + (value - average) ** 2, 0) / Math.max(values.length - 1, 1);
}
`,
    cases: [[[1, 2, 3, 4]], [[5]], [[2, 4, 4, 4, 5, 5, 7, 9]], [[-1, 1]], [[0.5, 1.5, 2.5]], [[10, 10, 10]]],
    approximate: true,
  },
  {
    slug: 'range',
    difficulty: 'easy',
    entry: 'spread',
    signature: 'export function spread(values: number[]): number',
    description: 'The difference between the largest and the smallest value; 0 for an empty array.',
    solution: code`export function spread(values: number[]): number {
  return values.length === 0 ? 0 : Math.max(...values) - Math.min(...values);
}
`,
    wrong: code`export function spread(values: number[]): number {
  return values.length === 0 ? 0 : values[values.length - 1] - values[0];
}
`,
    cases: [
      [[3, 9, 1]],
      [[]],
      [[5]],
      [[-4, 4]],
      [[1, 2, 3]],
      [[10, -10, 0]],
      ...generate(2, (i) => [randomInts(casesRng('statistics', `range-${i}`), 6, -50, 50)]),
    ],
  },
];

export const MATH_FAMILIES: readonly FunctionFamily[] = [
  { name: 'gcd-lcm', category: 'math', split: 'train', variants: gcdLcm },
  { name: 'digits', category: 'math', split: 'test', variants: digits },
  { name: 'primes', category: 'math', split: 'train', variants: primes },
  { name: 'base-conversion', category: 'math', split: 'train', variants: baseConversion },
  { name: 'recurrences', category: 'math', split: 'test', variants: recurrences },
  { name: 'number-format', category: 'math', split: 'train', variants: numberFormat },
  { name: 'statistics', category: 'math', split: 'train', variants: stats },
];
