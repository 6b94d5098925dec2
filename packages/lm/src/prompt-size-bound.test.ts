import { ByteTokenizer } from './byte-tokenizer';
import { HfTokenizer } from './hf-tokenizer';
import { ContextLengthError } from './lm-errors';
import { PromptTooLongError, refuseUnfittablePrompt } from './prompt-size-bound';
import type { Tokenizer } from './tokenizer';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

type Json = Record<string, unknown>;

/**
 * A Llama-3-style byte-level BPE: the Llama-3 split regex, and merges that make runs of up to 64 spaces one token,
 * so that a long run of spaces is one word BPE merges step by step (the slow case). `edit` changes the JSON.
 */
function llama3Style(edit: (json: Json) => void = () => {}): HfTokenizer {
  const { json, config } = smallBpeTokenizer();
  const model = json.model as { vocab: Record<string, number>; merges: string[] };
  let next = Object.values(model.vocab).reduce((most, id) => Math.max(most, id), 0) + 1;
  let piece = 'Ġ';
  const merges = [...model.merges];
  for (let i = 0; i < 6; i++) {
    merges.push(`${piece} ${piece}`);
    piece += piece;
    model.vocab[piece] = next++;
  }
  model.merges = merges;
  for (const token of json.added_tokens as { id: number }[]) token.id = next++;
  json.pre_tokenizer = {
    type: 'Sequence',
    pretokenizers: [
      {
        type: 'Split',
        pattern: {
          Regex:
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        },
        behavior: 'Isolated',
        invert: false,
      },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
    ],
  };
  edit(json);
  return new HfTokenizer(json, config);
}

/** Adds merges that make up to 2^doublings copies of the byte-level `piece` one token. */
function addRuns(json: Json, piece: string, doublings: number): void {
  const model = json.model as { vocab: Record<string, number>; merges: string[] };
  const ids = [...Object.values(model.vocab), ...(json.added_tokens as { id: number }[]).map((token) => token.id)];
  let next = ids.reduce((most, id) => Math.max(most, id), 0) + 1;
  const [first, ...rest] = [...piece];
  let joined = first!;
  for (const char of rest) {
    model.merges.push(`${joined} ${char}`);
    joined += char;
    model.vocab[joined] = next++;
  }
  for (let i = 0; i < doublings; i++) {
    model.merges.push(`${joined} ${joined}`);
    joined += joined;
    model.vocab[joined] = next++;
  }
}

/** Whether the bound refuses `text` for `limit` tokens. */
function refuses(tokenizer: Tokenizer, text: string, limit: number): boolean {
  try {
    refuseUnfittablePrompt(tokenizer, text, limit);
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(PromptTooLongError);
    return true;
  }
}

describe('refuseUnfittablePrompt', () => {
  it('refuses a huge run of spaces for a small context without tokenizing it, as a ContextLengthError', () => {
    const tokenizer = llama3Style();
    const encode = jest.spyOn(tokenizer, 'encode');
    const text = ' '.repeat(200_000);
    let caught: unknown;
    try {
      refuseUnfittablePrompt(tokenizer, text, 512);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ContextLengthError);
    expect(caught).toMatchObject({ code: 'CONTEXT_LENGTH_EXCEEDED', limit: 512 });
    expect((caught as PromptTooLongError).length).toBeGreaterThan(512);
    expect((caught as Error).message).toMatch(
      /^The prompt has at least \d+ tokens \(200000 bytes, .*max_position_embeddings = 512\.$/,
    );
    expect(encode).not.toHaveBeenCalled();
  });

  it('is exported from the package, so a caller can tell a refusal from the bytes apart', async () => {
    const lm = await import('./index');
    expect(lm.PromptTooLongError).toBe(PromptTooLongError);
    expect(() => refuseUnfittablePrompt(llama3Style(), ' '.repeat(200_000), 512)).toThrow(lm.PromptTooLongError);
  });

  it('never refuses a text that fits: each refusal is checked against the real token count', () => {
    const cases: [string, Tokenizer, string[]][] = [
      ['byte-level BPE', llama3Style(), []],
      ['byte tokenizer', new ByteTokenizer(), []],
      // NFC composes "e" + U+0301 (3 bytes) into "é" (2 bytes): the bound measures the normalized text.
      [
        'NFC normalizer',
        llama3Style((json) => {
          json.normalizer = { type: 'NFC' };
          addRuns(json, 'Ã©', 5); // "é" × 32 (64 bytes) is one token
        }),
        [],
      ],
      // An added token with lstrip/rstrip swallows any whitespace beside it into itself.
      [
        'whitespace-swallowing added token',
        llama3Style((json) => {
          for (const token of json.added_tokens as Json[]) Object.assign(token, { lstrip: true, rstrip: true });
        }),
        ['<|end|>'],
      ],
    ];
    for (const [name, tokenizer, specials] of cases) {
      const texts = [
        ' '.repeat(3000),
        ' '.repeat(64 * 50),
        'hello world '.repeat(300),
        'e\u0301'.repeat(1500),
        '\u1100\u1161\u11a8'.repeat(800),
        'a'.repeat(3000),
        '😀'.repeat(700),
        ...specials.map((special) => ` ${' '.repeat(3000)}${special}${' '.repeat(3000)}x`),
      ];
      for (const text of texts) {
        const count = tokenizer.encode(text, { addSpecialTokens: true }).length;
        for (const limit of [1, 2, Math.floor(count / 70), Math.floor(count / 4), count - 1, count, count * 2]) {
          if (limit < 1) continue;
          // A refusal must be right; where it does not refuse, the tokenizer decides as before.
          if (refuses(tokenizer, text, limit)) {
            expect({ name, text: text.slice(0, 20), limit, count, fits: count <= limit }).toMatchObject({
              fits: false,
            });
          }
        }
        expect({ name, refusedAtItsOwnCount: refuses(tokenizer, text, count) }).toEqual({
          name,
          refusedAtItsOwnCount: false,
        });
      }
    }
  });

  it('refuses far-too-long text for each of those tokenizers, and nothing where tokens are unbounded', () => {
    expect(refuses(llama3Style(), ' '.repeat(100_000), 100)).toBe(true);
    expect(refuses(new ByteTokenizer(), 'x'.repeat(100_000), 100)).toBe(true);
    expect(
      refuses(
        llama3Style((json) => (json.normalizer = { type: 'NFC' })),
        'e\u0301'.repeat(50_000),
        100,
      ),
    ).toBe(true);
    // Whitespace-only splitting drops the spaces: 100k of them are no tokens at all, so no bound holds.
    const dropsSpaces = llama3Style((json) => (json.pre_tokenizer = { type: 'WhitespaceSplit' }));
    expect(refuses(dropsSpaces, ' '.repeat(100_000), 100)).toBe(false);
  });
});
