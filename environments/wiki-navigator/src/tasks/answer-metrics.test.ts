import { exactMatch, normalizeAnswer, tokenF1 } from './answer-metrics';

describe('SQuAD answer normalisation and metrics', () => {
  it('lower-cases, drops punctuation and articles, collapses whitespace', () => {
    expect(normalizeAnswer('  The  Glass Orchard! ')).toBe('glass orchard');
    expect(normalizeAnswer('48,200')).toBe('48200');
    expect(normalizeAnswer('An apple, a pear')).toBe('apple pear');
    expect(normalizeAnswer('1791–1828')).toBe('17911828');
  });

  it('exact match takes the best gold alias', () => {
    expect(exactMatch('the glass orchard', ['Glass Orchard'])).toBe(1);
    expect(exactMatch('48200', ['48,200'])).toBe(1);
    expect(exactMatch('Morrow', ['Morrow Bay', 'Morrow Harbour'])).toBe(0);
    expect(exactMatch('Morrow Harbour', ['Morrow Bay', 'Morrow Harbour'])).toBe(1);
  });

  it('matches an answer whose accents are combining marks against the precomposed gold (NFC)', () => {
    expect(exactMatch('Cafe\u0301 Noir', ['Caf\u00e9 noir'])).toBe(1);
    expect(tokenF1('Cafe\u0301', ['Caf\u00e9 noir'])).toBeCloseTo(2 / 3);
  });

  it('token F1 counts each Chinese, Japanese or Korean character as a token (MLQA), words elsewhere', () => {
    expect(tokenF1('北京市', ['北京'])).toBeCloseTo(0.8);
    expect(tokenF1('東京都 Tokyo', ['東京'])).toBeCloseTo(2 / 3);
    expect(tokenF1('上海', ['北京'])).toBe(0);
    expect(exactMatch('北京。', ['北京'])).toBe(1);
  });

  it('token F1 gives partial credit and the best alias', () => {
    expect(tokenF1('Morrow', ['Morrow Bay'])).toBeCloseTo(2 / 3);
    expect(tokenF1('Bay Morrow', ['Morrow Bay'])).toBe(1);
    expect(tokenF1('nothing alike', ['Morrow Bay'])).toBe(0);
    expect(tokenF1('Morrow Bay city', ['Morrow', 'Morrow Bay'])).toBeCloseTo(0.8);
    expect(tokenF1('', ['Morrow Bay'])).toBe(0);
  });
});
