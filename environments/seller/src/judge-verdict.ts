import { ajv, describeErrors } from '@turngym/core';
import { stripReasoning } from '@turngym/llm';
import { foldLookAlikes } from './fold-look-alikes';

/** The judge's ruling (ALGORITHMS.md §5): buy → +1 and end, refuse → −1 and end, continue → 0. */
export type Verdict = 'buy' | 'refuse' | 'continue';

/** What the judge answers: the reference rubric's JSON. */
export interface JudgeVerdict {
  readonly reasoning: string;
  /** Additive 0–4: interest, attitude, purchase signals, asks how to order. */
  readonly score: number;
  readonly verdict: Verdict;
}

/**
 * A verdict as recorded in `info.judge`. There is no "no decision": a judge whose answers stay unreadable voids
 * the episode (`RoleUnusableError`) instead of letting it run on to a lost sale.
 */
export interface JudgeRecord {
  readonly decision: Verdict;
  readonly score?: number;
  readonly reasoning?: string;
  /** Calls to an LLM judge this turn (1 + retries). */
  readonly attempts?: number;
}

/** The JSON an LLM judge must answer; extra fields are tolerated, as models add them. */
export const judgeVerdictSchema = {
  type: 'object',
  required: ['reasoning', 'score', 'verdict'],
  properties: {
    reasoning: { type: 'string' },
    score: { type: 'integer', minimum: 0, maximum: 4 },
    verdict: { type: 'string', enum: ['buy', 'refuse', 'continue'] },
  },
} as const;

const validateVerdict = ajv.compile(judgeVerdictSchema);

export type VerdictParse = { ok: true; verdict: JudgeVerdict } | { ok: false; error: string };

/**
 * The outermost balanced `{…}` spans of a text (models wrap JSON in prose or code fences, and some write more
 * than one). One pass with a stack of open braces, so prose with stray braces costs linear time; quotes count
 * only inside a brace, where they open JSON strings.
 */
function jsonObjectSpans(text: string): string[] {
  const opens: number[] = [];
  const spans: { start: number; end: number }[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"' && opens.length > 0) inString = true;
    else if (char === '{') opens.push(i);
    else if (char === '}') {
      const start = opens.pop();
      if (start === undefined) continue;
      // Spans closed since this brace opened lie inside it: only the outermost one is a candidate.
      while (spans.length > 0 && (spans[spans.length - 1] as { start: number }).start > start) spans.pop();
      spans.push({ start, end: i + 1 });
    }
  }
  return spans.map((span) => text.slice(span.start, span.end));
}

/**
 * What models write for an unambiguous rubric answer, read as the schema wants it: `"Buy"`, `" continue "`,
 * full-width `"ｂｕｙ"` or `"Вuy"` with a Cyrillic В (`foldLookAlikes`) and a score of `"4"` mean what they say.
 * Anything else is left for ajv to name.
 */
function normalised(value: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...value };
  if (typeof copy.verdict === 'string') copy.verdict = foldLookAlikes(copy.verdict).trim().toLowerCase();
  if (typeof copy.score === 'string' && /^\s*[0-4]\s*$/.test(foldLookAlikes(copy.score)))
    copy.score = Number(foldLookAlikes(copy.score));
  return copy;
}

const TYPOGRAPHIC_QUOTE = /[\u201c\u201d]/;
const TYPOGRAPHIC_QUOTES = /[\u201c\u201d]/g;

/**
 * A span's JSON, reading typographic double quotes as JSON's where that is unambiguous: models (and chat front
 * ends that "smarten" quotes) write `{“verdict”: “buy”}`, which was retried as malformed until the judge gave up.
 * Only a span with no ASCII quote at all is read so, and only if the result parses: a curly quote inside the
 * words (`“he said “yes””`) breaks the JSON, and the answer stays malformed rather than read as something else.
 */
function parseSpan(span: string): unknown {
  try {
    return JSON.parse(span);
  } catch (error) {
    if (span.includes('"') || !TYPOGRAPHIC_QUOTE.test(span)) throw error;
    try {
      return JSON.parse(span.replace(TYPOGRAPHIC_QUOTES, '"'));
    } catch {
      throw error; // the original complaint names what the model wrote
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads an LLM judge's answer, validated with ajv, with the rubric's rule that "buy" needs the full score of 4.
 * Reasoning blocks (`<think>…</think>`) are not the answer. The answer is the JSON object with a `verdict`; where
 * there are several, they must all be valid and agree, since picking one would score a ruling the judge may not
 * have meant. Never throws: a malformed or ambiguous answer is `{ ok: false, error }`.
 */
export function parseJudgeVerdict(text: string): VerdictParse {
  const spans = jsonObjectSpans(stripReasoning(text).text);
  if (spans.length === 0) return { ok: false, error: 'no JSON object in the answer' };
  const verdicts: JudgeVerdict[] = [];
  let lastError = '';
  for (const span of spans) {
    let value: unknown;
    try {
      value = parseSpan(span);
    } catch (error) {
      lastError = `invalid JSON (${(error as Error).message})`;
      continue;
    }
    // An object without a verdict is prose that happened to be JSON (an example, a note), not a ruling.
    if (!isRecord(value) || (spans.length > 1 && !('verdict' in value))) {
      lastError ||= 'no JSON object with a verdict in the answer';
      continue;
    }
    const candidate = normalised(value);
    if (!validateVerdict(candidate))
      return { ok: false, error: describeErrors(validateVerdict.errors, 'verdict').join('; ') };
    const verdict = candidate as unknown as JudgeVerdict;
    if (verdict.verdict === 'buy' && verdict.score !== 4) {
      return { ok: false, error: `verdict "buy" needs score 4 (got ${verdict.score})` };
    }
    verdicts.push({ reasoning: verdict.reasoning, score: verdict.score, verdict: verdict.verdict });
  }
  if (verdicts.length === 0) return { ok: false, error: lastError };
  const rulings = [...new Set(verdicts.map((verdict) => `"${verdict.verdict}" (score ${verdict.score})`))];
  if (rulings.length > 1)
    return {
      ok: false,
      error: `the answer holds ${rulings.length} different verdicts (${rulings.join(', ')}); give one`,
    };
  return { ok: true, verdict: verdicts[verdicts.length - 1] as JudgeVerdict };
}
