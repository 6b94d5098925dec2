import { isSafePattern, safePatternEngine } from './safe-pattern';

describe('isSafePattern', () => {
  it.each([
    '^(a+)+$',
    '^(a|a)*$',
    '^(\\w+\\s?)*$',
    '^(.a*)*$',
    '^([a-z]+)*$',
    '(a)\\1',
    '^(?<x>a)\\k<x>$',
    '^((ab)*)+$',
    '^(a?){30}a{30}$',
  ])('refuses %s, which backtracks exponentially or cannot be analysed', (pattern) => {
    expect(isSafePattern(pattern)).toBe(false);
  });

  it.each([
    '^[a-z]+$',
    '^\\d{3}-\\d{4}$',
    '^(/[a-z]+)*$',
    '^(?:[^/]+/)*[^/]+$',
    '^(-[a-z]+)*$',
    '^(foo|bar)$',
    '^[\\p{L}]+$',
    '^(?!__)(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$',
  ])('accepts %s, which splits a string one way only', (pattern) => {
    expect(isSafePattern(pattern)).toBe(true);
  });
});

describe('safePatternEngine', () => {
  it('throws on a malformed pattern, as the default engine does', () => {
    expect(() => safePatternEngine('(a', 'u')).toThrow(SyntaxError);
  });

  it('runs a safe pattern natively and passes everything for an unsafe one', () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      expect(safePatternEngine('^[a-z]+$', 'u').test('A')).toBe(false);
      expect(safePatternEngine('^(b+)+$', 'u').test(`${'b'.repeat(50)}!`)).toBe(true);
    } finally {
      warning.mockRestore();
    }
  });
});
