import { ByteTokenizer } from './byte-tokenizer';
import { StreamedText } from './streamed-text';

/**
 * Feeds `tokens` one at a time, as decoder passes draw them, until the text holds a stop (where generation ends);
 * returns the deltas sent, then `finish(final)`'s.
 */
function stream(tokens: readonly number[], final: string, stops: readonly string[] = []): string[] {
  const tokenizer = new ByteTokenizer();
  const text = new StreamedText(stops);
  const deltas: string[] = [];
  for (let t = 1; t <= tokens.length; t++) {
    const decoded = tokenizer.decode(tokens.slice(0, t));
    if (stops.some((stop) => decoded.includes(stop))) break;
    deltas.push(text.next(decoded));
  }
  deltas.push(text.finish(final));
  return deltas;
}

describe('StreamedText: what a stream may send of a completion still decoding', () => {
  const tokenizer = new ByteTokenizer();

  it('never sends part of a character split across tokens, and sends each one once it is whole', () => {
    // é is 2 bytes, € 3, 😀 4: with byte tokens, each arrives over several passes.
    const text = 'é€ a😀!';
    const deltas = stream(tokenizer.encode(text), text);
    expect(deltas.join('')).toBe(text);
    for (const delta of deltas) expect(delta).not.toContain('\uFFFD');
    expect(deltas.filter((delta) => delta !== '')).toEqual(['é', '€', ' ', 'a', '😀', '!']);
  });

  it('holds back what may start a stop sequence, and never sends the stop a completion ends at', () => {
    // The stop "END" spans three tokens; "E" and "EN" are held until the next token shows they are not a stop.
    const tokens = tokenizer.encode('ab ENx END');
    const deltas = stream(tokens, 'ab ENx ', ['END']);
    expect(deltas.join('')).toBe('ab ENx ');
    // "EN" went out only with the "x" that showed it was not the stop.
    expect(deltas).toContain('ENx');
    expect(deltas.slice(0, -1).join('')).toBe('ab ENx ');
  });

  it('holds back the longest suffix a stop starts with, where the stop repeats itself', () => {
    const text = new StreamedText(['aab', 'xyxyz']);
    // "aa" may become "aab"; "xyxy" may become "xyxyz".
    expect(text.next('caaa')).toBe('ca');
    expect(text.next('caaac')).toBe('aac');
    expect(text.next('caaacxyxyxy')).toBe('xy');
    expect(text.finish('caaacxyxyxy')).toBe('xyxy');
  });

  it('sends a character that starts a multi-byte stop only once the stop is ruled out', () => {
    const tokens = tokenizer.encode('aéb');
    expect(stream(tokens, 'a', ['é']).join('')).toBe('a');
    expect(stream(tokenizer.encode('aèb'), 'aèb', ['é']).join('')).toBe('aèb');
  });

  it('sends invalid bytes that no later token completes, at the latest when the completion ends', () => {
    // 0xff is never part of a UTF-8 character: the final text has U+FFFD, and so does what was sent.
    const tokens = [97, 0xff];
    const final = tokenizer.decode(tokens);
    expect(stream(tokens, final).join('')).toBe(final);
    const deltas = stream([97, 0xff, 98], tokenizer.decode([97, 0xff, 98]));
    expect(deltas.join('')).toBe('a\uFFFDb');
  });

  it('sends nothing for an empty completion', () => {
    expect(stream([], '').join('')).toBe('');
    expect(stream(tokenizer.encode('END'), '', ['END']).join('')).toBe('');
  });
});
