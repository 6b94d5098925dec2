import { SeededRng } from '@turngym/core';
import { ByteTokenizer } from './byte-tokenizer';
import { textOffsets } from './completion-logprobs';
import { HfTokenizer } from './hf-tokenizer';
import type { Tokenizer } from './tokenizer';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

/** Where token i starts by definition: the tokens before it decoded, a broken character at the end left out. */
function exactOffsets(tokenizer: Tokenizer, tokens: readonly number[], start: number): number[] {
  return tokens.map((_, i) => start + tokenizer.decode(tokens.slice(0, i)).replace(/\uFFFD+$/u, '').length);
}

describe('textOffsets', () => {
  const byte = new ByteTokenizer();
  const { json, config } = smallBpeTokenizer();
  const bpe = new HfTokenizer(json, config);

  it("gives each token's start in the text, a character split across tokens starting where it does", () => {
    const tokens = byte.encode('aé€😀b');
    expect(textOffsets(byte, tokens, 0, tokens.length, 0)).toEqual([0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 5]);
    // After a 4-character echo, and from a later token (a stream's next chunk).
    expect(textOffsets(byte, tokens, 6, tokens.length, 4)).toEqual([7, 7, 7, 7, 9]);
    // Cut by a stop sequence: none past the text's end.
    expect(textOffsets(byte, tokens, 0, tokens.length, 0, 2)).toEqual([0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2]);
  });

  it('agrees with decoding every prefix, over long texts of either tokenizer', () => {
    const rng = new SeededRng(4);
    const pieces = ['hello', ' world', ' ', 'é', '😀', '€', '\n', 'x'];
    const text = Array.from({ length: 400 }, () => pieces[rng.int(0, pieces.length - 1)]).join('');
    for (const tokenizer of [byte, bpe]) {
      const tokens = tokenizer.encode(text);
      expect(tokens.length).toBeGreaterThan(200);
      const exact = exactOffsets(tokenizer, tokens, 3);
      expect(textOffsets(tokenizer, tokens, 0, tokens.length, 3)).toEqual(exact);
      expect(textOffsets(tokenizer, tokens, 150, tokens.length, 3)).toEqual(exact.slice(150));
      // Any ids at all, broken characters included.
      const random = Array.from({ length: 300 }, () => rng.int(0, 255));
      expect(textOffsets(tokenizer, random, 0, random.length, 0)).toEqual(exactOffsets(tokenizer, random, 0));
    }
  });
});
