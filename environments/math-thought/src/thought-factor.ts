import { ANSWER_LINE } from './answer-equivalence';

/** The abstract kind of a factor; `fingerprint()` adds the operator for CALC and CLAIM. */
export type FactorKind = 'EMPTY' | 'ANSWER' | 'CALC' | 'CLAIM' | 'NOTE';

/** What the env reads from one action. */
export interface FactorReading {
  /** The factor as read: the text up to the first blank line, truncated to `maxFactorChars`. */
  readonly factor: string;
  readonly kind: FactorKind;
  /** The text after `Answer:` (ANSWER only). */
  readonly answerText?: string;
  /** Contents of the `<calc>` tags (CALC only). */
  readonly calcExpressions: readonly string[];
  /** Notes for the agent (truncation, ignored text, unavailable calculator, unclosed tag). */
  readonly notes: readonly string[];
  /** `EMPTY`, `ANSWER`, `CALC(mul)`, `CLAIM(add)`, `CLAIM`, `NOTE`. */
  readonly fingerprint: string;
}

/** Calculator calls read from one factor; more are ignored with a note. */
export const MAX_CALCS_PER_FACTOR = 4;

// Control characters other than tab, newline and carriage return are never part of a thought.
/* eslint-disable no-control-regex -- matching control characters is the point */
const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const CONTROL_CHARS_ALL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
/* eslint-enable no-control-regex */
const BLANK_LINE = /\n[ \t]*\r?\n/;
/**
 * Every answer line of a factor. The last one is the answer, as graders of math models read it (a model that
 * corrects itself, `Answer: 12` … `Answer: 14`, means the last); the first was read, silently.
 */
const ANSWER_LINES = new RegExp(ANSWER_LINE.source, 'gim');
const CALC_TAG = /<calc>([\s\S]*?)<\/calc>/gi;
const CALC_OPEN = /<calc>/i;
// `= [sign] [$] [.]digit`, each optional part with its own blanks: written `=\s*[-+(]?\s*\$?\s*\.?\d`, three
// adjacent `\s*` made it cubic in a run of blanks (`x =` and 2,000 blanks: 4 s per step).
const CLAIM = /=\s*(?:[-+(]\s*)?(?:\$\s*)?\.?\d/;
/** Wrapping parentheses `topOperator` peels: each layer is a rescan, and deeper nesting is no arithmetic a model writes. */
const MAX_WRAPPING = 32;
const MATH_CHARS = new Set('0123456789 \t.,+-*/×÷^()');
const OPERATOR_NAMES: Record<string, string> = {
  '+': 'add',
  '-': 'sub',
  '*': 'mul',
  '×': 'mul',
  '/': 'div',
  '÷': 'div',
  '^': 'pow',
};
const PRECEDENCE: Record<string, number> = { '+': 1, '-': 1, '*': 2, '×': 2, '/': 2, '÷': 2, '^': 3 };

/**
 * The operator applied last in an arithmetic expression (`(3 + 4) * 2` → `mul`): the lowest-precedence
 * binary operator outside parentheses. `fn` for a function call, `num` for a bare number, undefined if
 * there is nothing arithmetic in it. A cheap scan, not a parser: it only names the factor's kind.
 */
export function topOperator(expression: string): string | undefined {
  let text = expression.trim();
  for (let layer = 0; ; layer++) {
    let depth = 0;
    let lowest = 99;
    let lowestOperator: string | undefined;
    // Whether the previous non-blank character ends an operand (digit, letter, `)`, `.`), so that a
    // following + or - is a binary operator rather than a sign.
    let afterOperand = false;
    let wrapped = text.startsWith('(');
    for (let i = 0; i < text.length; i++) {
      const char = text[i] as string;
      if (char === ' ' || char === '\t') continue;
      if (char === '(') {
        depth += 1;
        afterOperand = false;
        continue;
      }
      if (char === ')') {
        depth -= 1;
        if (depth === 0 && i < text.length - 1) wrapped = false;
        afterOperand = true;
        continue;
      }
      const precedence = PRECEDENCE[char];
      if (precedence === undefined) {
        afterOperand = true;
        continue;
      }
      const binary = (char !== '-' && char !== '+') || afterOperand;
      if (depth === 0 && binary && precedence <= lowest) {
        lowest = precedence;
        lowestOperator = char;
      }
      afterOperand = false;
    }
    if (lowestOperator !== undefined) return OPERATOR_NAMES[lowestOperator];
    if (wrapped && text.endsWith(')') && text.length > 2 && layer < MAX_WRAPPING) {
      text = text.slice(1, -1).trim();
      continue;
    }
    if (/^[a-z][a-z0-9]*\s*\(/i.test(text)) return 'fn';
    return /\d/.test(text) ? 'num' : undefined;
  }
}

/** The arithmetic end of a text (`Cost of the pens: 4 × 3 ` → ` 4 × 3 `), scanned backwards in linear time. */
function mathTail(text: string): string {
  let start = text.length;
  while (start > 0 && MATH_CHARS.has(text[start - 1] as string)) start -= 1;
  return text.slice(start);
}

/** The operator of a claim `… a op b = c …`: the first `=`-separated segment whose arithmetic tail has one. */
function claimOperator(factor: string): string | undefined {
  const segments = factor.split('=');
  for (let i = 0; i < segments.length - 1; i++) {
    const tail = mathTail(segments[i] as string);
    if (tail.trim().length === 0) continue;
    const operator = topOperator(tail);
    if (operator !== undefined && operator !== 'num') return operator;
  }
  return undefined;
}

/**
 * The text of the final answer: the rest of the `Answer:` line, or, when that holds nothing but markdown
 * (`**Answer:**`), the next line with text. Models often write `**Final Answer:**` with `\boxed{42}` on the line
 * below; that was read as an empty answer and cost −λ_f for a correct one.
 */
function answerAfter(factor: string, answer: RegExpMatchArray): string {
  const text = answer[1] as string;
  if (!/^[\s*_]*$/.test(text)) return text;
  const below = factor
    .slice((answer.index as number) + answer[0].length)
    .split('\n')
    .find((line) => line.trim().length > 0);
  return below ?? text;
}

/**
 * Reads one action as one thought factor: leading blank lines are skipped, the factor ends at the first
 * blank line, and a factor longer than `maxChars` is cut there. Never throws.
 */
export function readFactor(action: string, maxChars: number, calculator: boolean): FactorReading {
  const notes: string[] = [];
  let factor = action;
  if (CONTROL_CHARS.test(factor)) {
    factor = factor.replace(CONTROL_CHARS_ALL, '');
    notes.push('Control characters were removed from the factor.');
  }
  factor = factor.trimStart();
  const blank = BLANK_LINE.exec(factor);
  if (blank) {
    const rest = factor.slice(blank.index).trim();
    factor = factor.slice(0, blank.index);
    if (rest.length > 0) {
      notes.push(
        `Only the first thought factor is read: the ${rest.length} characters after the blank line were ignored.`,
      );
    }
  }
  factor = factor.trimEnd();
  if (factor.length > maxChars) {
    notes.push(`The factor was truncated to ${maxChars} characters.`);
    factor = factor.slice(0, maxChars);
  }
  if (factor.length === 0) {
    notes.push('Empty thought factor: write one step of reasoning, or the final answer as "Answer: <value>".');
    return { factor, kind: 'EMPTY', calcExpressions: [], notes, fingerprint: 'EMPTY' };
  }
  const answers = [...factor.matchAll(ANSWER_LINES)];
  const answer = answers.at(-1);
  if (answer) {
    if (answers.length > 1)
      notes.push(`The factor has ${answers.length} "Answer:" lines: the last one is the final answer.`);
    return {
      factor,
      kind: 'ANSWER',
      answerText: answerAfter(factor, answer),
      calcExpressions: [],
      notes,
      fingerprint: 'ANSWER',
    };
  }
  // Any case, as CALC_TAG reads it: `<Calc>` was neither evaluated nor noted.
  const hasCalcTag = CALC_OPEN.test(factor);
  if (hasCalcTag && calculator) {
    const calcExpressions: string[] = [];
    CALC_TAG.lastIndex = 0;
    for (let match = CALC_TAG.exec(factor); match !== null; match = CALC_TAG.exec(factor))
      calcExpressions.push(match[1] as string);
    if (calcExpressions.length > MAX_CALCS_PER_FACTOR) {
      notes.push(`Only the first ${MAX_CALCS_PER_FACTOR} <calc> expressions of a factor are evaluated.`);
      calcExpressions.length = MAX_CALCS_PER_FACTOR;
    }
    if (calcExpressions.length > 0) {
      const fingerprint =
        calcExpressions.length > 1 ? 'CALC(multi)' : `CALC(${topOperator(calcExpressions[0] as string) ?? 'none'})`;
      return { factor, kind: 'CALC', calcExpressions, notes, fingerprint };
    }
    notes.push('A <calc> tag is not closed: write <calc>expression</calc>.');
  } else if (hasCalcTag) {
    notes.push(
      'There is no calculator in this variant (turngym/math-thought-calc-v1 has one); <calc> is read as text.',
    );
  }
  if (CLAIM.test(factor)) {
    const operator = claimOperator(factor);
    return {
      factor,
      kind: 'CLAIM',
      calcExpressions: [],
      notes,
      fingerprint: operator === undefined ? 'CLAIM' : `CLAIM(${operator})`,
    };
  }
  return { factor, kind: 'NOTE', calcExpressions: [], notes, fingerprint: 'NOTE' };
}
