import { articlePath, escapeText, normalizeTitle, parseLinks, splitLinks, stripLinks } from './article';

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

  it('reads a title in NFC, as MediaWiki does: an accent typed as a combining mark is the same title', () => {
    expect(normalizeTitle('Cafe\u0301')).toBe('Caf\u00e9');
    expect(normalizeTitle('e\u0301cole_normale')).toBe('\u00c9cole normale');
    expect(articlePath('Cafe\u0301')).toBe(articlePath('Caf\u00e9'));
  });

  it('decodes percent-escapes in a link target, as MediaWiki does, leaving a % that escapes nothing', () => {
    expect(
      parseLinks('[[Caf%C3%A9]], [[New%20York|the city]], [[Paris%23History]], [[100%]] and [[%E9t%C3%A9]]'),
    ).toEqual([
      { target: 'Caf\u00e9', label: 'Caf\u00e9' },
      { target: 'New York', label: 'the city' },
      { target: 'Paris', label: 'Paris#History' },
      { target: '100%', label: '100%' },
      { target: '%E9t\u00e9', label: '%E9t\u00e9' },
    ]);
  });

  it('drops bidirectional marks, as MediaWiki does: a right-to-left title copied with them is the same title', () => {
    expect(normalizeTitle('\u200f\u05e9\u05dc\u05d5\u05dd\u200e')).toBe('\u05e9\u05dc\u05d5\u05dd');
    expect(normalizeTitle('\u202bTel Aviv\u202c')).toBe('Tel Aviv');
  });

  it('makes a title well-formed, so that every title has a URL', () => {
    expect(normalizeTitle('Veldoria\ud800')).toBe('Veldoria\ufffd');
    expect(() => articlePath('\udc00Veldoria')).not.toThrow();
  });
});

describe('escapes of link syntax in corpus text (escapeText)', () => {
  it('writes plain text so that it reads back as itself, with no link', () => {
    for (const text of ['a [[b]] c', '[[[x]]]', 'x &#91; y &#38; z &#93;', 'a [b] [', 'AT&T & [[']) {
      const escaped = escapeText(text);
      expect({ text, links: parseLinks(escaped), read: stripLinks(escaped) }).toEqual({ text, links: [], read: text });
    }
    expect(escapeText('Lyon [b] and AT&T')).toBe('Lyon [b] and AT&T'); // unchanged where nothing needs it
  });

  it('reads an escaped bracket in a link label, and a link right after an escaped one', () => {
    expect(splitLinks('&#91;[[Lyon|the &#91;old&#93; city]]')).toEqual([
      '[',
      { target: 'Lyon', label: 'the [old] city' },
    ]);
  });
});
