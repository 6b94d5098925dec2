import { episodePath } from './episode-path';
import { loopNode, loopSteps } from './loop-filter';

describe('loop filter (ALGORITHMS.md §3 line 103)', () => {
  it('flags A → A and the return of A → B → A, nothing else', () => {
    expect(loopSteps(['A', 'B', 'A'])).toEqual([false, false, true]);
    expect(loopSteps(['A', 'A'])).toEqual([false, true]);
    expect(loopSteps(['A', 'B', 'C', 'A'])).toEqual([false, false, false, false]);
    expect(loopSteps(['A', 'B', 'B', 'B', 'C'])).toEqual([false, false, true, true, false]);
  });
});

describe('episodePath', () => {
  const step = (fingerprint: string | undefined, anchor: string | undefined, action = fingerprint ?? '') => ({
    action,
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

  it('on math, a second calculator call of the same kind is a loop only when it repeats the last one and changes nothing', () => {
    // turngym/math-thought's hooks: the fingerprint is the kind of factor, the location the quantities established.
    const calc = (expression: string, reached: string) =>
      step('CALC(+)', reached, `Add them: <calc>${expression}</calc>`);
    const loops = (...steps: ReturnType<typeof step>[]) => episodePath({ steps })!.map((s) => s.loop);
    // Another expression, nothing new established: progress, not a loop (the old filter flagged it).
    expect(loops(calc('12 + 30', 'start'), calc('42 + 8', 'start'))).toEqual([false, false]);
    // The same expression, and it established a quantity the first did not: the state moved on.
    expect(loops(calc('12 + 30', 'start'), calc('12 + 30', 'total'))).toEqual([false, false]);
    // The same call again (whitespace aside), nothing changed: A → A.
    expect(loops(calc('12 + 30', 'total'), calc('12  +  30', 'total'))).toEqual([false, true]);
    // Back to the call of two steps before, to the same place: A → B → A.
    expect(loops(calc('12 + 30', 'total'), step('NOTE', 'total', 'Check it.'), calc('12 + 30', 'total'))).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('compares a step by fingerprint, action text and location reached', () => {
    expect(loopNode('NAV(a)', ' click  a ', '/a')).toBe(loopNode('NAV(a)', 'click a', '/a'));
    expect(loopNode('NAV(a)', 'click a', '/a')).not.toBe(loopNode('NAV(a)', 'click a', '/b'));
    expect(loopNode('NAV(a)', 'click a', '/a')).not.toBe(loopNode('NAV(b)', 'click a', '/a'));
  });

  it('is null for an env without the hooks', () => {
    expect(episodePath({ steps: [step('X', '/a'), step(undefined, '/b')] } as never)).toBeNull();
    expect(episodePath({ steps: [step('X', undefined)] } as never)).toBeNull();
  });
});
