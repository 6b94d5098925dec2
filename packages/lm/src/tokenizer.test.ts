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
});
