import { parseJudgeVerdict } from './judge-verdict';
import { judgeBuyerReplies } from './simulated-judge';

describe("parseJudgeVerdict (an LLM judge's answer, validated with ajv)", () => {
  it('reads a verdict written in full-width or look-alike letters as the verdict it shows', () => {
    const verdict = (value: string) =>
      parseJudgeVerdict(`{"reasoning": "ok", "score": 4, "verdict": ${JSON.stringify(value)}}`);
    expect(verdict('\uff42\uff55\uff59')).toEqual({ ok: true, verdict: { reasoning: 'ok', score: 4, verdict: 'buy' } });
    expect(verdict('\u0412uy')).toEqual({ ok: true, verdict: { reasoning: 'ok', score: 4, verdict: 'buy' } });
    // Anything else stays malformed, named by ajv.
    expect(verdict('b\u00fcy')).toMatchObject({ ok: false });
  });

  it('reads the JSON object, in prose or a code fence, and ignores extra fields', () => {
    expect(parseJudgeVerdict('{"reasoning": "asks to order", "score": 4, "verdict": "buy"}')).toEqual({
      ok: true,
      verdict: { reasoning: 'asks to order', score: 4, verdict: 'buy' },
    });
    expect(
      parseJudgeVerdict(
        'Here:\n```json\n{"reasoning": "a {brace} inside", "score": 1, "verdict": "continue", "confidence": 0.7}\n```',
      ),
    ).toEqual({
      ok: true,
      verdict: { reasoning: 'a {brace} inside', score: 1, verdict: 'continue' },
    });
  });

  it.each([
    ['They will buy.', /no JSON object/],
    ['{"reasoning": "x", "score": 4, "verdict": "buy"', /no JSON object/],
    ['{"reasoning": "x", "score": 4, verdict: "buy"}', /invalid JSON/],
    ['{"reasoning": "x", "score": 7, "verdict": "continue"}', /verdict\.score must be <= 4/],
    ['{"reasoning": "x", "score": 2.5, "verdict": "continue"}', /verdict\.score must be integer/],
    [
      '{"reasoning": "x", "score": 2, "verdict": "maybe"}',
      /verdict\.verdict must be one of: "buy", "refuse", "continue"/,
    ],
    ['{"score": 2, "verdict": "continue"}', /verdict\.reasoning is required/],
    ['{"reasoning": "x", "score": 3, "verdict": "buy"}', /"buy" needs score 4 \(got 3\)/],
  ])('rejects %s', (text, problem) => {
    const parsed = parseJudgeVerdict(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toMatch(problem);
  });
});

describe('parseJudgeVerdict on what real models write around the verdict', () => {
  it('ignores <think> reasoning: a verdict the judge quotes while thinking is not its ruling', () => {
    // Read as "buy" (reward +1, a sale) before: the first JSON object was inside the reasoning.
    const reply =
      '<think>If they had asked to order I would write {"reasoning": "x", "score": 4, "verdict": "buy"}, but they did not.</think>\n' +
      '{"reasoning": "Curious, no purchase signal yet.", "score": 1, "verdict": "continue"}';
    expect(parseJudgeVerdict(reply)).toEqual({
      ok: true,
      verdict: { reasoning: 'Curious, no purchase signal yet.', score: 1, verdict: 'continue' },
    });
    // A template that opened the block in the prompt leaves only the closing tag.
    expect(parseJudgeVerdict('{"reasoning": "x", "score": 4, "verdict": "buy"} maybe</think>')).toEqual({
      ok: false,
      error: 'no JSON object in the answer',
    });
  });

  it('reads a verdict written with typographic quotes, where nothing else could be meant', () => {
    // Retried as malformed before ("invalid JSON"), and a judge that always writes them voided every episode.
    expect(parseJudgeVerdict('{“reasoning”: “Asks how to pay.”, “score”: 4, “verdict”: “buy”}')).toEqual({
      ok: true,
      verdict: { reasoning: 'Asks how to pay.', score: 4, verdict: 'buy' },
    });
    expect(parseJudgeVerdict('Verdict:\n{”reasoning”: ”Not yet.”, ”score”: 1, ”verdict”: ”continue”}')).toMatchObject({
      ok: true,
      verdict: { verdict: 'continue', score: 1 },
    });
    // Curly quotes inside ASCII-quoted words are only words.
    expect(parseJudgeVerdict('{"reasoning": "They said “great”.", "score": 2, "verdict": "continue"}')).toMatchObject({
      ok: true,
      verdict: { reasoning: 'They said “great”.' },
    });
    // Ambiguous: a curly quote inside curly-quoted words, or both kinds of quotes as delimiters. Still malformed.
    for (const text of [
      '{“reasoning”: “They said “great” twice.”, “score”: 4, “verdict”: “buy”}',
      '{"reasoning": “Keen.”, "score": 4, "verdict": "buy"}',
    ]) {
      const parsed = parseJudgeVerdict(text);
      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? '' : parsed.error).toMatch(/invalid JSON/);
    }
  });

  it('finds the verdict after prose with braces in it', () => {
    const parsed = parseJudgeVerdict(
      'The buyer {seems} keen. {"reasoning": "keen", "score": 2, "verdict": "continue"}',
    );
    expect(parsed).toEqual({ ok: true, verdict: { reasoning: 'keen', score: 2, verdict: 'continue' } });
  });

  it('refuses an answer with verdicts that disagree instead of scoring the first one', () => {
    const parsed = parseJudgeVerdict(
      '{"reasoning": "a", "score": 2, "verdict": "continue"}\nOn reflection: {"reasoning": "b", "score": 4, "verdict": "buy"}',
    );
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toBe(
      'the answer holds 2 different verdicts ("continue" (score 2), "buy" (score 4)); give one',
    );
    // The same ruling written twice is one ruling.
    expect(
      parseJudgeVerdict(
        '{"reasoning": "a", "score": 2, "verdict": "continue"} {"reasoning": "b", "score": 2, "verdict": "continue"}',
      ),
    ).toMatchObject({ ok: true, verdict: { score: 2, verdict: 'continue' } });
  });

  it('reads a verdict in another case and a score written as a string', () => {
    expect(parseJudgeVerdict('{"reasoning": "asks to order", "score": "4", "verdict": "Buy "}')).toEqual({
      ok: true,
      verdict: { reasoning: 'asks to order', score: 4, verdict: 'buy' },
    });
    expect(parseJudgeVerdict('{"reasoning": "x", "score": "four", "verdict": "continue"}')).toMatchObject({
      ok: false,
    });
  });
});

describe('judgeBuyerReplies (the simulated judge behind an LLM buyer)', () => {
  it('rules buy when the buyer asks how to order, refuse at a goodbye, continue otherwise', () => {
    expect(judgeBuyerReplies(['Hello.', 'That sounds interesting.', 'Great, how do I order one?'])).toMatchObject({
      verdict: 'buy',
      score: 4,
    });
    expect(judgeBuyerReplies(['Hello.', 'Not interested. Goodbye.'])).toMatchObject({ verdict: 'refuse' });
    const undecided = judgeBuyerReplies(['Hello.', 'That sounds interesting.']);
    expect(undecided.verdict).toBe('continue');
    expect(undecided.score).toBeGreaterThanOrEqual(2);
  });
});
