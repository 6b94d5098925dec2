import { exact } from './exact-number';
import { isEquivalent, parseAnswer } from './answer-equivalence';
import type { AnswerKind } from './problem';

function judge(written: string, gold: string, kind: AnswerKind = 'number'): boolean | 'malformed' {
  const parsed = parseAnswer(written);
  return parsed.ok ? isEquivalent(parsed.answer, exact(gold), kind) : 'malformed';
}

describe('answer equivalence', () => {
  it.each<[string, string, AnswerKind, boolean | 'malformed']>([
    // exact values in any notation
    ['42', '42', 'number', true],
    ['42.', '42', 'number', true],
    ['42.0', '42', 'number', true],
    ['1,234', '1234', 'number', true],
    ['$1,234.50', '2469/2', 'number', true],
    ['-3', '-3', 'number', true],
    ['−3', '-3', 'number', true],
    ['0.5', '1/2', 'number', true],
    ['.5', '1/2', 'number', true],
    ['1/2', '1/2', 'number', true],
    ['2/4', '1/2', 'number', true],
    ['1 1/2', '3/2', 'number', true],
    ['50%', '1/2', 'number', true],
    ['x = 5', '5', 'number', true],
    ['12 apples', '12', 'number', true],
    ['\\boxed{17/12}', '17/12', 'number', true],
    ['**8**', '8', 'number', true],
    // wrong values
    ['43', '42', 'number', false],
    ['50', '1/2', 'number', false],
    ['50%', '50', 'number', false],
    ['0.125', '1/8', 'number', true],
    ['0.13', '1/8', 'number', false], // a finite decimal must be written exactly
    // rounded decimals stand for values with no finite decimal expansion (two or more places)
    ['0.33', '1/3', 'number', true],
    ['0.333', '1/3', 'number', true],
    ['0.67', '2/3', 'number', true],
    ['0.66', '2/3', 'number', true], // truncated
    ['0.3', '1/3', 'number', false], // one place is too coarse
    ['0.34', '1/3', 'number', false],
    ['-0.33', '-1/3', 'number', true],
    // where the problem asks a percentage: 50, 50%, 0.5 and 1/2 all mean 50 %
    ['50%', '50', 'percent', true],
    ['50', '50', 'percent', true],
    ['50 percent', '50', 'percent', true],
    ['0.5', '50', 'percent', true],
    ['1/2', '50', 'percent', true],
    ['0.5%', '50', 'percent', false],
    ['12.5%', '25/2', 'percent', true],
    ['0.125', '25/2', 'percent', true],
    ['33.33%', '100/3', 'percent', true],
    ['0.3333', '100/3', 'percent', true],
    ['40', '50', 'percent', false],
    // malformed
    ['', '1', 'number', 'malformed'],
    ['forty-two', '42', 'number', 'malformed'],
    ['3 or 4', '3', 'number', 'malformed'],
    ['2 + 2', '4', 'number', 'malformed'],
    ['1,5', '3/2', 'number', 'malformed'],
    ['1/0', '1', 'number', 'malformed'],
    ['about 12', '12', 'number', 'malformed'],
    ['12 apples/2', '6', 'number', 'malformed'],
    ['9'.repeat(200), '1', 'number', 'malformed'],
    // scientific notation, as models write large and small values
    ['1e3', '1000', 'number', true],
    ['1E3', '1000', 'number', true],
    ['2.5e-2', '1/40', 'number', true],
    ['1.5 × 10^3', '1500', 'number', true],
    ['1.5 \\times 10^{3}', '1500', 'number', true],
    ['$3 \\cdot 10^{-1}$', '3/10', 'number', true],
    ['3.33e-1', '1/3', 'number', true], // three decimals of the value, rounded
    ['3.3e-1', '1/3', 'number', true], // 0.33: two decimals of the value
    ['3e-1', '1/3', 'number', false], // 0.3: one decimal is too coarse
    ['1e3', '100', 'number', false],
    ['-4e2 apples', '-400', 'number', true],
    ['1e2%', '1', 'number', true],
    ['12 eggs', '12', 'number', true],
    ['1e9999', '1', 'number', 'malformed'], // a four-digit exponent is not read
    ['3/4e2', '75', 'number', 'malformed'],
  ])('%j against %s (%s) → %s', (written, gold, kind, expected) => {
    expect(judge(written, gold, kind)).toBe(expected);
  });

  it.each<[string, string, AnswerKind]>([
    // What math models write; each was "malformed" (−λ_f) before.
    ['\\frac{1}{2}', '1/2', 'number'],
    ['\\dfrac{3}{4}', '3/4', 'number'],
    ['\\frac12', '1/2', 'number'],
    ['\\boxed{\\frac{17}{12}}', '17/12', 'number'],
    ['$\\frac{1}{2}$', '1/2', 'number'],
    ['\\(\\frac{5}{2}\\)', '5/2', 'number'],
    ['\\[42\\]', '42', 'number'],
    ['\\boxed{42}.', '42', 'number'],
    ['-\\frac{1}{3}', '-1/3', 'number'],
    ['x = \\frac{5}{2}', '5/2', 'number'],
    ['50\\%', '50', 'percent'],
    ['\\$12.50', '25/2', 'number'],
    ['1{,}000', '1000', 'number'],
    ['1\\,000', '1000', 'number'],
    ['12 \\text{apples}', '12', 'number'],
    ['½', '1/2', 'number'],
    ['2¾', '11/4', 'number'],
    ['60 km/h', '60', 'number'],
    ['12 m²', '12', 'number'],
  ])('reads %j as %s (%s)', (written, gold, kind) => {
    expect(judge(written, gold, kind)).toBe(true);
  });

  it.each<[string, string, AnswerKind]>([
    // Each was malformed (−λ_f for a correct answer).
    ['90^\\circ', '90', 'number'],
    ['90^{\\circ}', '90', 'number'],
    ['90°', '90', 'number'],
    ['20 °C', '20', 'number'],
    ['12 m^2', '12', 'number'],
    ['12 \\text{cm}^{2}', '12', 'number'],
    ['8 ft^3', '8', 'number'],
    ['\\mathbf{12}', '12', 'number'],
    ['\\textbf{12}', '12', 'number'],
    ['`12`', '12', 'number'],
    ['1\u202f000', '1000', 'number'],
    ['1\u00a0000', '1000', 'number'],
    ['٥٠٪', '50', 'percent'],
    ['50٪', '1/2', 'number'],
  ])('reads units, markup and separators models write: %j as %s (%s)', (written, gold, kind) => {
    expect(judge(written, gold, kind)).toBe(true);
  });

  it.each(['5x^2', '1e^2', '2^3', '12 m^4', '°90', '1 000', '`12'])('still refuses %j', (written) => {
    // A power is a unit's only after `m` or a word (`5x^2`, `1e^2` are expressions); plain-space groups are ambiguous.
    expect(judge(written, '12')).toBe('malformed');
  });

  it('reads a LaTeX mixed number as one, never as the digits run together', () => {
    expect(judge('1\\frac{1}{2}', '3/2')).toBe(true);
    expect(judge('1\\frac{1}{2}', '11/2')).toBe(false);
    expect(judge('\\frac{1}{0}', '1')).toBe('malformed');
  });

  it('reads very large integers exactly', () => {
    expect(judge('123456789012345678901234567890', '123456789012345678901234567890')).toBe(true);
    expect(judge('123456789012345678901234567891', '123456789012345678901234567890')).toBe(false);
  });

  it.each([
    ['٤٢', '42'],
    ['٣٫٥', '7/2'],
    ['١٬٢٣٤', '1234'],
    ['۴۲', '42'],
    ['४२', '42'],
    ['４２', '42'],
    ['－５', '-5'],
    ['１／２', '1/2'],
    ['５０％', '1/2'],
  ])('reads the digits of other scripts, %j as %s', (written, gold) => {
    // They were malformed: −λ_f for a correct answer.
    expect(judge(written, gold)).toBe(true);
  });

  it('reads "per cent" as percent and a currency sign other than $ on either side', () => {
    // `50 per cent` was 50 (a unit word), so wrong for 1/2; `€12` and `12 €` were malformed.
    expect(judge('50 per cent', '1/2')).toBe(true);
    expect(judge('50 per cent', '50')).toBe(false);
    for (const written of ['€12', '12 €', '£12', '¥12', '₹12', '-€12', '12€ each'])
      expect(judge(written, written.startsWith('-') ? '-12' : '12')).toBe(true);
    expect(judge('€€12', '12')).toBe('malformed');
  });

  it('refuses two minus signs instead of reading a negative number', () => {
    // `--5` and `-$-5` were read as -5.
    expect(judge('--5', '-5')).toBe('malformed');
    expect(judge('-$-5', '-5')).toBe('malformed');
    expect(judge('-$5', '-5')).toBe(true);
    expect(judge('$-5', '-5')).toBe(true);
  });

  it('explains a malformed answer', () => {
    const parsed = parseAnswer('forty-two');
    expect(parsed).toMatchObject({ ok: false });
    expect(parsed.ok ? '' : parsed.feedback).toMatch(/Could not read "forty-two" as one number/);
  });
});
