import { explainedVariance } from './explained-variance';

describe('explainedVariance', () => {
  it('is 1 − Var(y − ŷ)/Var(y) with population variances, by hand', () => {
    // y = [0, 1, 2, 3]: mean 1.5, Var = (2.25 + 0.25 + 0.25 + 2.25)/4 = 1.25.
    // ŷ = [0, 1, 1, 3]: y − ŷ = [0, 0, 1, 0], mean 0.25, Var = (3·0.0625 + 0.5625)/4 = 0.1875.
    expect(explainedVariance([0, 1, 1, 3], [0, 1, 2, 3])).toBeCloseTo(1 - 0.1875 / 1.25, 12);
    expect(explainedVariance([5, 5, 5], [5, 5, 5])).toBeNaN();
  });

  it('refuses arrays that do not pair up, rather than measuring a part of them', () => {
    // Before: the extra prediction was ignored (EV 1) and a missing one gave NaN, read as "R does not vary".
    expect(() => explainedVariance([0, 1, 2, 9], [0, 1, 2])).toThrow(
      'explainedVariance: predicted has 4 values but targets has 3; they pair up state by state.',
    );
    expect(() => explainedVariance([0, 1], [0, 1, 2])).toThrow(RangeError);
  });
});
