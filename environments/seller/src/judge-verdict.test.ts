import { parseJudgeVerdict } from './judge-verdict';
import { judgeBuyerReplies } from './simulated-judge';

describe("parseJudgeVerdict (an LLM judge's answer, validated with ajv)", () => {
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
