import { gainedAndLost, signTestP, type TestScore } from './test-scores';

const score = (wins: string): TestScore => ({
  checkpoint: 'x',
  adapter: null,
  episodes: wins.length,
  successRate: [...wins].filter((win) => win === '1').length / wins.length,
  meanReturn: 0,
  wins,
});

describe('comparing a run with its start task by task', () => {
  it('counts the tasks gained and lost, not the net change', () => {
    expect(gainedAndLost(score('0101100'), score('0011101'))).toEqual({ gained: 2, lost: 1 });
    expect(gainedAndLost(score('0000'), score('0000'))).toEqual({ gained: 0, lost: 0 });
  });

  it('gives the exact two-sided sign test', () => {
    // By hand: 2 · (C(13,0) + C(13,1) + C(13,2)) / 2^13 = 2 · 92 / 8192.
    expect(signTestP(11, 2)).toBeCloseTo(184 / 8192, 12);
    expect(signTestP(2, 11)).toBeCloseTo(184 / 8192, 12);
    // 4 of 4 one way: 2 / 16; an even split or nothing changed: 1.
    expect(signTestP(4, 0)).toBeCloseTo(0.125, 12);
    expect(signTestP(5, 5)).toBe(1);
    expect(signTestP(0, 0)).toBe(1);
  });
});
