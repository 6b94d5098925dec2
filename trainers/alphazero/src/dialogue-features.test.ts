import { SellerEnv } from '@turngym/env-seller';
import { DialogueEncoder, TranscriptRecorder, WORD_BUCKETS, type Transcript } from './index';

/** The three bags of words at the end of the vector: opening, whole dialogue, last observation. */
function bags(encoder: DialogueEncoder, transcript: Transcript): number[][] {
  const vector = [...encoder.encode(transcript, {})];
  const start = encoder.size - 3 * WORD_BUCKETS;
  return [0, 1, 2].map((bag) =>
    vector.slice(start + bag * WORD_BUCKETS, start + (bag + 1) * WORD_BUCKETS).map((value) => Math.expm1(value)),
  );
}

const said = (observation: string): Transcript => ({
  opening: 'Pick the first meta-action.',
  openingInfo: {},
  steps: [{ action: 0, observation, info: {} }],
});

/** A sum of every feature weighted by its position: equal vectors, equal sums; any moved feature changes it. */
function checksum(vectors: Float32Array[]): number {
  let sum = 0;
  vectors.forEach((vector, row) => vector.forEach((value, index) => (sum += value * ((index % 97) + 1) * (row + 1))));
  return sum;
}

describe('DialogueEncoder', () => {
  it('with unicode text features reads words of any script and prices, which the ascii reading drops', () => {
    const ascii = new DialogueEncoder(9, 8);
    const unicode = new DialogueEncoder(9, 8, 'unicode');
    for (const words of [
      'Seller: Привет! Это отличный рюкзак.\nBuyer: Сколько он стоит?',
      'Seller: これはとても軽いです。\nBuyer: 値段は？',
      'Seller: It costs $49.99.\nBuyer: 49,99 € is too much.',
    ]) {
      const dialogueAscii = bags(ascii, said(words))[1]!;
      const dialogueUnicode = bags(unicode, said(words))[1]!;
      const count = (bag: number[]) => Math.round(bag.reduce((sum, value) => sum + value, 0));
      // Every word, number and currency sign is counted once; ascii counts only "seller", "buyer" and English words.
      const expected = (words.normalize('NFKC').match(/\p{Sc}|\p{Nd}+(?:[.,]\p{Nd}+)*|[\p{L}']+/gu) ?? []).length;
      if (/[а-я]/.test(words)) expect(count(dialogueUnicode)).toBe(expected);
      expect(count(dialogueUnicode)).toBeGreaterThan(count(dialogueAscii));
    }
    // A price is one word: "$49.99" and "49.99" share the number's bucket, and differ from "$59.99".
    const price = (text: string) => bags(unicode, said(text))[1]!;
    expect(price('49.99')).not.toEqual(price('59.99'));
    expect(price('It costs $49.99.')).not.toEqual(price('It costs $59.99.'));
    // Full-width letters and digits are the same words as their ASCII forms (NFKC).
    expect(price('ｄｅａｌ ４９')).toEqual(price('deal 49'));
  });

  it('keeps the measured ascii reading the default, feature for feature, on seller dialogues (guard)', async () => {
    // The README's results and any network trained before textFeatures existed read this encoding: a pinned
    // checksum of the features of three simulated seller episodes, computed with the encoder before the option.
    const env = new TranscriptRecorder(new SellerEnv({ split: 'train' }));
    const encoder = new DialogueEncoder(env.spec.actionSpace.type === 'discrete' ? env.spec.actionSpace.n : 0, 8);
    const vectors: Float32Array[] = [];
    for (const seed of [1, 2, 3]) {
      let { info } = await env.reset({ seed });
      vectors.push(encoder.encode(env.transcript, info));
      for (const action of [0, 3, 1, 8, 2, 4, 2, 1]) {
        const step = await env.step(action);
        info = step.info;
        vectors.push(encoder.encode(env.transcript, info));
        if (step.terminated || step.truncated) break;
      }
    }
    await env.close();
    expect(vectors.length).toBe(PINNED.states);
    expect(checksum(vectors)).toBeCloseTo(PINNED.checksum, 3);
  });

  it('says what its vector means, so a network is not read with other settings', () => {
    expect(new DialogueEncoder(9, 8).settings).toEqual({
      actions: 9,
      maxTurns: 8,
      textFeatures: 'ascii',
      wordBuckets: WORD_BUCKETS,
    });
    expect(new DialogueEncoder(9, 12, 'unicode').settings).toMatchObject({ maxTurns: 12, textFeatures: 'unicode' });
  });
});

const PINNED = { states: 23, checksum: 1541011.159993589 };
