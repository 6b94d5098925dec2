import { readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { MAX_ANSWER_CHARS, parseAnswer } from './answer-equivalence';
import { exactKey, showExact } from './exact-number';
import type { Problem, SolutionStep } from './problem';
import { TaskFileError } from './task-file-error';

/** The GSM8K-format sample written for this package (shipped under data/). */
export const SAMPLE_TASKS_PATH = join(__dirname, '..', 'data', 'gsm8k-sample.jsonl');

const ANNOTATION = /<<([^<>]*)>>/g;
/** A number that ends its text; with the text cut after its last digit, the line's last number. */
const NUMBER_AT_END = /(-?\d+(?:,\d{3})*(?:\.\d+)?)$/;

/*
 * Task files are operator input of any size, so these two are scanned in linear time. As regexes
 * (`/(?:^|\n)[ \t]*####[ \t]*([^\n]*?)[ \t]*$/` and `/(-?\d+(?:,\d{3})*(?:\.\d+)?)(?!.*\d)/`) they were
 * cubic in a run of blanks after `####` (2,000 blanks: 3.7 s) and quadratic in a line's numbers (a lookahead
 * rescanning the rest of the line from each one).
 */

/** The answer's last line `#### <value>`: where it starts (its newline) and the value; null if it is not one. */
export function finalLine(answer: string): { index: number; value: string } | null {
  const newline = answer.lastIndexOf('\n');
  let at = newline + 1;
  while (answer[at] === ' ' || answer[at] === '\t') at += 1;
  if (!answer.startsWith('####', at)) return null;
  at += 4;
  let end = answer.length;
  while (answer[at] === ' ' || answer[at] === '\t') at += 1;
  while (end > at && (answer[end - 1] === ' ' || answer[end - 1] === '\t')) end -= 1;
  return { index: Math.max(newline, 0), value: answer.slice(at, end) };
}

/** The last number of a line (of its first stretch with a digit, if it holds other line terminators). */
export function lastNumber(line: string): string | undefined {
  const stretch = line.split(/[\n\r\u2028\u2029]/).find((part) => /\d/.test(part));
  if (stretch === undefined) return undefined;
  let last = stretch.length - 1;
  while (!/\d/.test(stretch[last] as string)) last -= 1;
  return NUMBER_AT_END.exec(stretch.slice(0, last + 1))?.[1];
}
const PERCENT_QUESTION = /\b(?:what|which|how many) (?:percent|percentage)\b|\bby what percent/i;

/** The value a solution line establishes: its last `<<expr=result>>` annotation, else its last number. */
function lineValue(line: string): string | undefined {
  let result: string | undefined;
  ANNOTATION.lastIndex = 0;
  for (let match = ANNOTATION.exec(line); match !== null; match = ANNOTATION.exec(line)) {
    const equals = (match[1] as string).lastIndexOf('=');
    if (equals >= 0) result = (match[1] as string).slice(equals + 1);
  }
  const text = result ?? lastNumber(line.replace(ANNOTATION, ''));
  if (text === undefined) return undefined;
  const parsed = parseAnswer(text);
  return parsed.ok ? exactKey(parsed.answer.value) : undefined;
}

/**
 * What a line without a "question" holds instead, for the message: a MATH-format line (`problem`, `solution`) or
 * another project's names were refused with no hint of what the loader reads.
 */
function otherFormat(record: object): string {
  const keys = Object.keys(record);
  if (keys.length === 0) return ' (the line is an empty object)';
  const shown = keys.slice(0, 6).map((key) => JSON.stringify(key.slice(0, 40)));
  const more = keys.length > shown.length ? ', …' : '';
  const math =
    'problem' in record && 'solution' in record
      ? '; this looks like the MATH format: write each problem as {"question", "answer": "…\\n#### <value>"}'
      : '';
  return ` (the line has ${shown.join(', ')}${more}${math})`;
}

/**
 * Parses GSM8K-format JSONL: one JSON object a line with `question` and `answer` strings, the answer's
 * last line `#### <number>`; an optional `id`. Solution lines become reference steps (calculator
 * annotations `<<48/2=24>>` removed). Blank lines are skipped; any malformed line throws a
 * `TaskFileError` naming it.
 */
export function parseGsm8k(text: string, file: string): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  const name = basename(file);
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).trim();
    const lineNumber = index + 1;
    if (line.length === 0) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw new TaskFileError(file, lineNumber, `not valid JSON (${(error as Error).message})`, error);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new TaskFileError(file, lineNumber, 'expected a JSON object with "question" and "answer"');
    }
    const { question, answer, id } = record as Record<string, unknown>;
    if (typeof question !== 'string' || question.trim().length === 0) {
      throw new TaskFileError(file, lineNumber, `"question" must be a non-empty string${otherFormat(record)}`);
    }
    if (typeof answer !== 'string') throw new TaskFileError(file, lineNumber, '"answer" must be a string');
    // An id of another type was dropped for `<file>#<line>` and an empty one named the problem "": say so instead.
    // (null is no id, as exports of tables write a missing one.)
    if (id !== undefined && id !== null && !(typeof id === 'string' && id.trim().length > 0) && !Number.isFinite(id)) {
      const got = typeof id === 'object' ? (Array.isArray(id) ? 'an array' : 'an object') : JSON.stringify(id);
      throw new TaskFileError(file, lineNumber, `"id" must be a non-empty string or a number (got ${got})`);
    }
    const final = finalLine(answer.trimEnd());
    if (!final) throw new TaskFileError(file, lineNumber, '"answer" must end with a line "#### <number>"');
    // A final line longer than any answer an agent may write was called "not a number" (however long the worked
    // solution above it, only this line counts), and was echoed whole, however long.
    if (final.value.length > MAX_ANSWER_CHARS) {
      throw new TaskFileError(
        file,
        lineNumber,
        `the final answer after "####" is ${final.value.length} characters long ("${final.value.slice(0, 40)}…"); ` +
          `answers are read up to ${MAX_ANSWER_CHARS} characters, so no agent's answer could match it: end the ` +
          'answer with the value alone, e.g. "#### 42"',
      );
    }
    const gold = parseAnswer(final.value);
    if (!gold.ok) {
      throw new TaskFileError(file, lineNumber, `the final answer "${final.value}" is not a number`);
    }
    const reasoning = answer
      .slice(0, final.index)
      .split('\n')
      .map((step) => step.trim())
      .filter((step) => step.length > 0);
    const steps: SolutionStep[] = reasoning.map((step, i) => {
      const value = lineValue(step);
      return { label: `l${i + 1}`, text: step.replace(ANNOTATION, ''), ...(value === undefined ? {} : { value }) };
    });
    // `#### 25%` says the gold is in percent as plainly as a "what percent" question does.
    const answerKind = gold.answer.percentSign || PERCENT_QUESTION.test(question) ? 'percent' : 'number';
    const problemId = typeof id === 'string' || typeof id === 'number' ? String(id) : `${name}#${lineNumber}`;
    // An episode's problemId names its problem in every record: two problems under one id could not be told apart.
    const earlier = seen.get(problemId);
    if (earlier !== undefined) {
      throw new TaskFileError(file, lineNumber, `"id" ${JSON.stringify(problemId)} is also the id of line ${earlier}`);
    }
    seen.set(problemId, lineNumber);
    problems.push({
      id: problemId,
      kind: 'gsm8k',
      difficulty: 0,
      question: question.trim(),
      answer: exactKey(gold.answer.value),
      answerKind,
      answerText: gold.answer.percentSign ? `${showExact(gold.answer.value)}%` : showExact(gold.answer.value),
      steps,
    });
  }
  if (problems.length === 0) throw new TaskFileError(file, undefined, 'the file holds no problems');
  return problems;
}

const cache = new Map<string, { readonly stamp: string; readonly problems: readonly Problem[] }>();

/** Reads and parses a GSM8K-format file; parsed files are cached by path, size and modification time. */
export function loadGsm8kFile(path: string): readonly Problem[] {
  const absolute = resolve(path);
  let stamp: string;
  try {
    const stats = statSync(absolute);
    stamp = `${stats.size}:${stats.mtimeMs}`;
  } catch (error) {
    throw new TaskFileError(
      path,
      undefined,
      `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      error,
    );
  }
  const cached = cache.get(absolute);
  if (cached && cached.stamp === stamp) return cached.problems;
  const problems = parseGsm8k(readFileSync(absolute, 'utf8'), path);
  cache.set(absolute, { stamp, problems });
  return problems;
}
