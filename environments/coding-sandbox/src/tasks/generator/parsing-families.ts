import type { FunctionFamily, FunctionVariant } from './function-family';

const code = String.raw;

function keyValue(pairSeparator: string, keySeparator: string, slug: string): FunctionVariant {
  const p = pairSeparator;
  const k = keySeparator;
  return {
    slug,
    difficulty: 'easy',
    entry: 'parsePairs',
    signature: 'export function parsePairs(text: string): Record<string, string>',
    description: `Parse "key${k}value" pairs separated by "${p}" into an object. Trim spaces around keys and values; skip empty pieces and pieces without "${k}"; split each piece at its first "${k}" (the value may contain more); a later duplicate key wins.`,
    solution: code`export function parsePairs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const piece of text.split(${JSON.stringify(p)})) {
    const at = piece.indexOf(${JSON.stringify(k)});
    if (at < 0) continue;
    const key = piece.slice(0, at).trim();
    if (key === '') continue;
    out[key] = piece.slice(at + 1).trim();
  }
  return out;
}
`,
    wrong: code`export function parsePairs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const piece of text.split(${JSON.stringify(p)})) {
    const [key, value] = piece.split(${JSON.stringify(k)});
    if (value === undefined) continue;
    out[key.trim()] = value.trim();
  }
  return out;
}
`,
    cases: [
      [`a${k}1${p}b${k}2`],
      [''],
      [` name ${k} Ada ${p} lang ${k} TS `],
      [`x${k}1${p}x${k}2`],
      [`eq${k}a${k}b${p}${p}novalue${p}${k}orphan`],
      [`one${k}`],
    ],
    javascript: p === ',',
  };
}

const keyValues: FunctionVariant[] = [
  keyValue(';', '=', 'semicolon-equals'),
  keyValue('&', '=', 'ampersand-equals'),
  keyValue(',', ':', 'comma-colon'),
  {
    slug: 'stringify',
    difficulty: 'easy',
    entry: 'stringifyPairs',
    signature: 'export function stringifyPairs(pairs: Record<string, string | number | boolean>): string',
    description:
      'Write an object as "key=value" pairs joined by "&", keys in alphabetical order. Values are written with String(value).',
    solution: code`export function stringifyPairs(pairs: Record<string, string | number | boolean>): string {
  return Object.keys(pairs)
    .sort()
    .map((key) => key + '=' + String(pairs[key]))
    .join('&');
}
`,
    wrong: code`export function stringifyPairs(pairs: Record<string, string | number | boolean>): string {
  return Object.keys(pairs)
    .map((key) => key + '=' + String(pairs[key]))
    .join('&');
}
`,
    cases: [[{ b: 2, a: 1 }], [{}], [{ only: 'one' }], [{ z: true, y: 'x', m: 0 }], [{ B: 1, a: 2 }], [{ key: 'a=b' }]],
  },
];

const durations: FunctionVariant[] = [
  {
    slug: 'parse-hms',
    difficulty: 'medium',
    entry: 'parseDuration',
    signature: 'export function parseDuration(text: string): number',
    description:
      'Parse a duration such as "1h30m", "45s", "2h5s" or "1d2h" into seconds. Units: d (86400 s), h, m, s; each number is a whole number, units come in any order and may repeat (they add up). The empty text is 0.',
    solution: code`export function parseDuration(text: string): number {
  const unit: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1 };
  let total = 0;
  const pattern = /(\d+)([dhms])/g;
  let match;
  while ((match = pattern.exec(text)) !== null) total += Number(match[1]) * unit[match[2]];
  return total;
}
`,
    wrong: code`export function parseDuration(text: string): number {
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1 };
  let total = 0;
  const pattern = /(\d+)([hms])/g;
  let match;
  while ((match = pattern.exec(text)) !== null) total += Number(match[1]) * unit[match[2]];
  return total;
}
`,
    cases: [['1h30m'], ['45s'], [''], ['2h5s'], ['1d2h'], ['10m10m'], ['100s']],
  },
  {
    slug: 'parse-clock',
    difficulty: 'easy',
    entry: 'clockToSeconds',
    signature: 'export function clockToSeconds(text: string): number',
    description: 'Convert "mm:ss" or "hh:mm:ss" (fields may have one or more digits) to a number of seconds.',
    solution: code`export function clockToSeconds(text: string): number {
  return text.split(':').reduce((total, field) => total * 60 + Number(field), 0);
}
`,
    wrong: code`export function clockToSeconds(text: string): number {
  const [minutes, seconds] = text.split(':').map(Number);
  return minutes * 60 + seconds;
}
`,
    cases: [['01:30'], ['1:02:03'], ['0:00'], ['10:00:00'], ['59:59'], ['2:0:1']],
  },
  {
    slug: 'format-duration',
    difficulty: 'medium',
    entry: 'formatDuration',
    signature: 'export function formatDuration(seconds: number): string',
    description:
      'Write a whole number of seconds as hours, minutes and seconds, largest first, separated by spaces and skipping zero parts: 3725 → "1h 2m 5s", 60 → "1m", 0 → "0s".',
    solution: code`export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const parts: string[] = [];
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) parts.push(hours + 'h');
  if (minutes > 0) parts.push(minutes + 'm');
  if (rest > 0) parts.push(rest + 's');
  return parts.join(' ');
}
`,
    wrong: code`export function formatDuration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours + 'h ' + minutes + 'm ' + (seconds % 60) + 's';
}
`,
    cases: [[3725], [60], [0], [3600], [59], [86399], [7201]],
    javascript: true,
  },
];

const expressions: FunctionVariant[] = [
  {
    slug: 'add-subtract',
    difficulty: 'easy',
    entry: 'evaluateSum',
    signature: 'export function evaluateSum(expression: string): number',
    description:
      'Evaluate an expression of integers joined by + and - (spaces anywhere, a leading - allowed), left to right. Do not use eval or Function.',
    solution: code`export function evaluateSum(expression: string): number {
  const tokens = expression.replace(/\s+/g, '').match(/[+-]?\d+/g) ?? [];
  return tokens.reduce((total, token) => total + Number(token), 0);
}
`,
    wrong: code`export function evaluateSum(expression: string): number {
  return expression
    .replace(/\s+/g, '')
    .split('+')
    .reduce((total, token) => total + Number(token || 0), 0);
}
`,
    cases: [['1 + 2 - 3'], ['-5+10'], ['42'], ['10 - 20 - 30'], [' 7 +  8 '], ['100-1+1']],
  },
  {
    slug: 'rpn',
    difficulty: 'medium',
    entry: 'evaluateRpn',
    signature: 'export function evaluateRpn(tokens: string[]): number',
    description:
      'Evaluate a reverse Polish notation expression of integer tokens and the operators + - * /. Division truncates toward zero. The expression is always valid.',
    solution: code`export function evaluateRpn(tokens: string[]): number {
  const stack: number[] = [];
  for (const token of tokens) {
    if (['+', '-', '*', '/'].includes(token)) {
      const b = stack.pop() as number;
      const a = stack.pop() as number;
      stack.push(token === '+' ? a + b : token === '-' ? a - b : token === '*' ? a * b : Math.trunc(a / b));
    } else stack.push(Number(token));
  }
  return stack[0];
}
`,
    wrong: code`export function evaluateRpn(tokens: string[]): number {
  const stack: number[] = [];
  for (const token of tokens) {
    if (['+', '-', '*', '/'].includes(token)) {
      const b = stack.pop() as number;
      const a = stack.pop() as number;
      stack.push(token === '+' ? a + b : token === '-' ? a - b : token === '*' ? a * b : Math.floor(a / b));
    } else stack.push(Number(token));
  }
  return stack[0];
}
`,
    cases: [
      [['2', '1', '+', '3', '*']],
      [['4', '13', '5', '/', '+']],
      [['7']],
      [['-7', '2', '/']],
      [['10', '6', '9', '3', '+', '-11', '*', '/', '*', '17', '+', '5', '+']],
      [['3', '4', '-']],
    ],
    known: [[[['10', '6', '9', '3', '+', '-11', '*', '/', '*', '17', '+', '5', '+']], 22]],
  },
  {
    slug: 'arithmetic',
    difficulty: 'hard',
    entry: 'calculate',
    signature: 'export function calculate(expression: string): number',
    description:
      'Evaluate an arithmetic expression with non-negative integers, + - * /, parentheses and spaces, with the usual precedence (* and / before + and -, left to right within a level). Division is exact (a fraction may result). Unary minus may appear before a number or "(". Do not use eval or Function.',
    solution: code`export function calculate(expression: string): number {
  const tokens = expression.match(/\d+|[-+*/()]/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  function factor(): number {
    const token = next();
    if (token === '-') return -factor();
    if (token === '(') {
      const value = sum();
      next();
      return value;
    }
    return Number(token);
  }
  function product(): number {
    let value = factor();
    while (peek() === '*' || peek() === '/') value = next() === '*' ? value * factor() : value / factor();
    return value;
  }
  function sum(): number {
    let value = product();
    while (peek() === '+' || peek() === '-') value = next() === '+' ? value + product() : value - product();
    return value;
  }
  return sum();
}
`,
    wrong: code`export function calculate(expression: string): number {
  const tokens = expression.match(/\d+|[-+*/()]/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  function factor(): number {
    const token = next();
    if (token === '-') return -factor();
    if (token === '(') {
      const value = sum();
      next();
      return value;
    }
    return Number(token);
  }
  function sum(): number {
    let value = factor();
    while (peek() !== undefined && peek() !== ')') {
      const op = next();
      const right = factor();
      value = op === '+' ? value + right : op === '-' ? value - right : op === '*' ? value * right : value / right;
    }
    return value;
  }
  return sum();
}
`,
    cases: [
      ['1 + 2 * 3'],
      ['(1 + 2) * 3'],
      ['10 / 4'],
      ['2 * (3 + 4) - -5'],
      ['42'],
      ['8 - 3 - 2'],
      ['-(2 + 3) * 2'],
      ['100 / 10 / 5'],
    ],
    known: [
      [['1 + 2 * 3'], 7],
      [['8 - 3 - 2'], 3],
    ],
    approximate: true,
  },
];

const brackets: FunctionVariant[] = [
  ...(
    [
      ['()', 'round'],
      ['()[]{}', 'mixed'],
      ['()<>', 'angle'],
    ] as const
  ).map(([pairs, slug]): FunctionVariant => ({
    slug: `balanced-${slug}`,
    difficulty: slug === 'round' ? 'easy' : 'medium',
    entry: 'isBalanced',
    signature: 'export function isBalanced(text: string): boolean',
    description: `Are the brackets ${pairs
      .match(/../g)!
      .map((pair) => `"${pair}"`)
      .join(', ')} balanced and properly nested? Every other character is ignored.`,
    solution: code`export function isBalanced(text: string): boolean {
  const pairs = ${JSON.stringify(pairs)};
  const stack: string[] = [];
  for (const ch of text) {
    const at = pairs.indexOf(ch);
    if (at < 0) continue;
    if (at % 2 === 0) stack.push(pairs[at + 1]);
    else if (stack.pop() !== ch) return false;
  }
  return stack.length === 0;
}
`,
    wrong:
      slug === 'round'
        ? code`export function isBalanced(text: string): boolean {
  const count = (ch: string) => text.split(ch).length - 1;
  return count('(') === count(')');
}
`
        : code`export function isBalanced(text: string): boolean {
  const pairs = ${JSON.stringify(pairs)};
  let depth = 0;
  for (const ch of text) {
    const at = pairs.indexOf(ch);
    if (at < 0) continue;
    depth += at % 2 === 0 ? 1 : -1;
    if (depth < 0) return false;
  }
  return depth === 0;
}
`,
    cases:
      slug === 'round'
        ? [['(a(b)c)'], ['(()'], [''], [')('], ['((()))()'], ['())(()'], ['no brackets']]
        : [
            [pairs],
            [`${pairs[0]}${pairs[2]}${pairs[1]}${pairs[3]}`],
            [''],
            [`${pairs[2]}${pairs[0]}${pairs[1]}${pairs[3]}`],
            [`${pairs[0]}${pairs[0]}`],
            [`x${pairs[2]}y${pairs[3]}z${pairs[1]}`],
            [`${pairs[0]}${pairs[2]}${pairs[3]}${pairs[1]}`],
          ],
    javascript: slug === 'angle',
  })),
  {
    slug: 'min-removals',
    difficulty: 'medium',
    entry: 'minRemovalsToBalance',
    signature: 'export function minRemovalsToBalance(text: string): number',
    description:
      'The fewest "(" or ")" characters to delete so that the parentheses of the text are balanced. Other characters are ignored.',
    solution: code`export function minRemovalsToBalance(text: string): number {
  let open = 0;
  let removals = 0;
  for (const ch of text) {
    if (ch === '(') open += 1;
    else if (ch === ')') {
      if (open > 0) open -= 1;
      else removals += 1;
    }
  }
  return removals + open;
}
`,
    wrong: code`export function minRemovalsToBalance(text: string): number {
  let balance = 0;
  for (const ch of text) {
    if (ch === '(') balance += 1;
    else if (ch === ')') balance -= 1;
  }
  return Math.abs(balance);
}
`,
    cases: [['())'], ['((('], [''], [')('], ['(a)(b'], ['()))(('], ['(())']],
  },
  {
    slug: 'longest-valid',
    difficulty: 'hard',
    entry: 'longestValidParentheses',
    signature: 'export function longestValidParentheses(text: string): number',
    description:
      'The length of the longest substring that is a balanced, well-formed parentheses string. The text has only "(" and ")".',
    solution: code`export function longestValidParentheses(text: string): number {
  const stack: number[] = [-1];
  let best = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') stack.push(i);
    else {
      stack.pop();
      if (stack.length === 0) stack.push(i);
      else best = Math.max(best, i - stack[stack.length - 1]);
    }
  }
  return best;
}
`,
    wrong: code`export function longestValidParentheses(text: string): number {
  let open = 0;
  let pairs = 0;
  for (const ch of text) {
    if (ch === '(') open += 1;
    else if (open > 0) {
      open -= 1;
      pairs += 1;
    }
  }
  return pairs * 2;
}
`,
    cases: [['(()'], [')()())'], [''], ['()(()'], ['()()'], ['((()))'], ['())(())']],
    known: [[[')()())'], 4]],
  },
];

const csv: FunctionVariant[] = [
  {
    slug: 'split-simple',
    difficulty: 'easy',
    entry: 'splitFields',
    signature: 'export function splitFields(line: string): string[]',
    description:
      'Split a comma-separated line into fields, trimming spaces around each field. There are no quotes. The empty line is one empty field.',
    solution: code`export function splitFields(line: string): string[] {
  return line.split(',').map((field) => field.trim());
}
`,
    wrong: code`export function splitFields(line: string): string[] {
  return line.split(',').map((field) => field.trim()).filter((field) => field !== '');
}
`,
    cases: [['a,b,c'], [' x , y '], [''], ['a,,b'], ['one'], [',']],
  },
  {
    slug: 'quoted',
    difficulty: 'hard',
    entry: 'parseCsvLine',
    signature: 'export function parseCsvLine(line: string): string[]',
    description:
      'Split one CSV line into fields. A field may be wrapped in double quotes; inside quotes, commas are literal and "" stands for one ". Unquoted fields are taken as they are (no trimming).',
    solution: code`export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else field += ch;
  }
  fields.push(field);
  return fields;
}
`,
    wrong: code`export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) {
      fields.push(field);
      field = '';
    } else field += ch;
  }
  fields.push(field);
  return fields;
}
`,
    cases: [
      ['a,b,c'],
      ['"a,b",c'],
      ['"say ""hi""",x'],
      [''],
      ['"",""'],
      ['plain, spaced '],
      ['"multi ""quoted"", field",end'],
    ],
  },
  {
    slug: 'to-objects',
    difficulty: 'medium',
    entry: 'csvToObjects',
    signature: 'export function csvToObjects(text: string): Record<string, string>[]',
    description:
      'The first line of the text holds column names; every following non-empty line is a record. Return one object per record, mapping each column name to the field at its position ("" when the line is short). Fields are separated by commas, without quotes; lines by "\\n".',
    solution: code`export function csvToObjects(text: string): Record<string, string>[] {
  const lines = text.split('\n').filter((line) => line.length > 0);
  if (lines.length === 0) return [];
  const columns = lines[0].split(',');
  return lines.slice(1).map((line) => {
    const fields = line.split(',');
    const record: Record<string, string> = {};
    columns.forEach((column, i) => (record[column] = fields[i] ?? ''));
    return record;
  });
}
`,
    wrong: code`export function csvToObjects(text: string): Record<string, string>[] {
  const lines = text.split('\n');
  const columns = lines[0].split(',');
  return lines.slice(1).map((line) => {
    const fields = line.split(',');
    const record: Record<string, string> = {};
    columns.forEach((column, i) => (record[column] = fields[i]));
    return record;
  });
}
`,
    cases: [
      ['name,age\nAda,36\nAlan,41'],
      [''],
      ['a,b\n1'],
      ['x\n1\n\n2\n'],
      ['k,v\nkey,value,extra'],
      ['only,header'],
    ],
    javascript: true,
  },
];

const versions: FunctionVariant[] = [
  {
    slug: 'compare',
    difficulty: 'medium',
    entry: 'compareVersions',
    signature: 'export function compareVersions(a: string, b: string): -1 | 0 | 1',
    description:
      'Compare dotted version numbers part by part as integers ("1.10" > "1.9"); missing parts count as 0 ("1.0" equals "1"). Return -1, 0 or 1.',
    solution: code`export function compareVersions(a: string, b: string): -1 | 0 | 1 {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? 0;
    const y = right[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
`,
    wrong: code`export function compareVersions(a: string, b: string): -1 | 0 | 1 {
  return a === b ? 0 : a < b ? -1 : 1;
}
`,
    cases: [
      ['1.2.10', '1.2.9'],
      ['1.0', '1'],
      ['0.1', '0.2'],
      ['2', '10'],
      ['1.0.0', '1.0.1'],
      ['3.4.5', '3.4.5'],
      ['1.01', '1.1'],
    ],
  },
  {
    slug: 'sort',
    difficulty: 'medium',
    entry: 'sortVersions',
    signature: 'export function sortVersions(versions: string[]): string[]',
    description:
      'Return a new array of the dotted version numbers sorted ascending by numeric parts ("1.10" after "1.9"; missing parts count as 0; equal versions keep their order).',
    solution: code`export function sortVersions(versions: string[]): string[] {
  const compare = (a: string, b: string) => {
    const left = a.split('.').map(Number);
    const right = b.split('.').map(Number);
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const diff = (left[i] ?? 0) - (right[i] ?? 0);
      if (diff !== 0) return diff;
    }
    return 0;
  };
  return [...versions].sort(compare);
}
`,
    wrong: code`export function sortVersions(versions: string[]): string[] {
  return [...versions].sort();
}
`,
    cases: [
      [['1.10', '1.9', '1.2']],
      [[]],
      [['2.0', '2']],
      [['0.0.1', '0.1', '1']],
      [['10.0', '9.9.9', '10.0.1']],
      [['3', '1', '2']],
    ],
  },
  {
    slug: 'query-string',
    difficulty: 'medium',
    entry: 'parseQuery',
    signature: 'export function parseQuery(query: string): Record<string, string[]>',
    description:
      'Parse a URL query string (with or without the leading "?") into an object from each key to the list of its values, in order. "+" means a space and %XX escapes are decoded in keys and values; a key without "=" has the value "". Empty pieces are skipped.',
    solution: code`export function parseQuery(query: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
  for (const piece of query.replace(/^\?/, '').split('&')) {
    if (piece === '') continue;
    const at = piece.indexOf('=');
    const key = decode(at < 0 ? piece : piece.slice(0, at));
    const value = at < 0 ? '' : decode(piece.slice(at + 1));
    (out[key] ??= []).push(value);
  }
  return out;
}
`,
    wrong: code`export function parseQuery(query: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const piece of query.replace(/^\?/, '').split('&')) {
    if (piece === '') continue;
    const [key, value = ''] = piece.split('=');
    (out[key] ??= []).push(decodeURIComponent(value));
  }
  return out;
}
`,
    cases: [['?a=1&b=2&a=3'], [''], ['name=Ada+Lovelace'], ['flag&x=%2F'], ['q=a%20b&&q=c'], ['k%20ey=v+al']],
  },
];

export const PARSING_FAMILIES: readonly FunctionFamily[] = [
  { name: 'key-value', category: 'parsing', split: 'train', variants: keyValues },
  { name: 'durations', category: 'parsing', split: 'test', variants: durations },
  { name: 'expressions', category: 'parsing', split: 'train', variants: expressions },
  { name: 'brackets', category: 'parsing', split: 'train', variants: brackets },
  { name: 'csv', category: 'parsing', split: 'test', variants: csv },
  { name: 'versions', category: 'parsing', split: 'train', variants: versions },
];
