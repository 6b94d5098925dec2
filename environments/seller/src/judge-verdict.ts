import { ajv, describeErrors } from '@turngym/core';

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

/** The first balanced `{…}` in a text (models wrap JSON in prose or code fences). */
function firstJsonObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

/**
 * Reads an LLM judge's answer: the first JSON object in the text, validated with ajv, and the rubric's rule
 * that "buy" needs the full score of 4. Never throws: a malformed answer is `{ ok: false, error }`.
 */
export function parseJudgeVerdict(text: string): VerdictParse {
  const json = firstJsonObject(text);
  if (json === undefined) return { ok: false, error: 'no JSON object in the answer' };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, error: `invalid JSON (${(error as Error).message})` };
  }
  if (!validateVerdict(value))
    return { ok: false, error: describeErrors(validateVerdict.errors, 'verdict').join('; ') };
  const verdict = value as unknown as JudgeVerdict;
  if (verdict.verdict === 'buy' && verdict.score !== 4) {
    return { ok: false, error: `verdict "buy" needs score 4 (got ${verdict.score})` };
  }
  return { ok: true, verdict: { reasoning: verdict.reasoning, score: verdict.score, verdict: verdict.verdict } };
}
