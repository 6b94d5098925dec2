import { parseInteger, parsePositiveInteger } from './parse-arguments';

describe('command-line numbers', () => {
  it('reads the forms people type, and -0 as 0', () => {
    expect(parseInteger(' 42 ')).toBe(42);
    expect(parseInteger('-5')).toBe(-5);
    expect(parseInteger('1e3')).toBe(1000);
    expect(Object.is(parseInteger('-0'), 0)).toBe(true);
    expect(parsePositiveInteger('1e3')).toBe(1000);
  });

  it('says why a seed past 2^53 is refused, where neighbouring integers are one double', () => {
    expect(() => parseInteger('99999999999999999999')).toThrow(
      'Expected an integer within ±9007199254740991 (2^53 − 1).',
    );
    expect(() => parseInteger('1.5')).toThrow('Expected an integer.');
    expect(() => parseInteger('')).toThrow('Expected an integer.');
  });
});
