import { foldLookAlikes } from './fold-look-alikes';

describe('foldLookAlikes', () => {
  it('reads look-alike letters, full-width and mathematical forms as the Latin letters they show', () => {
    expect(foldLookAlikes('D\u0415AL')).toBe('DEAL'); // Cyrillic Е
    expect(foldLookAlikes('n\u043et')).toBe('not'); // Cyrillic о
    expect(foldLookAlikes('\u0392\u03a5\u0395')).toBe('BYE'); // Greek capitals
    expect(foldLookAlikes('\uff44\uff45\uff41\uff4c')).toBe('deal'); // full-width
    expect(foldLookAlikes('\u{1d41d}\u{1d41e}\u{1d41a}\u{1d425}')).toBe('deal'); // mathematical bold
    expect(foldLookAlikes('de\u200bal')).toBe('deal'); // a zero-width space
  });

  it('leaves plain English text as it is (the simulated roles read exactly as before)', () => {
    const text = "Fine, I'll take it. How do I pay? It's 89 dollars, isn\u2019t it?";
    expect(foldLookAlikes(text)).toBe(text);
  });
});
