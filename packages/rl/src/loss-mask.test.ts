import { actionSpans, lossMask, recordLength, type TokenRecord } from './loss-mask';

describe('lossMask and actionSpans (ALGORITHMS.md §0)', () => {
  const record: TokenRecord = {
    segments: [
      { kind: 'prompt', tokenCount: 4 },
      { kind: 'action', tokenCount: 3 },
      { kind: 'observation', tokenCount: 2 },
      { kind: 'critic-prompt', tokenCount: 2 },
      { kind: 'action', tokenCount: 1 },
      { kind: 'observation', tokenCount: 0 },
    ],
  };

  it('marks only action tokens', () => {
    expect(Array.from(lossMask(record))).toEqual([0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1]);
    expect(recordLength(record)).toBe(12);
  });

  it('gives inclusive spans per turn', () => {
    expect(actionSpans(record)).toEqual([
      { turn: 0, start: 4, end: 6 },
      { turn: 1, start: 11, end: 11 },
    ]);
  });

  it('gives an all-zero mask and no spans without actions', () => {
    expect(Array.from(lossMask({ segments: [{ kind: 'prompt', tokenCount: 2 }] }))).toEqual([0, 0]);
    expect(actionSpans({ segments: [] })).toEqual([]);
  });

  it('rejects malformed segments, naming them', () => {
    expect(() => lossMask({ segments: [{ kind: 'action', tokenCount: 0 }] })).toThrow(
      /segments\[0\] is an action with 0 tokens/,
    );
    expect(() =>
      lossMask({
        segments: [
          { kind: 'prompt', tokenCount: 1 },
          { kind: 'prompt', tokenCount: -1 },
        ],
      }),
    ).toThrow(/segments\[1\]\.tokenCount is -1/);
    expect(() => lossMask({ segments: [{ kind: 'tool' as never, tokenCount: 1 }] })).toThrow(
      /segments\[0\]\.kind is "tool"/,
    );
  });
});
