/**
 * CleanRL's explained variance of a critic, 1 − Var(y − ŷ)/Var(y) with population variances; NaN when the targets
 * do not vary (or there are none). Shared by the trainers' metrics and the report's calibration plot. The two
 * arrays pair up state by state, so arrays of different lengths are refused: a longer `predicted` would have its
 * tail ignored and a shorter one read as NaN, either way a number that measures no critic.
 */
export function explainedVariance(predicted: readonly number[], targets: readonly number[]): number {
  if (predicted.length !== targets.length) {
    throw new RangeError(
      `explainedVariance: predicted has ${predicted.length} values but targets has ${targets.length}; they pair up state by state.`,
    );
  }
  const variance = (values: readonly number[]): number => {
    if (values.length === 0) return Number.NaN;
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    return values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  };
  const total = variance(targets);
  if (!(total > 0)) return Number.NaN;
  return 1 - variance(targets.map((target, index) => target - predicted[index]!)) / total;
}
