import { casesRng, generate, randomWord, WORDS, type FunctionFamily, type FunctionVariant } from './function-family';

// Sources are String.raw templates so regular-expression backslashes survive; `${…}` inserts parameters.
const code = String.raw;

function caesar(shift: number): FunctionVariant {
  const rng = casesRng('caesar-shift', `shift-${shift}`);
  return {
    slug: `shift-${shift}`,
    difficulty: 'easy',
    entry: 'shiftLetters',
    signature: 'export function shiftLetters(text: string): string',
    description: `Shift every ASCII letter ${shift} place${shift === 1 ? '' : 's'} forward in the alphabet, wrapping around from z to a (and Z to A) and keeping its case. Every other character stays as it is.`,
    solution: code`export function shiftLetters(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c >= 97 && c <= 122) out += String.fromCharCode(97 + ((c - 97 + ${shift}) % 26));
    else if (c >= 65 && c <= 90) out += String.fromCharCode(65 + ((c - 65 + ${shift}) % 26));
    else out += ch;
  }
  return out;
}
`,
    wrong: code`export function shiftLetters(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c >= 97 && c <= 122) out += String.fromCharCode(97 + ((c - 97 + ${shift}) % 26));
    else if (c >= 65 && c <= 90) out += String.fromCharCode(c + ${shift});
    else out += ch;
  }
  return out;
}
`,
    cases: [
      ['abc'],
      ['Hello, World!'],
      ['xyz XYZ'],
      [''],
      ['Zebra-42'],
      ...generate(5, () => [randomWord(rng, 3, 12, 'abcXYZ xyz!Q')]),
    ],
    javascript: shift === 13,
  };
}

const caseConversions: FunctionVariant[] = [
  {
    slug: 'camel-to-snake',
    difficulty: 'easy',
    entry: 'toSnakeCase',
    signature: 'export function toSnakeCase(name: string): string',
    description:
      'Convert a camelCase or PascalCase identifier to snake_case: insert "_" before every uppercase letter that is not the first character, then lowercase everything. Digits stay attached to what precedes them.',
    solution: code`export function toSnakeCase(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const ch = name[i];
    if (ch >= 'A' && ch <= 'Z') out += (i > 0 ? '_' : '') + ch.toLowerCase();
    else out += ch;
  }
  return out;
}
`,
    wrong: code`export function toSnakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (ch) => '_' + ch.toLowerCase());
}
`,
    cases: [['helloWorld'], ['HTTPServer'], ['simple'], ['PascalCase'], ['version2Update'], ['aB'], ['']],
  },
  {
    slug: 'snake-to-camel',
    difficulty: 'easy',
    entry: 'toCamelCase',
    signature: 'export function toCamelCase(name: string): string',
    description:
      'Convert a snake_case identifier to camelCase: drop each "_" and uppercase the letter after it. Leading underscores are dropped; repeated underscores count as one.',
    solution: code`export function toCamelCase(name: string): string {
  const parts = name.split('_').filter((part) => part.length > 0);
  return parts.map((part, i) => (i === 0 ? part : part[0].toUpperCase() + part.slice(1))).join('');
}
`,
    wrong: code`export function toCamelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_, ch) => ch.toUpperCase());
}
`,
    cases: [['hello_world'], ['already'], ['a_b_c'], ['__private_name'], ['double__underscore'], ['trailing_'], ['x']],
  },
  {
    slug: 'camel-to-kebab',
    difficulty: 'easy',
    entry: 'toKebabCase',
    signature: 'export function toKebabCase(name: string): string',
    description:
      'Convert a camelCase identifier to kebab-case: put "-" before each uppercase letter (except at the start) and lowercase everything. A run of uppercase letters (an acronym) is one word: "parseHTTPResponse" becomes "parse-http-response".',
    solution: code`export function toKebabCase(name: string): string {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [];
  return words.map((word) => word.toLowerCase()).join('-');
}
`,
    wrong: code`export function toKebabCase(name: string): string {
  const words = name.match(/[A-Z]?[a-z0-9]+|[A-Z]/g) ?? [];
  return words.map((word) => word.toLowerCase()).join('-');
}
`,
    cases: [['helloWorld'], ['parseHTTPResponse'], ['simple'], ['XMLParser'], ['getID'], ['oneTwoThree'], ['']],
  },
  {
    slug: 'title-case',
    difficulty: 'easy',
    entry: 'toTitleCase',
    signature: 'export function toTitleCase(text: string): string',
    description:
      'Capitalise the first letter of every word and lowercase the rest of it. Words are separated by single spaces; keep the spaces exactly as they are.',
    solution: code`export function toTitleCase(text: string): string {
  return text
    .split(' ')
    .map((word) => (word.length === 0 ? word : word[0].toUpperCase() + word.slice(1).toLowerCase()))
    .join(' ');
}
`,
    wrong: code`export function toTitleCase(text: string): string {
  return text
    .split(' ')
    .map((word) => (word.length === 0 ? word : word[0].toUpperCase() + word.slice(1)))
    .join(' ');
}
`,
    cases: [['hello world'], ['THE quick BROWN fox'], ['a'], ['  two  spaces '], [''], ['x-ray vision']],
    javascript: true,
  },
  {
    slug: 'kebab-to-pascal',
    difficulty: 'medium',
    entry: 'toPascalCase',
    signature: 'export function toPascalCase(name: string): string',
    description:
      'Convert a kebab-case or snake_case name (or a mix: "-" and "_" both separate words) to PascalCase. Each word is capitalised, the rest of it lowercased; empty words are skipped.',
    solution: code`export function toPascalCase(name: string): string {
  return name
    .split(/[-_]+/)
    .filter((word) => word.length > 0)
    .map((word) => word[0].toUpperCase() + word.slice(1).toLowerCase())
    .join('');
}
`,
    wrong: code`export function toPascalCase(name: string): string {
  return name
    .split('-')
    .filter((word) => word.length > 0)
    .map((word) => word[0].toUpperCase() + word.slice(1).toLowerCase())
    .join('');
}
`,
    cases: [['user-profile'], ['api_KEY-value'], ['single'], ['--lead-trail--'], ['MIXED_case-Words'], ['a_b']],
  },
];

function counter(
  slug: string,
  entry: string,
  description: string,
  test: string,
  wrongTest: string,
  difficulty: 'easy' | 'medium' = 'easy',
): FunctionVariant {
  const rng = casesRng('count-chars', slug);
  return {
    slug,
    difficulty,
    entry,
    signature: `export function ${entry}(text: string): number`,
    description,
    solution: code`export function ${entry}(text: string): number {
  let count = 0;
  for (const ch of text) if (${test}) count += 1;
  return count;
}
`,
    wrong: code`export function ${entry}(text: string): number {
  let count = 0;
  for (const ch of text) if (${wrongTest}) count += 1;
  return count;
}
`,
    cases: [
      ['Hello World'],
      ['AEIOU aeiou 12345'],
      [''],
      ['rhythm'],
      ['Quiz #7: 42 Apples!'],
      ['Room 101, ZONE 0'],
      ...generate(4, () => [randomWord(rng, 5, 20, 'aAbBeE19 zZuU!')]),
    ],
  };
}

const counters: FunctionVariant[] = [
  counter(
    'vowels',
    'countVowels',
    'Count the vowels (a, e, i, o, u), upper- or lowercase.',
    "'aeiouAEIOU'.includes(ch)",
    "'aeiou'.includes(ch)",
  ),
  counter('digits', 'countDigits', 'Count the decimal digits 0-9.', "ch >= '0' && ch <= '9'", "ch > '0' && ch <= '9'"),
  counter(
    'uppercase',
    'countUppercase',
    'Count the uppercase ASCII letters A-Z.',
    "ch >= 'A' && ch <= 'Z'",
    "ch >= 'A' && ch < 'Z'",
  ),
  counter(
    'consonants',
    'countConsonants',
    'Count the ASCII letters that are not vowels (a, e, i, o, u in either case); "y" is a consonant.',
    "/[a-z]/i.test(ch) && !'aeiouAEIOU'.includes(ch)",
    "/[a-z]/.test(ch) && !'aeiou'.includes(ch)",
  ),
  {
    slug: 'distinct-letters',
    difficulty: 'easy',
    entry: 'countDistinctLetters',
    signature: 'export function countDistinctLetters(text: string): number',
    description: 'Count how many different ASCII letters occur, ignoring case ("Aa" has one).',
    solution: code`export function countDistinctLetters(text: string): number {
  const seen = new Set<string>();
  for (const ch of text.toLowerCase()) if (ch >= 'a' && ch <= 'z') seen.add(ch);
  return seen.size;
}
`,
    wrong: code`export function countDistinctLetters(text: string): number {
  const seen = new Set<string>();
  for (const ch of text) if (/[a-z]/i.test(ch)) seen.add(ch);
  return seen.size;
}
`,
    cases: [['Hello'], ['AaBbCc'], [''], ['12 34'], ['The quick brown fox jumps over the lazy dog'], ['Mississippi']],
  },
];

const palindromes: FunctionVariant[] = [
  {
    slug: 'is-palindrome',
    difficulty: 'easy',
    entry: 'isPalindrome',
    signature: 'export function isPalindrome(text: string): boolean',
    description:
      'Is the text a palindrome when only letters and digits count and case is ignored? (The empty text is.)',
    solution: code`export function isPalindrome(text: string): boolean {
  const clean = text.toLowerCase().replace(/[^a-z0-9]/g, '');
  return clean === clean.split('').reverse().join('');
}
`,
    wrong: code`export function isPalindrome(text: string): boolean {
  const clean = text.toLowerCase().replace(/[^a-z]/g, '');
  return clean === clean.split('').reverse().join('');
}
`,
    cases: [
      ['A man, a plan, a canal: Panama'],
      ['race a car'],
      [''],
      ['No lemon, no melon'],
      ['12321'],
      ['1a2'],
      ['ab'],
      ['Was it a car or a cat I saw?'],
    ],
  },
  {
    slug: 'can-form-palindrome',
    difficulty: 'medium',
    entry: 'canFormPalindrome',
    signature: 'export function canFormPalindrome(text: string): boolean',
    description: 'Can the characters of the text (all of them, case-sensitive) be rearranged into a palindrome?',
    solution: code`export function canFormPalindrome(text: string): boolean {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let odd = 0;
  for (const count of counts.values()) if (count % 2 === 1) odd += 1;
  return odd <= 1;
}
`,
    wrong: code`export function canFormPalindrome(text: string): boolean {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let odd = 0;
  for (const count of counts.values()) if (count % 2 === 1) odd += 1;
  return odd === 0;
}
`,
    cases: [['carrace'], ['abc'], [''], ['aabbccd'], ['aabbccdd'], ['Aa'], ['aaa'], ['abcabcx'], ['abab']],
  },
  {
    slug: 'longest-palindrome',
    difficulty: 'hard',
    entry: 'longestPalindrome',
    signature: 'export function longestPalindrome(text: string): string',
    description:
      'Return the longest substring that is a palindrome (case-sensitive, every character counts). If several have the greatest length, return the one that starts first. The empty text gives "".',
    solution: code`export function longestPalindrome(text: string): string {
  let best = '';
  for (let center = 0; center < text.length; center++) {
    for (const [lo0, hi0] of [[center, center], [center, center + 1]]) {
      let lo = lo0;
      let hi = hi0;
      while (lo >= 0 && hi < text.length && text[lo] === text[hi]) {
        lo -= 1;
        hi += 1;
      }
      const candidate = text.slice(lo + 1, hi);
      if (candidate.length > best.length || (candidate.length === best.length && lo + 1 < text.indexOf(best))) best = candidate;
    }
  }
  return best;
}
`,
    wrong: code`export function longestPalindrome(text: string): string {
  let best = '';
  for (let center = 0; center < text.length; center++) {
    let lo = center;
    let hi = center;
    while (lo >= 0 && hi < text.length && text[lo] === text[hi]) {
      lo -= 1;
      hi += 1;
    }
    const candidate = text.slice(lo + 1, hi);
    if (candidate.length > best.length) best = candidate;
  }
  return best;
}
`,
    cases: [['babad'], ['cbbd'], [''], ['a'], ['forgeeksskeegfor'], ['abacdfgdcaba'], ['abcd'], ['aaaa']],
    known: [
      [['babad'], 'bab'],
      [['cbbd'], 'bb'],
    ],
  },
  {
    slug: 'count-palindromic-substrings',
    difficulty: 'hard',
    entry: 'countPalindromicSubstrings',
    signature: 'export function countPalindromicSubstrings(text: string): number',
    description:
      'Count the substrings that are palindromes, counting each start/end position pair separately ("aaa" has 6: three "a", two "aa", one "aaa").',
    solution: code`export function countPalindromicSubstrings(text: string): number {
  let count = 0;
  for (let center = 0; center < 2 * text.length - 1; center++) {
    let lo = Math.floor(center / 2);
    let hi = lo + (center % 2);
    while (lo >= 0 && hi < text.length && text[lo] === text[hi]) {
      count += 1;
      lo -= 1;
      hi += 1;
    }
  }
  return count;
}
`,
    wrong: code`export function countPalindromicSubstrings(text: string): number {
  let count = 0;
  for (let center = 0; center < text.length; center++) {
    let lo = center;
    let hi = center;
    while (lo >= 0 && hi < text.length && text[lo] === text[hi]) {
      count += 1;
      lo -= 1;
      hi += 1;
    }
  }
  return count;
}
`,
    cases: [['aaa'], ['abc'], [''], ['abba'], ['racecar'], ['aabbaa']],
    known: [[['aaa'], 6]],
    javascript: true,
  },
];

const runLength: FunctionVariant[] = [
  {
    slug: 'encode-counts-after',
    difficulty: 'easy',
    entry: 'encodeRuns',
    signature: 'export function encodeRuns(text: string): string',
    description:
      'Run-length encode the text: each run of the same character becomes the character followed by the run length ("aaab" → "a3b1").',
    solution: code`export function encodeRuns(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (j < text.length && text[j] === text[i]) j += 1;
    out += text[i] + String(j - i);
    i = j;
  }
  return out;
}
`,
    wrong: code`export function encodeRuns(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (j < text.length && text[j] === text[i]) j += 1;
    out += text[i] + String(Math.min(j - i, 9));
    i = j;
  }
  return out;
}
`,
    cases: [['aaab'], ['abc'], [''], ['zzzzzzzzzzzz'], ['aabbaa'], ['  x']],
  },
  {
    slug: 'encode-compact',
    difficulty: 'medium',
    entry: 'compress',
    signature: 'export function compress(text: string): string',
    description:
      'Compress runs: a run of 2 or more equal characters becomes the character followed by the count; a single character stays as it is ("aaabcc" → "a3bc2").',
    solution: code`export function compress(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (j < text.length && text[j] === text[i]) j += 1;
    out += j - i > 1 ? text[i] + String(j - i) : text[i];
    i = j;
  }
  return out;
}
`,
    wrong: code`export function compress(text: string): string {
  let out = '';
  let count = 1;
  for (let i = 1; i < text.length; i++) {
    if (text[i] === text[i - 1]) count += 1;
    else {
      out += count > 1 ? text[i - 1] + String(count) : text[i - 1];
      count = 1;
    }
  }
  return out;
}
`,
    cases: [['aaabcc'], ['abc'], [''], ['a'], ['bbbbbbbbbbbb'], ['abccba']],
  },
  {
    slug: 'decode-counts-after',
    difficulty: 'medium',
    entry: 'decodeRuns',
    signature: 'export function decodeRuns(encoded: string): string',
    description:
      'Decode run-length text where each character is followed by its count, which may have several digits ("a3b12" → "aaa" + twelve "b"). The characters are never digits.',
    solution: code`export function decodeRuns(encoded: string): string {
  let out = '';
  const pattern = /(\D)(\d+)/g;
  let match;
  while ((match = pattern.exec(encoded)) !== null) out += match[1].repeat(Number(match[2]));
  return out;
}
`,
    wrong: code`export function decodeRuns(encoded: string): string {
  let out = '';
  for (let i = 0; i + 1 < encoded.length; i += 2) out += encoded[i].repeat(Number(encoded[i + 1]));
  return out;
}
`,
    cases: [['a3b1'], ['x12'], [''], ['a1b2c3'], ['z10y1'], ['-2+3']],
  },
  {
    slug: 'decode-counts-before',
    difficulty: 'medium',
    entry: 'expandRuns',
    signature: 'export function expandRuns(encoded: string): string',
    description:
      'Expand text where an optional count comes before a character ("3a2bc" → "aaabbc"); a character with no count appears once. Counts may have several digits.',
    solution: code`export function expandRuns(encoded: string): string {
  let out = '';
  const pattern = /(\d*)(\D)/g;
  let match;
  while ((match = pattern.exec(encoded)) !== null) out += match[2].repeat(match[1] === '' ? 1 : Number(match[1]));
  return out;
}
`,
    wrong: code`export function expandRuns(encoded: string): string {
  let out = '';
  const pattern = /(\d?)(\D)/g;
  let match;
  while ((match = pattern.exec(encoded)) !== null) out += match[2].repeat(match[1] === '' ? 1 : Number(match[1]));
  return out;
}
`,
    cases: [['3a2bc'], ['abc'], [''], ['12x'], ['2a10b1c'], ['x3y']],
    javascript: true,
  },
];

function splitWords(rng: ReturnType<typeof casesRng>, count: number): string {
  return Array.from({ length: count }, () =>
    rng.bool(0.2) ? rng.pick(WORDS).toUpperCase() : rng.pick(WORDS.slice(0, 6)),
  ).join(rng.pick([' ', ', ', '. ', ' - ']));
}

function wordStats(): FunctionVariant[] {
  const rng = casesRng('word-stats', 'shared');
  const texts = [
    ['the cat and the hat'],
    ['Apple apple BANANA banana cherry'],
    [''],
    ['one'],
    ['Zeta alpha zeta ALPHA beta'],
    ...generate(4, () => [splitWords(rng, rng.int(3, 12))]),
  ];
  const words = code`function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z]+/).filter((word) => word.length > 0);
}
`;
  return [
    {
      slug: 'most-frequent',
      difficulty: 'medium',
      entry: 'mostFrequentWord',
      signature: 'export function mostFrequentWord(text: string): string | null',
      description:
        'Words are maximal runs of ASCII letters, compared lowercased. Return the most frequent word (lowercased); on a tie the alphabetically first; null when there is no word.',
      solution: `${words}
export function mostFrequentWord(text: string): string | null {
  const counts = new Map<string, number>();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  let best: string | null = null;
  for (const [word, count] of counts) {
    const bestCount = best === null ? 0 : (counts.get(best) as number);
    if (count > bestCount || (count === bestCount && best !== null && word < best)) best = word;
  }
  return best;
}
`,
      wrong: `${words}
export function mostFrequentWord(text: string): string | null {
  const counts = new Map<string, number>();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  let best: string | null = null;
  for (const [word, count] of counts) if (best === null || count > (counts.get(best) as number)) best = word;
  return best;
}
`,
      cases: texts,
    },
    ...[2, 3].map((k): FunctionVariant => ({
      slug: `top-${k}`,
      difficulty: 'medium',
      entry: 'topWords',
      signature: 'export function topWords(text: string): string[]',
      description: `Words are maximal runs of ASCII letters, compared lowercased. Return the ${k} most frequent words (lowercased), most frequent first, ties in alphabetical order; fewer if there are fewer distinct words.`,
      solution: `${words}
export function topWords(text: string): string[] {
  const counts = new Map<string, number>();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, ${k})
    .map(([word]) => word);
}
`,
      wrong: `${words}
export function topWords(text: string): string[] {
  const counts = new Map<string, number>();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, ${k})
    .map(([word]) => word);
}
`,
      cases: texts,
    })),
    {
      slug: 'longest-word',
      difficulty: 'easy',
      entry: 'longestWord',
      signature: 'export function longestWord(text: string): string',
      description:
        'Return the longest maximal run of ASCII letters, as written (not lowercased). On a tie the first one; "" when there is none.',
      solution: code`export function longestWord(text: string): string {
  let best = '';
  for (const word of text.split(/[^A-Za-z]+/)) if (word.length > best.length) best = word;
  return best;
}
`,
      wrong: code`export function longestWord(text: string): string {
  let best = '';
  for (const word of text.split(' ')) if (word.length >= best.length) best = word;
  return best;
}
`,
      cases: texts,
      javascript: true,
    },
    {
      slug: 'word-lengths',
      difficulty: 'easy',
      entry: 'wordLengths',
      signature: 'export function wordLengths(text: string): number[]',
      description:
        'Return the lengths of the words in order, where words are the pieces between runs of spaces (leading and trailing spaces make no words).',
      solution: code`export function wordLengths(text: string): number[] {
  return text.split(' ').filter((word) => word.length > 0).map((word) => word.length);
}
`,
      wrong: code`export function wordLengths(text: string): number[] {
  return text.trim().split(' ').map((word) => word.length);
}
`,
      cases: [['the cat sat'], ['  spaced   out  '], [''], ['one'], ['a bb ccc dddd'], ['x  y']],
    },
  ];
}

const anagrams: FunctionVariant[] = [
  {
    slug: 'is-anagram',
    difficulty: 'easy',
    entry: 'isAnagram',
    signature: 'export function isAnagram(a: string, b: string): boolean',
    description: 'Are the two texts anagrams of each other, ignoring spaces and case?',
    solution: code`export function isAnagram(a: string, b: string): boolean {
  const key = (text: string) => text.toLowerCase().replace(/ /g, '').split('').sort().join('');
  return key(a) === key(b);
}
`,
    wrong: code`export function isAnagram(a: string, b: string): boolean {
  const key = (text: string) => text.replace(/ /g, '').split('').sort().join('');
  return key(a) === key(b);
}
`,
    cases: [
      ['listen', 'silent'],
      ['Dormitory', 'dirty room'],
      ['abc', 'abd'],
      ['', ''],
      ['aab', 'abb'],
      ['Astronomer', 'Moon starer'],
    ],
  },
  {
    slug: 'group-anagrams',
    difficulty: 'medium',
    entry: 'groupAnagrams',
    signature: 'export function groupAnagrams(words: string[]): string[][]',
    description:
      'Group words that are anagrams of each other (case-sensitive). Sort the words inside each group alphabetically, and the groups by their first word. Duplicates stay.',
    solution: code`export function groupAnagrams(words: string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const word of words) {
    const key = word.split('').sort().join('');
    const group = groups.get(key) ?? [];
    group.push(word);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => group.sort()).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
`,
    wrong: code`export function groupAnagrams(words: string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const word of words) {
    const key = word.split('').sort().join('');
    const group = groups.get(key) ?? [];
    group.push(word);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => group.sort());
}
`,
    cases: [
      [['eat', 'tea', 'tan', 'ate', 'nat', 'bat']],
      [[]],
      [['a']],
      [['ab', 'ba', 'ab']],
      [['zz', 'abc', 'cab', 'bca', 'x']],
      [['pots', 'stop', 'tops', 'opts', 'post', 'spot', 'apple']],
    ],
  },
  {
    slug: 'anagram-indices',
    difficulty: 'hard',
    entry: 'findAnagrams',
    signature: 'export function findAnagrams(text: string, pattern: string): number[]',
    description:
      'Return, in increasing order, every start index i such that text.slice(i, i + pattern.length) is an anagram of pattern (case-sensitive). An empty pattern matches nowhere.',
    solution: code`export function findAnagrams(text: string, pattern: string): number[] {
  const out: number[] = [];
  if (pattern.length === 0 || pattern.length > text.length) return out;
  const key = pattern.split('').sort().join('');
  for (let i = 0; i + pattern.length <= text.length; i++) {
    if (text.slice(i, i + pattern.length).split('').sort().join('') === key) out.push(i);
  }
  return out;
}
`,
    wrong: code`export function findAnagrams(text: string, pattern: string): number[] {
  const out: number[] = [];
  if (pattern.length === 0) return out;
  const key = pattern.split('').sort().join('');
  for (let i = 0; i + pattern.length < text.length; i++) {
    if (text.slice(i, i + pattern.length).split('').sort().join('') === key) out.push(i);
  }
  return out;
}
`,
    cases: [
      ['cbaebabacd', 'abc'],
      ['abab', 'ab'],
      ['', 'a'],
      ['abc', ''],
      ['aaaa', 'aa'],
      ['xyz', 'zyx'],
    ],
    known: [
      [
        ['cbaebabacd', 'abc'],
        [0, 6],
      ],
    ],
  },
];

const cleanups: FunctionVariant[] = [
  {
    slug: 'collapse-spaces',
    difficulty: 'easy',
    entry: 'collapseSpaces',
    signature: 'export function collapseSpaces(text: string): string',
    description: 'Trim the text and replace every run of whitespace (spaces, tabs, newlines) inside it with one space.',
    solution: code`export function collapseSpaces(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}
`,
    wrong: code`export function collapseSpaces(text: string): string {
  return text.trim().replace(/ +/g, ' ');
}
`,
    cases: [['  hello    world  '], ['a\tb\n\nc'], [''], ['   '], ['single'], ['x \t y']],
  },
  {
    slug: 'remove-vowels',
    difficulty: 'easy',
    entry: 'removeVowels',
    signature: 'export function removeVowels(text: string): string',
    description: 'Remove every vowel (a, e, i, o, u, in either case); keep everything else.',
    solution: code`export function removeVowels(text: string): string {
  return text.replace(/[aeiou]/gi, '');
}
`,
    wrong: code`export function removeVowels(text: string): string {
  return text.replace(/[aeiou]/g, '');
}
`,
    cases: [['Hello World'], ['AEIOUxyz'], [''], ['rhythm'], ['Programming Is Fun'], ['Queue']],
  },
  {
    slug: 'dedupe-chars',
    difficulty: 'easy',
    entry: 'removeDuplicateChars',
    signature: 'export function removeDuplicateChars(text: string): string',
    description: 'Keep only the first occurrence of every character (case-sensitive), in order.',
    solution: code`export function removeDuplicateChars(text: string): string {
  const seen = new Set<string>();
  let out = '';
  for (const ch of text) {
    if (!seen.has(ch)) {
      seen.add(ch);
      out += ch;
    }
  }
  return out;
}
`,
    wrong: code`export function removeDuplicateChars(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) if (text[i] !== text[i - 1]) out += text[i];
  return out;
}
`,
    cases: [['banana'], ['aabbcc'], [''], ['abcabc'], ['Aa Aa'], ['mississippi']],
  },
  {
    slug: 'reverse-each-word',
    difficulty: 'easy',
    entry: 'reverseEachWord',
    signature: 'export function reverseEachWord(text: string): string',
    description:
      'Reverse the letters of each word but keep the words in place; words are separated by single spaces, which stay as they are.',
    solution: code`export function reverseEachWord(text: string): string {
  return text
    .split(' ')
    .map((word) => word.split('').reverse().join(''))
    .join(' ');
}
`,
    wrong: code`export function reverseEachWord(text: string): string {
  return text.split('').reverse().join('');
}
`,
    cases: [['hello world'], ['abc'], [''], ['a b c'], ['  two  '], ['racecar level']],
    javascript: true,
  },
  {
    slug: 'capitalize-sentences',
    difficulty: 'medium',
    entry: 'capitalizeSentences',
    signature: 'export function capitalizeSentences(text: string): string',
    description:
      'Uppercase the first letter of the text and the first letter after each ".", "!" or "?" (skipping any spaces in between). Nothing else changes.',
    solution: code`export function capitalizeSentences(text: string): string {
  let out = '';
  let start = true;
  for (const ch of text) {
    if (start && /[a-z]/i.test(ch)) {
      out += ch.toUpperCase();
      start = false;
    } else {
      out += ch;
      if (ch === '.' || ch === '!' || ch === '?') start = true;
      else if (ch !== ' ') start = false;
    }
  }
  return out;
}
`,
    wrong: code`export function capitalizeSentences(text: string): string {
  return text.replace(/(^|[.!?] )([a-z])/g, (_, lead, ch) => lead + ch.toUpperCase());
}
`,
    cases: [['hello. how are you? fine!'], ['already Good.'], [''], ['one.two'], ['wait...   what'], ['1. item']],
  },
];

export const STRING_FAMILIES: readonly FunctionFamily[] = [
  { name: 'caesar-shift', category: 'strings', split: 'train', variants: [1, 3, 5, 13, 25].map(caesar) },
  { name: 'case-conversion', category: 'strings', split: 'train', variants: caseConversions },
  { name: 'count-chars', category: 'strings', split: 'test', variants: counters },
  { name: 'palindromes', category: 'strings', split: 'train', variants: palindromes },
  { name: 'run-length', category: 'strings', split: 'test', variants: runLength },
  { name: 'word-stats', category: 'strings', split: 'train', variants: wordStats() },
  { name: 'anagrams', category: 'strings', split: 'train', variants: anagrams },
  { name: 'string-cleanup', category: 'strings', split: 'train', variants: cleanups },
];
