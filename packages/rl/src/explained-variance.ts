/**
 * CleanRL's explained variance of a critic, 1 − Var(y − ŷ)/Var(y) with population variances; NaN when the targets
 * do not vary (or there are none). Shared by the trainers' metrics and the report's calibration plot.
 */
export function explainedVariance(predicted: readonly number[], targets: readonly number[]): number {
  const variance = (values: readonly number[]): number => {
    if (values.length === 0) return Number.NaN;
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    return values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  };
  const total = variance(targets);
  if (!(total > 0)) return Number.NaN;
  return 1 - variance(targets.map((target, index) => target - predicted[index]!)) / total;
}
