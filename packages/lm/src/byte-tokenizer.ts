import type { ChatMessage } from '@turngym/spec';
import { CHATML_TEMPLATE, renderChatTemplate } from './chat-template';
import { bytesToUnicode } from './internal/bytes-to-unicode';
import type { ChatTemplateOptions, Tokenizer } from './tokenizer';

/** The special tokens of the byte tokenizer, at ids 256 upwards. */
export const BYTE_SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;

/** Vocabulary of the byte tokenizer: 256 bytes + 3 special tokens, padded to a multiple of 8 for matmuls. */
export const BYTE_VOCAB_SIZE = 264;

const ENDOFTEXT = 256;
const IM_END = 258;

/**
 * Text as UTF-8 bytes (ids 0–255) plus ChatML's special tokens. Needs no vocabulary file, so the tiny
 * configs train from nothing; `toHfFiles()` writes an equivalent byte-level BPE `tokenizer.json` (no
 * merges) that @huggingface/tokenizers and `transformers` load with the same ids.
 */
export class ByteTokenizer implements Tokenizer {
  readonly vocabSize = BYTE_VOCAB_SIZE;
  readonly eosTokenIds: readonly number[] = [IM_END, ENDOFTEXT];
  readonly bosTokenId = null;
  readonly padTokenId = ENDOFTEXT;
  readonly chatTemplate = CHATML_TEMPLATE;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8');
  private readonly splitter = new RegExp(
    `(${BYTE_SPECIAL_TOKENS.map((token) => token.replace(/[|]/g, '\\|')).join('|')})`,
  );

  encode(text: string): number[] {
    const ids: number[] = [];
    for (const part of text.split(this.splitter)) {
      if (part === '') continue;
      const special = BYTE_SPECIAL_TOKENS.indexOf(part as (typeof BYTE_SPECIAL_TOKENS)[number]);
      if (special >= 0) ids.push(256 + special);
      else for (const byte of this.encoder.encode(part)) ids.push(byte);
    }
    return ids;
  }

  decode(ids: readonly number[], options: { skipSpecialTokens?: boolean } = {}): string {
    let text = '';
    let bytes: number[] = [];
    const flush = (): void => {
      if (bytes.length > 0) text += this.decoder.decode(Uint8Array.from(bytes));
      bytes = [];
    };
    for (const id of ids) {
      if (id < 256) bytes.push(id);
      else {
        flush();
        if (!options.skipSpecialTokens) text += BYTE_SPECIAL_TOKENS[id - 256] ?? '';
      }
    }
    flush();
    return text;
  }

  tokenText(id: number): string {
    return this.decode([id]);
  }

  applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
    return renderChatTemplate(this.chatTemplate, messages, { ...options, eosToken: '<|endoftext|>' });
  }

  toHfFiles(): { tokenizerJson: Record<string, unknown>; tokenizerConfig: Record<string, unknown> } {
    const table = bytesToUnicode();
    const vocab: Record<string, number> = {};
    table.forEach((char, byte) => {
      vocab[char] = byte;
    });
    const addedTokens = BYTE_SPECIAL_TOKENS.map((content, index) => ({
      id: 256 + index,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    }));
    return {
      tokenizerJson: {
        version: '1.0',
        truncation: null,
        padding: null,
        added_tokens: addedTokens,
        normalizer: null,
        pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
        post_processor: null,
        decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
        model: {
          type: 'BPE',
          dropout: null,
          unk_token: null,
          continuing_subword_prefix: null,
          end_of_word_suffix: null,
          fuse_unk: false,
          byte_fallback: false,
          ignore_merges: false,
          vocab,
          merges: [],
        },
      },
      tokenizerConfig: {
        tokenizer_class: 'PreTrainedTokenizerFast',
        eos_token: '<|im_end|>',
        pad_token: '<|endoftext|>',
        bos_token: null,
        chat_template: this.chatTemplate,
        model_max_length: 1024,
        added_tokens_decoder: Object.fromEntries(addedTokens.map(({ id, ...rest }) => [String(id), rest])),
      },
    };
  }
}
