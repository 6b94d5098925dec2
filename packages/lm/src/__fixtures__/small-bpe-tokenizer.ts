import { bytesToUnicode } from '../internal/bytes-to-unicode';

/** A byte-level BPE tokenizer.json with a few merges and a Llama-3-like template using bos_token. */
export function smallBpeTokenizer(extraTokens = 0): { json: Record<string, unknown>; config: Record<string, unknown> } {
  const vocab: Record<string, number> = {};
  bytesToUnicode().forEach((char, byte) => {
    vocab[char] = byte;
  });
  const merges = ['h e', 'l l', 'he ll', 'Ġ w'];
  let next = 256;
  for (const merge of merges) vocab[merge.replace(' ', '')] = next++;
  for (let i = 0; i < extraTokens; i++) vocab[`extra${i}`] = next++;
  const special = ['<|begin|>', '<|end|>'];
  return {
    json: {
      version: '1.0',
      added_tokens: special.map((content, index) => ({
        id: next + index,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: null,
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      post_processor: null,
      decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: null,
        end_of_word_suffix: null,
        fuse_unk: false,
        byte_fallback: false,
        vocab,
        merges,
      },
    },
    config: {
      bos_token: '<|begin|>',
      eos_token: { content: '<|end|>' },
      chat_template:
        "{{ bos_token }}{% for m in messages %}<{{ m['role'] }}>{{ m['content'] | trim }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}",
    },
  };
}
