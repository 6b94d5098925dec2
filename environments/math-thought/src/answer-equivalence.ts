import Fraction from 'fraction.js';
import type { AnswerKind } from './problem';
import type { Exact } from './exact-number';

/**
 * The final-answer marker: a line of a factor that starts with `Answer:` or `Final answer:` (any case), also in
 * the markdown models dress it in (`**Answer:** 42`, `### Final Answer: 42`, `- Answer: 42`). Those were read as
 * an ordinary thought, and the episode ran on to the turn limit with the −λ_f of a missing answer.
 */
export const ANSWER_LINE =
  /^[ \t]*(?:[#>*_-][ \t#>*_-]*)?(?:final[ \t]+)?answer(?:[ \t]*(?:\*\*|__))?[ \t]*[:\uff1a](.*)$/im;

/** Unicode vulgar fractions (`½`, `1¾`), as the ASCII fraction that follows a space. */
const VULGAR_FRACTIONS: Readonly<Record<string, string>> = {
  '\u00bd': '1/2',
  '\u2153': '1/3',
  '\u2154': '2/3',
  '\u00bc': '1/4',
  '\u00be': '3/4',
  '\u2155': '1/5',
  '\u2156': '2/5',
  '\u2157': '3/5',
  '\u2158': '4/5',
  '\u2159': '1/6',
  '\u215a': '5/6',
  '\u215b': '1/8',
  '\u215c': '3/8',
  '\u215d': '5/8',
  '\u215e': '7/8',
};
const VULGAR_FRACTION = new RegExp(`[${Object.keys(VULGAR_FRACTIONS).join('')}]`, 'g');

/**
 * The LaTeX a math model writes for a number, as plain text: `\frac{1}{2}` (and `\dfrac`, `\tfrac`, `\frac12`),
 * `\%`, `\$`, `\text{…}`, `1{,}000` and thin spaces. A fraction gets a space before it, so that `1\frac{1}{2}`
 * reads as the mixed number 1 1/2, never as 11/2.
 */
function fromLatex(text: string): string {
  return (
    text
      .replace(
        /\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g,
        (_, numerator: string, denominator: string) => ` ${numerator.trim()}/${denominator.trim()}`,
      )
      .replace(/\\[dt]?frac\s*(\d)\s*(\d)/g, ' $1/$2')
      .replace(
        /\\(?:text|textrm|textbf|mathrm|mathbf|boldsymbol|mbox)\s*\{([^{}]*)\}/g,
        (_, words: string) => ` ${words} `,
      )
      // Degrees (`90^\circ`, `90^{\circ}`) as the sign, and a unit's power (`m^2`, `\text{cm}^{2}`) as `²`/`³`.
      .replace(/\^\s*\{?\s*\\circ\s*\}?/g, '\u00b0')
      // Only after `m` or a unit of two letters or more: `5x^2` and `1e^2` stay malformed.
      .replace(
        /(?<![a-z])(m|[a-z]{2,})\s*\^\s*\{?\s*([23])\s*\}?/gi,
        (_, unit: string, power: string) => `${unit}${power === '2' ? '\u00b2' : '\u00b3'}`,
      )
      .replace(/\{,\}/g, ',')
      .replace(/(\d)(?:\\[,!;:]|[\u00a0\u2009\u202f])(?=\d{3}(?!\d))/g, '$1,')
      .replace(/\\([%$])/g, '$1')
      .replace(/\\(?:left|right)\b|\\[,!;: ]/g, ' ')
      .replace(VULGAR_FRACTION, (fraction) => ` ${VULGAR_FRACTIONS[fraction] as string}`)
  );
}

/**
 * Removes what wraps an answer (`**…**`, `\boxed{…}`, `$…$`, `\(…\)`, `\[…\]`, `` `…` ``, a final period) until none
 * is left.
 */
function unwrapped(text: string): string {
  for (let previous = ''; previous !== text;) {
    previous = text;
    text = text
      .replace(/^[*_]+\s*|\s*[*_]+$/g, '')
      .replace(/^\\boxed\s*\{(.*)\}$/, '$1')
      .replace(/^\$(.*)\$$/, '$1')
      .replace(/^\\\((.*)\\\)$/, '$1')
      .replace(/^\\\[(.*)\\\]$/, '$1')
      .replace(/^`(.*)`$/, '$1')
      .replace(/\.$/, '')
      .trim();
  }
  return text;
}

/*
 * Digits of other scripts, as ASCII: Arabic-Indic (`٤٢`, with `٫`, `٬` and `٪` as its decimal, thousands and percent
 * signs), Persian, Devanagari and full-width (`４２`, `－５`, `５０％`), which models answering in or about those
 * languages write. They were malformed: −λ_f for a correct answer.
 */
const DIGIT_ZEROS = [0x0660, 0x06f0, 0x0966, 0xff10];
const FOREIGN_NUMERALS =
  /[\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19\u066a-\u066c\uff04\uff05\uff0b-\uff0f]/g;
function asciiNumerals(text: string): string {
  return text.replace(FOREIGN_NUMERALS, (char) => {
    const code = char.charCodeAt(0);
    // Arabic's own percent sign (`٥٠٪`), decimal and thousands marks.
    if (code === 0x066a) return '%';
    if (code === 0x066b) return '.';
    if (code === 0x066c) return ',';
    const zero = DIGIT_ZEROS.find((start) => code >= start && code <= start + 9);
    // The rest are full-width `$ % + , - . /`, 0xfee0 above their ASCII forms.
    return zero === undefined ? String.fromCharCode(code - 0xfee0) : String(code - zero);
  });
}

/** A parsed final answer. */
export interface ParsedAnswer {
  readonly value: Exact;
  /** Written with a `%` sign. */
  readonly percentSign: boolean;
  /** Digits after the decimal point when written as a decimal, else undefined. */
  readonly decimalPlaces: number | undefined;
}

export type AnswerParse =
  { readonly ok: true; readonly answer: ParsedAnswer } | { readonly ok: false; readonly feedback: string };

/** The longest answer read (after `Answer:`, and a task file's `#### <number>`): one number is never longer. */
export const MAX_ANSWER_CHARS = 100;
// One number: a mixed number (1 1/2), a fraction (3/4), or an integer/decimal with optional thousands
// separators (1,234.5, .5). Thousands groups must be exactly three digits, so "1,5" is not a number.
// Unit words after it may hold a slash or a square (`km/h`, `m²`), never a digit: `3 or 4` stays malformed.
const NUMBER = String.raw`(\d+\s+\d+\s*/\s*\d+|\d+\s*/\s*\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)`;
// Scientific notation after a decimal: `1e3`, `2.5E-2`, `1.5 × 10^3`, `1.5 \times 10^{3}` (the LaTeX is plain
// text by then). At most three exponent digits, so `1e999…9` cannot ask for a number with a billion digits.
const EXPONENT = String.raw`e([-+]?\d{1,3})|\s*(?:[x\u00d7*\u00b7]|\\times|\\cdot)\s*10\s*\^\s*\{?\s*([-+]?\d{1,3})\s*\}?`;
// A currency sign before or after the number: `$12`, `€12`, `12 €`, `£12`, `¥12`, `₹12` (only `$` was read, so
// `€12` was malformed). `per cent` is `percent` (it was read as a unit, so `50 per cent` was 50, not 1/2).
const CURRENCY = String.raw`[$\u20ac\u00a3\u00a5\u20b9]`;
const ANSWER_VALUE = new RegExp(
  String.raw`^(?:[a-z]\s*=\s*)?([-+])?\s*${CURRENCY}?\s*([-+])?\s*${NUMBER}(?:${EXPONENT})?\s*(%|per\s?cent\b)?\s*${CURRENCY}?(?:\s*\u00b0)?\s*(?:[a-z][a-z\s'./\u00b2\u00b3-]*)?$`,
  'i',
);

/**
 * Reads the text after `Answer:`. Accepted: `42`, `-3`, `1,234`, `0.5`, `.5`, `3/4`, `1 1/2`, `50%`,
 * `50 percent`, `50 per cent`, `$12.50`, `€12`, `12 €`, `1e3`, `1.5 × 10^3`, with an optional `x =` in front,
 * optional unit words after (`12 apples`), `\boxed{…}`, `**…**`, `$…$`, `\(…\)`, `\[…\]`, a final period, LaTeX numbers (`\frac{1}{2}`, `50\%`) and
 * `½`. Anything else (words, two numbers, an expression) is malformed.
 */
export function parseAnswer(raw: string): AnswerParse {
  let text = raw.trim();
  if (text.length === 0) return { ok: false, feedback: 'The answer is empty: write a number after "Answer:".' };
  if (text.length > MAX_ANSWER_CHARS)
    return { ok: false, feedback: `The answer is longer than ${MAX_ANSWER_CHARS} characters: write one number.` };
  text = unwrapped(
    fromLatex(unwrapped(asciiNumerals(text)))
      .replace(/[\u2212\u2013]/g, '-')
      .trim(),
  );
  const match = ANSWER_VALUE.exec(text);
  if (!match)
    return {
      ok: false,
      feedback: `Could not read "${raw.trim()}" as one number; write e.g. "Answer: 42", "Answer: 3/4" or "Answer: 12.5%".`,
    };
  // `--5` (or `-$-5`) was read as -5; a human reads it as 5 or as a typo, so it is not one number.
  if (match[1] === '-' && match[2] === '-')
    return { ok: false, feedback: `"${raw.trim()}" has two minus signs: write one number.` };
  const negative = match[1] === '-' || match[2] === '-';
  const number = (match[3] as string).replace(/,/g, '');
  const written = match[4] ?? match[5];
  const exponent = written === undefined ? 0 : Number(written);
  let value: Exact;
  let decimalPlaces: number | undefined;
  const mixed = /^(\d+)\s+(\d+)\s*\/\s*(\d+)$/.exec(number);
  const fraction = /^(\d+)\s*\/\s*(\d+)$/.exec(number);
  if ((mixed || fraction) && written !== undefined)
    return { ok: false, feedback: `"${raw.trim()}" puts an exponent on a fraction: write one number.` };
  if (mixed || fraction) {
    const [whole, numerator, denominator] = mixed
      ? [mixed[1], mixed[2], mixed[3]]
      : ['0', fraction?.[1], fraction?.[2]];
    if (BigInt(denominator as string) === 0n) return { ok: false, feedback: `"${raw.trim()}" has a zero denominator.` };
    value = new Fraction(BigInt(numerator as string), BigInt(denominator as string)).add(BigInt(whole as string));
  } else {
    const [integer, decimals = ''] = number.split('.');
    // `3.33e-1` is written to three decimal places of the value, `1.5e3` to none.
    const places = decimals.length - exponent;
    decimalPlaces = number.includes('.') || places > 0 ? Math.max(places, 0) : undefined;
    const digits = BigInt(`${integer || '0'}${decimals}`);
    value =
      places >= 0 ? new Fraction(digits, 10n ** BigInt(places)) : new Fraction(digits * 10n ** BigInt(-places), 1n);
  }
  return {
    ok: true,
    answer: { value: negative ? value.neg() : value, percentSign: match[6] !== undefined, decimalPlaces },
  };
}

/** True when `candidate`, written with `places` decimals, is `gold` rounded (half away from zero) or truncated. */
function matchesDecimal(candidate: Exact, gold: Exact, places: number | undefined): boolean {
  if (candidate.equals(gold)) return true;
  // A rounded decimal stands for a value with no finite decimal expansion (2/3 as 0.67 or 0.666), never
  // for one that has one (0.125 must be written exactly), and only with at least two decimals.
  if (places === undefined || places < 2 || isTerminatingValue(gold)) return false;
  const truncated = gold.s < 0n ? gold.ceil(places) : gold.floor(places);
  return candidate.equals(gold.round(places)) || candidate.equals(truncated);
}

function isTerminatingValue(value: Exact): boolean {
  let d = value.d;
  while (d % 2n === 0n) d /= 2n;
  while (d % 5n === 0n) d /= 5n;
  return d === 1n;
}

/**
 * Numeric equivalence of a parsed answer with the exact gold answer (see README, "Rewards"):
 * - `number` problems: values are compared exactly, so `0.5`, `1/2` and `50%` (read as 50/100) all equal 1/2;
 * - `percent` problems (the gold is in percent): `25%` and `25` mean 25 %, and a bare `0.25` or `1/4` is
 *   also read as the ratio 25 %;
 * - a decimal with two or more places also matches a gold answer with no finite decimal expansion when it
 *   is that answer rounded or truncated to those places (`0.33` or `0.333` for 1/3).
 */
export function isEquivalent(answer: ParsedAnswer, gold: Exact, kind: AnswerKind): boolean {
  const places = answer.decimalPlaces;
  if (kind === 'number') {
    const value = answer.percentSign ? answer.value.div(100) : answer.value;
    return matchesDecimal(value, gold, answer.percentSign && places !== undefined ? places + 2 : places);
  }
  if (matchesDecimal(answer.value, gold, places)) return true;
  return (
    !answer.percentSign && matchesDecimal(answer.value.mul(100), gold, places === undefined ? undefined : places - 2)
  );
}
