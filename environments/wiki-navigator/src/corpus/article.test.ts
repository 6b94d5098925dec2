import { articlePath, normalizeTitle, parseLinks } from './article';

describe('normalizeTitle (MediaWiki title rules)', () => {
  it('upper-cases the first letter, but keeps one whose upper case is several letters (ß, as MediaWiki does)', () => {
    expect(normalizeTitle('paris_city')).toBe('Paris city');
    expect(normalizeTitle('ßeta')).toBe('ßeta');
    expect(normalizeTitle('𐐨eseret')).toBe('𐐀eseret'); // a letter outside the BMP, upper-cased whole
  });

  it('reads a leading colon as link syntax: [[:Category:X]] links the category page', () => {
    expect(normalizeTitle(':Category:Explorers')).toBe('Category:Explorers');
    expect(parseLinks('See [[:Category:Explorers|explorers]].')).toEqual([
      { target: 'Category:Explorers', label: 'explorers' },
    ]);
  });

  it('makes a title well-formed, so that every title has a URL', () => {
    expect(normalizeTitle('Veldoria\ud800')).toBe('Veldoria\ufffd');
    expect(() => articlePath('\udc00Veldoria')).not.toThrow();
  });
});
