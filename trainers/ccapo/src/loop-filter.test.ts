import { episodePath } from './episode-path';
import { loopSteps } from './loop-filter';

describe('loop filter (ALGORITHMS.md §3 line 103)', () => {
  it('flags A → A and the return of A → B → A, nothing else', () => {
    expect(loopSteps(['A', 'B', 'A'])).toEqual([false, false, true]);
    expect(loopSteps(['A', 'A'])).toEqual([false, true]);
    expect(loopSteps(['A', 'B', 'C', 'A'])).toEqual([false, false, false, false]);
    expect(loopSteps(['A', 'B', 'B', 'B', 'C'])).toEqual([false, false, true, true, false]);
  });
});

describe('episodePath', () => {
  const step = (fingerprint: string | undefined, anchor: string | undefined) => ({
    info: { ...(fingerprint ? { fingerprint } : {}), ...(anchor ? { anchor } : {}) },
  });

  it("reads the env's hooks: step t's anchor is (location reached by t − 1, fingerprint of a_{t−1})", () => {
    const path = episodePath({
      steps: [step('NAV(a)', '/a'), step('NAV(b)', '/b'), step('NAV(a)', '/a'), step('ANSWER', 'done')],
    } as never);
    expect(path).toEqual([
      { anchor: '^|^', fingerprint: 'NAV(a)', loop: false, stepsToEnd: 3 },
      { anchor: '/a|NAV(a)', fingerprint: 'NAV(b)', loop: false, stepsToEnd: 2 },
      { anchor: '/b|NAV(b)', fingerprint: 'NAV(a)', loop: true, stepsToEnd: 1 },
      { anchor: '/a|NAV(a)', fingerprint: 'ANSWER', loop: false, stepsToEnd: 0 },
    ]);
  });

  it('is null for an env without the hooks', () => {
    expect(episodePath({ steps: [step('X', '/a'), step(undefined, '/b')] } as never)).toBeNull();
    expect(episodePath({ steps: [step('X', undefined)] } as never)).toBeNull();
  });
});
