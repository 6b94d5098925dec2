import { ByteTokenizer } from './byte-tokenizer';
import { HfTokenizer } from './hf-tokenizer';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

const messages = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Hi ✓' },
];

describe('ByteTokenizer', () => {
  const tokenizer = new ByteTokenizer();

  it('encodes UTF-8 bytes and special tokens, and decodes back', () => {
    const text = '<|im_start|>user\nhé ✓<|im_end|>';
    const ids = tokenizer.encode(text);
    expect(ids.slice(0, 2)).toEqual([257, 117]);
    expect(ids).toContain(258);
    expect(ids.filter((id) => id < 256)).toEqual([...new TextEncoder().encode('user\nhé ✓')]);
    expect(tokenizer.decode(ids)).toBe(text);
    expect(tokenizer.decode(ids, { skipSpecialTokens: true })).toBe('user\nhé ✓');
  });

  it('renders the ChatML template', () => {
    expect(tokenizer.applyChatTemplate(messages)).toBe(
      '<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHi ✓<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(tokenizer.applyChatTemplate(messages, { addGenerationPrompt: false }).endsWith('<|im_end|>\n')).toBe(true);
  });

  it('writes a tokenizer.json that @huggingface/tokenizers reads with the same ids', () => {
    const { tokenizerJson, tokenizerConfig } = tokenizer.toHfFiles();
    const hf = new HfTokenizer(tokenizerJson, tokenizerConfig);
    const text = tokenizer.applyChatTemplate(messages) + 'Sure — 3 × 4 = 12.\n\tok';
    expect(hf.encode(text)).toEqual(tokenizer.encode(text));
    expect(hf.decode(tokenizer.encode(text))).toBe(text);
    // A reply that is only its end-of-turn token has empty text, as with the byte tokenizer.
    expect(hf.decode([])).toBe(tokenizer.decode([]));
    expect(hf.vocabSize).toBe(259);
    expect(hf.eosTokenIds).toEqual([258]);
    expect(hf.applyChatTemplate(messages)).toBe(tokenizer.applyChatTemplate(messages));
  });
});

describe('HfTokenizer', () => {
  it('applies merges, special tokens and the chat template from tokenizer_config.json', () => {
    const { json, config } = smallBpeTokenizer();
    const tokenizer = new HfTokenizer(json, config, [7]);
    expect(tokenizer.encode('hello world')).toEqual([258, 111, 259, 111, 114, 108, 100]);
    expect(tokenizer.decode(tokenizer.encode('hello world'))).toBe('hello world');
    expect(tokenizer.bosTokenId).toBe(260);
    expect(tokenizer.eosTokenIds).toEqual([261, 7]);
    expect(tokenizer.vocabSize).toBe(262);
    expect(tokenizer.applyChatTemplate(messages)).toBe(
      '<|begin|><system>You are terse.<|end|><user>Hi ✓<|end|><assistant>',
    );
    expect(tokenizer.encode(tokenizer.applyChatTemplate(messages)).slice(0, 2)).toEqual([260, 60]);
  });
  it('round-trips unicode, merges written as pairs, and empty or long text', () => {
    const { json, config } = smallBpeTokenizer();
    const tokenizer = new HfTokenizer(json, config);
    for (const text of ['', '😀👩‍👩‍👧 family', '中文字符', 'e\u0301 café', '<|end|>hi', 'x'.repeat(20_000)])
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    const model = json.model as { merges: string[] };
    const pairs = new HfTokenizer({
      ...json,
      model: { ...model, merges: model.merges.map((merge) => merge.split(' ')) },
    });
    expect(pairs.encode('hello world')).toEqual(tokenizer.encode('hello world'));
  });

  it('refuses tokenizer.json settings it would otherwise apply differently from HF tokenizers, naming them', () => {
    const { json, config } = smallBpeTokenizer();
    const model = json.model as Record<string, unknown>;
    const load = (changes: Record<string, unknown>) => () => new HfTokenizer({ ...json, ...changes }, config);
    const split = (fields: Record<string, unknown>) => ({
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          { type: 'Split', pattern: { String: ' ' }, behavior: 'Isolated', invert: false, ...fields },
          { type: 'ByteLevel', add_prefix_space: false, use_regex: false },
        ],
      },
    });
    expect(load(split({}))).not.toThrow();
    expect(load(split({ behavior: 'MergedWithPrevious' }))).toThrow(
      /tokenizer.json: pre_tokenizer.pretokenizers\[0\] \(Split\) behavior "MergedWithPrevious" is not supported/,
    );
    expect(load(split({ invert: true }))).toThrow(/pre_tokenizer.pretokenizers\[0\] \(Split\) invert true/);
    expect(load(split({ pattern: { Foo: ' ' } }))).toThrow(/pre_tokenizer.pretokenizers\[0\] \(Split\) pattern/);
    expect(load({ normalizer: { type: 'Replace', pattern: {}, content: '' } })).toThrow(
      /normalizer \(Replace\) pattern/,
    );
    expect(load({ model: { ...model, type: 'Foo' } })).toThrow(/model type "Foo" is not supported/);
    expect(load({ model: { ...model, continuing_subword_prefix: '##' } })).toThrow(/continuing_subword_prefix "##"/);
    expect(load({ model: { ...model, merges: undefined } })).toThrow(/tokenizer.json: model "merges" must be a list/);
    const added = [
      { id: 300, content: 'wor', single_word: true, lstrip: false, rstrip: false, normalized: false, special: false },
    ];
    expect(load({ added_tokens: added })).toThrow(/added token "wor" has single_word true/);
    expect(load({ normalizer: { type: 'Foo' } })).toThrow(/Unknown Normalizer type: Foo/);
  });
  it('refuses a chat_template that does not parse when it loads, not on the first chat request', () => {
    const { json, config } = smallBpeTokenizer();
    expect(() => new HfTokenizer(json, { ...config, chat_template: '{% for m in messages %}{{ m.content }' })).toThrow(
      /tokenizer_config.json: "chat_template" is not a valid Jinja template: Parser Error/,
    );
  });
});
