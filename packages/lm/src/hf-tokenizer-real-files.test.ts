import { HfTokenizer } from './hf-tokenizer';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

/**
 * A SentencePiece-style tokenizer.json as tokenizers >= 0.14 writes Llama-2's and Mistral's: normalizer
 * Prepend("▁") + Replace(" " → "▁"), BPE with byte_fallback over `<0x00>`…`<0xFF>`, decoder Replace + ByteFallback +
 * Fuse + Strip. Expected strings are HF `tokenizers`' algorithm worked by hand.
 */
function sentencePieceStyle(): HfTokenizer {
  const vocab: Record<string, number> = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  for (let byte = 0; byte < 256; byte++) vocab[`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`] = 3 + byte;
  const merges = [
    ['▁', 'H'],
    ['▁H', 'i'],
    ['▁', 'w'],
  ];
  for (const piece of ['▁', 'H', 'i', 'w', '▁H', '▁Hi', '▁w']) vocab[piece] = Object.keys(vocab).length;
  const special = (content: string, id: number): Record<string, unknown> => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return new HfTokenizer(
    {
      version: '1.0',
      added_tokens: [special('<unk>', 0), special('<s>', 1), special('</s>', 2)],
      normalizer: {
        type: 'Sequence',
        normalizers: [
          { type: 'Prepend', prepend: '▁' },
          { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
        ],
      },
      pre_tokenizer: null,
      post_processor: null,
      decoder: {
        type: 'Sequence',
        decoders: [
          { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
          { type: 'ByteFallback' },
          { type: 'Fuse' },
          { type: 'Strip', content: ' ', start: 1, stop: 0 },
        ],
      },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: '<unk>',
        continuing_subword_prefix: null,
        end_of_word_suffix: null,
        fuse_unk: true,
        byte_fallback: true,
        ignore_merges: false,
        vocab,
        merges: merges.map((pair) => pair.join(' ')),
      },
    },
    { bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>' },
  );
}

const byte = (value: number): number => 3 + value;

describe('HfTokenizer.decode as HF tokenizers decodes', () => {
  const tokenizer = sentencePieceStyle();
  const hi = tokenizer.encode('Hi');

  it('encodes with byte fallback and decodes back', () => {
    expect(hi).toEqual([264]); // "▁Hi"
    // 中 is not in the vocabulary: its three UTF-8 bytes as byte tokens.
    expect(tokenizer.encode('Hi 中')).toEqual([264, 259, byte(0xe4), byte(0xb8), byte(0xad)]);
    expect(tokenizer.decode(tokenizer.encode('Hi 中'))).toBe('Hi 中');
  });

  it('leaves out ids the tokenizer has no token for, instead of writing <unk>', () => {
    // A model's embedding padded past the tokenizer (vocab_size 32064 for 32000 tokens) can sample such an id;
    // HF's decode drops it (filter_map over id_to_token).
    expect(tokenizer.vocabSize).toBe(266);
    expect(tokenizer.decode([...hi, 300, ...tokenizer.encode('w')])).toBe('Hi w');
    expect(tokenizer.decode([300])).toBe('');
    expect(tokenizer.tokenText(5000)).toBe('');
    // The real <unk> token still decodes as itself.
    expect(tokenizer.decode([0])).toBe('<unk>');
    expect(() => tokenizer.decode([1.5])).toThrow(RangeError);
  });

  it('writes one U+FFFD per byte token of a broken character, and keeps a byte-order mark', () => {
    // A reply cut after two of 中's three bytes: String::from_utf8 fails, each byte token becomes U+FFFD.
    expect(tokenizer.decode([...hi, byte(0xe4), byte(0xb8)])).toBe('Hi\uFFFD\uFFFD');
    expect(tokenizer.decode([byte(0xe4), byte(0x41)])).toBe('\uFFFD\uFFFD');
    expect(tokenizer.tokenText(byte(0xe4))).toBe('\uFFFD');
    // EF BB BF is U+FEFF, which from_utf8 keeps; a TextDecoder drops it by default.
    expect(tokenizer.decode([byte(0xef), byte(0xbb), byte(0xbf), ...hi])).toBe('\uFEFF Hi');
  });
});

describe('HfTokenizer merges, checked as HF tokenizers checks them', () => {
  /** A byte-level BPE over the vocabulary a, b, c (no unk_token, as GPT-2, Llama-3 and Qwen2 ship). */
  const byteLevel = (merges: unknown[], vocab: Record<string, number> = { a: 0, b: 1, c: 2 }): HfTokenizer =>
    new HfTokenizer({
      version: '1.0',
      added_tokens: [],
      normalizer: null,
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      post_processor: null,
      decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      model: { type: 'BPE', dropout: null, unk_token: null, byte_fallback: false, vocab, merges },
    });

  it('applies merges in both formats alike', () => {
    const vocab = { a: 0, b: 1, c: 2, ab: 3, abc: 4 };
    for (const merges of [
      ['a b', 'ab c'],
      [
        ['a', 'b'],
        ['ab', 'c'],
      ],
      ['#version: 0.2', 'a b', 'ab c'],
    ]) {
      const tokenizer = byteLevel(merges, vocab);
      expect(tokenizer.encode('abcab')).toEqual([4, 3]);
      expect(tokenizer.decode([4, 3])).toBe('abcab');
    }
  });

  it('refuses a merge whose tokens are not in the vocabulary, which made text vanish', () => {
    // Loaded, "abc" encoded to [2]: the merged "ab" has no id and there is no unk_token, so it was dropped.
    expect(() => byteLevel(['a b'])).toThrow(/merges\[0\] "a b" needs "ab", which is not in the vocab/);
    expect(() => byteLevel([['a', 'x']], { a: 0, ax: 1 })).toThrow(/merges\[0\] \["a","x"\] needs "x"/);
  });

  it('refuses merges that are not one format of well-formed pairs', () => {
    const vocab = { a: 0, b: 1, c: 2, ab: 3, bc: 4 };
    // A pair after string merges was never applied (it was looked up as a string).
    expect(() => byteLevel(['a b', ['b', 'c']], vocab)).toThrow(/merges\[1\] is \["b","c"\]; expected an "a b" string/);
    expect(() => byteLevel(['b c', 'a b c'], vocab)).toThrow(/merges\[1\] is "a b c"; expected an "a b" string/);
    expect(() => byteLevel([['a', 'b'], 'b c'], vocab)).toThrow(/merges\[1\] is "b c"; expected an \[a, b\] pair/);
  });
});

describe('HfTokenizer.decode of byte-level tokens', () => {
  it('decodes a vocabulary token outside the byte table as its own text, as HF does', () => {
    // HF's ByteLevel decoder takes such a token's UTF-8 bytes; the library mapped each unknown character to byte 0.
    const { json, config } = smallBpeTokenizer();
    const model = json.model as { vocab: Record<string, number> };
    const tokenizer = new HfTokenizer(
      { ...json, model: { ...model, vocab: { ...model.vocab, '中 文': 1000 } } },
      config,
    );
    const hello = tokenizer.encode('hello');
    expect(tokenizer.decode([...hello, 1000, ...hello])).toBe('hello中 文hello');
    expect(tokenizer.tokenText(1000)).toBe('中 文');
    // Byte-table tokens still decode through it: "Ġw" is " w", and a lone lead byte of 中 (0xE4 is "ä") is U+FFFD.
    expect(tokenizer.decode(tokenizer.encode(' w'))).toBe(' w');
    expect(tokenizer.decode([0xe4])).toBe('\uFFFD');
  });
});

describe('HfTokenizer chat_template forms', () => {
  const withTemplate = (chatTemplate: unknown): HfTokenizer => {
    const { json, config } = smallBpeTokenizer();
    return new HfTokenizer(json, { ...config, chat_template: chatTemplate });
  };
  const messages = [{ role: 'user' as const, content: 'hi' }];

  it('takes the template named "default" from the list form', () => {
    const tokenizer = withTemplate([
      { name: 'tool_use', template: 'TOOLS' },
      { name: 'default', template: '{{ messages[0].content }}!' },
    ]);
    expect(tokenizer.applyChatTemplate(messages)).toBe('hi!');
  });

  it('renders no template from a list without "default", as transformers, saying why', () => {
    // The first entry was rendered instead: the tool-use template for a plain chat.
    const tokenizer = withTemplate([{ name: 'tool_use', template: 'TOOLS' }]);
    expect(tokenizer.chatTemplate).toBeNull();
    expect(() => tokenizer.applyChatTemplate(messages)).toThrow(/lists "tool_use" but none named "default"/);
  });

  it('refuses list entries and values that are not templates, naming the field', () => {
    // [null] crashed with a TypeError; a number or an object was taken for no template at all.
    expect(() => withTemplate([null])).toThrow(/"chat_template"\[0\] must be \{"name": …, "template": …\} strings/);
    expect(() => withTemplate(['x'])).toThrow(/"chat_template"\[0\] must be/);
    expect(() => withTemplate(5)).toThrow(/"chat_template" must be a string or a list, got number/);
  });
});

describe('HfTokenizer Metaspace, as HF tokenizers runs it', () => {
  // SentencePiece pieces with a merge "▁ ▁": across a word boundary it would join two spaces.
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2, '▁': 3, H: 4, i: 5, '▁▁': 6, '▁H': 7, '▁Hi': 8, w: 9, '▁w': 10 };
  const metaspace = (component: Record<string, unknown>): HfTokenizer =>
    new HfTokenizer({
      version: '1.0',
      added_tokens: [],
      normalizer: null,
      pre_tokenizer: component,
      post_processor: null,
      decoder: component,
      model: { type: 'BPE', unk_token: '<unk>', vocab, merges: ['▁ ▁', '▁ H', '▁H i', '▁ w'] },
    });

  it('splits before each "▁" when split is true (the legacy format\'s default)', () => {
    // "▁Hi▁▁w" cut into "▁Hi", "▁", "▁w" (MergedWithNext); unsplit, BPE gave "▁Hi", "▁▁", "w".
    const legacy = metaspace({ type: 'Metaspace', replacement: '▁', add_prefix_space: true });
    expect(legacy.encode('Hi  w')).toEqual([8, 3, 10]);
    expect(legacy.decode([8, 3, 10])).toBe('Hi  w');
    const unsplit = metaspace({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false });
    expect(unsplit.encode('Hi  w')).toEqual([8, 6, 9]);
  });

  it('reads the legacy add_prefix_space false as the prepend scheme "never", encoding and decoding', () => {
    const never = metaspace({ type: 'Metaspace', replacement: '▁', add_prefix_space: false });
    expect(never.encode('Hi w')).toEqual([4, 5, 10]);
    // HF's decoder keeps the first token's space under "never"; otherwise it drops every "▁" of the first token.
    expect(never.decode([10, 8])).toBe(' w Hi');
    const always = metaspace({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true });
    expect(always.decode([6, 8])).toBe(' Hi');
  });
});
