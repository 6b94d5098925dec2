import { isDeepStrictEqual } from 'node:util';
import { parseJsonPath, selectPath, type PathStep } from './json-path';
import { TaskFileError } from './task-file-error';

/**
 * What a check looks at, once the agent has answered:
 * - `answer`: the text the agent submitted;
 * - `calls`: every tool call of the episode, `{tool, arguments}`;
 * - `lastTool` / `lastResult`: the last server tool called and its result (structured content when the
 *   server sent it, else the text, parsed as JSON when it is JSON);
 * - `probe`: the result of the task's probe call, made after the answer (the server's state, say).
 */
export interface CheckDocument {
  readonly answer: string;
  readonly calls: ReadonlyArray<{ readonly tool: string; readonly arguments: Record<string, unknown> }>;
  readonly lastTool: string | null;
  readonly lastResult: unknown;
  readonly probe?: unknown;
}

export type AnswerCheck = (document: CheckDocument) => boolean;

const OPERATORS = ['equals', 'contains', 'startsWith', 'oneOf', 'approx', 'gte', 'lte', 'exists'] as const;
const LEAF_KEYS = new Set<string>(['path', 'tolerance', ...OPERATORS]);

/**
 * Answers are compared as a reader would: case, surrounding space, runs of space and a final full stop do not
 * matter. Done with a loop, not a regular expression, so a long answer costs linear time.
 */
export function normalizeText(text: string): string {
  let out = text.normalize('NFKC').trim().toLowerCase().split(/\s+/).join(' ');
  let end = out.length;
  while (end > 0 && (out[end - 1] === '.' || out[end - 1] === '!')) end -= 1;
  out = out.slice(0, end);
  if (out.length >= 2 && (out[0] === '"' || out[0] === "'") && out[out.length - 1] === out[0]) out = out.slice(1, -1);
  return out.trim();
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i;
/** Thousands in groups of three, one separator throughout: `6,000`, `1 000 000`, `1_000.5`. */
const GROUPED = /^([-+]?\d{1,3})([,_ \u00a0\u202f])(\d{3}(?:\2\d{3})*(?:\.\d*)?)$/;

/**
 * A number, or a string that is one, with thousands separators between groups of three. Any comma or space
 * used to be dropped, so a list `4, 4, 9` or a decimal comma `44,9` equalled 449.
 */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.length > 64) return undefined;
  let text = value.trim();
  const grouped = GROUPED.exec(text);
  if (grouped) text = `${grouped[1]}${(grouped[3] as string).split(grouped[2] as string).join('')}`;
  if (!NUMBER.test(text)) return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : undefined;
}

function same(actual: unknown, expected: unknown): boolean {
  const a = numberOf(actual);
  const b = numberOf(expected);
  if (a !== undefined && b !== undefined) return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  if (typeof actual === 'string' && typeof expected === 'string')
    return normalizeText(actual) === normalizeText(expected);
  return isDeepStrictEqual(actual, expected);
}

type Test = (value: unknown) => boolean;

function operatorTest(operator: (typeof OPERATORS)[number], operand: unknown, tolerance: number, where: string): Test {
  const numeric = (name: string): number => {
    const value = numberOf(operand);
    if (value === undefined) throw new TaskFileError(where, undefined, `${name} needs a number`);
    return value;
  };
  switch (operator) {
    case 'equals':
      return (value) => same(value, operand);
    case 'contains':
      return (value) =>
        Array.isArray(value)
          ? value.some((item) => same(item, operand))
          : typeof value === 'string' && normalizeText(value).includes(normalizeText(String(operand)));
    case 'startsWith':
      return (value) => typeof value === 'string' && normalizeText(value).startsWith(normalizeText(String(operand)));
    case 'oneOf': {
      // An empty list matches nothing: the task could never be solved.
      if (!Array.isArray(operand) || operand.length === 0)
        throw new TaskFileError(where, undefined, 'oneOf needs a non-empty array');
      return (value) => operand.some((candidate) => same(value, candidate));
    }
    case 'approx': {
      const target = numeric('approx');
      return (value) => {
        const number = numberOf(value);
        return number !== undefined && Math.abs(number - target) <= tolerance;
      };
    }
    case 'gte': {
      const bound = numeric('gte');
      return (value) => (numberOf(value) ?? Number.NaN) >= bound;
    }
    case 'lte': {
      const bound = numeric('lte');
      return (value) => (numberOf(value) ?? Number.NaN) <= bound;
    }
    case 'exists':
      throw new TaskFileError(where, undefined, 'exists is handled by its leaf');
  }
}

function compileLeaf(node: Record<string, unknown>, where: string): AnswerCheck {
  for (const key of Object.keys(node)) {
    if (!LEAF_KEYS.has(key))
      throw new TaskFileError(
        where,
        undefined,
        `unknown check key "${key}" (operators: ${OPERATORS.join(', ')}; all, any, not)`,
      );
  }
  const path = node.path === undefined ? '$.answer' : node.path;
  if (typeof path !== 'string') throw new TaskFileError(where, undefined, 'path must be a string');
  const steps: PathStep[] = parseJsonPath(path, where);
  const tolerance = node.tolerance === undefined ? 1e-6 : numberOf(node.tolerance);
  if (tolerance === undefined || tolerance < 0)
    throw new TaskFileError(where, undefined, 'tolerance must be a number ≥ 0');
  const present = OPERATORS.filter((operator) => operator in node);
  if (present.length === 0) throw new TaskFileError(where, undefined, `a check needs one of ${OPERATORS.join(', ')}`);
  const tests: Test[] = [];
  let exists: boolean | undefined;
  for (const operator of present) {
    if (operator === 'exists') {
      if (typeof node.exists !== 'boolean') throw new TaskFileError(where, undefined, 'exists must be true or false');
      exists = node.exists;
    } else tests.push(operatorTest(operator, node[operator], tolerance, where));
  }
  return (document) => {
    const values = selectPath(document, steps);
    if (exists !== undefined && values.length > 0 !== exists) return false;
    // With a wildcard a path reaches several values: the check holds when one of them passes every test.
    return tests.length === 0 || values.some((value) => tests.every((test) => test(value)));
  };
}

/**
 * Compiles a task's check: a JSON tree of `all` / `any` / `not` over leaves `{path, <operator>: operand}`.
 * Data, not code: it is never evaluated as JavaScript (a task file is no way into the host process), it has no
 * regular expressions (JavaScript's can backtrack for exponential time on a crafted answer and cannot be
 * interrupted), and every operator runs in time linear in what it reads.
 */
export function compileCheck(node: unknown, where: string): AnswerCheck {
  if (typeof node !== 'object' || node === null || Array.isArray(node))
    throw new TaskFileError(where, undefined, 'a check must be an object');
  const record = node as Record<string, unknown>;
  const combinators = ['all', 'any', 'not'].filter((key) => key in record);
  if (combinators.length > 0) {
    if (Object.keys(record).length !== 1)
      throw new TaskFileError(where, undefined, `${combinators[0]} must be the only key of its object`);
    if ('not' in record) {
      const inner = compileCheck(record.not, `${where}.not`);
      return (document) => !inner(document);
    }
    const key = combinators[0] as 'all' | 'any';
    const list = record[key];
    if (!Array.isArray(list) || list.length === 0)
      throw new TaskFileError(where, undefined, `${key} needs a non-empty array`);
    const parts = list.map((part, i) => compileCheck(part, `${where}.${key}[${i}]`));
    return key === 'all'
      ? (document) => parts.every((part) => part(document))
      : (document) => parts.some((part) => part(document));
  }
  return compileLeaf(record, where);
}
