import Fraction from 'fraction.js';

/** Exact rationals (fraction.js): answers and intermediate quantities are compared exactly, never as floats. */
export type Exact = InstanceType<typeof Fraction>;

export function exact(value: number | string | Exact, denominator?: number): Exact {
  return denominator === undefined ? new Fraction(value) : new Fraction(value as number, denominator);
}

/** True when the value has a finite decimal expansion (its reduced denominator has no prime but 2 and 5). */
export function isTerminating(value: Exact): boolean {
  let d = value.d;
  while (d % 2n === 0n) d /= 2n;
  while (d % 5n === 0n) d /= 5n;
  return d === 1n;
}

export function isInteger(value: Exact): boolean {
  return value.d === 1n;
}

/** The canonical exact form, `17/12`, `-3`, used as the stored answer and as a quantity key. */
export function exactKey(value: Exact): string {
  return value.toFraction();
}

/**
 * How a value is written in text: an integer or a finite decimal (`43.2`), else a fraction (`5/6`).
 * `preferFraction` writes every non-integer as a fraction (fraction problems).
 */
export function showExact(value: Exact, preferFraction = false): string {
  if (isInteger(value)) return value.toFraction();
  if (!preferFraction && isTerminating(value)) return value.toString();
  return value.toFraction();
}

/** A value as an operand in an expression: negative values in parentheses. */
export function showOperand(value: Exact, preferFraction = false): string {
  const text = showExact(value, preferFraction);
  return value.s < 0n ? `(${text})` : text;
}
