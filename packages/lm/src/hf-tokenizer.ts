import type { Tokenizer as HfTokenizerCoreType } from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import type { ChatMessage } from '@turngym/spec';
import { renderChatTemplate } from './chat-template';
import { CheckpointError } from './lm-errors';
import type { ChatTemplateOptions, Tokenizer } from './tokenizer';

type TokenizersModule = typeof import('@huggingface/tokenizers', { with: { 'resolution-mode': 'import' } });
// The package ships CommonJS too (its `require` export); its types are declared as ESM only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Tokenizer: HfTokenizerCore } = require('@huggingface/tokenizers') as TokenizersModule;

type Json = Record<string, unknown>;

/** `"<|im_end|>"` or `{content: "<|im_end|>", …}` as tokenizer_config.json writes special tokens. */
function tokenString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as Json).content === 'string')
    return (value as Json).content as string;
  return null;
}

/** Picks the chat template: a string, or HF's list form `[{name: 'default', template}]`. */
function chatTemplateOf(config: Json): string | null {
  const raw = config.chat_template;
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw)) {
    const entries = raw as { name?: string; template?: string }[];
    return (entries.find((entry) => entry.name === 'default') ?? entries[0])?.template ?? null;
  }
  return null;
}

/**
 * A tokenizer from HF's `tokenizer.json` (+ `tokenizer_config.json` for special tokens and the chat
 * template), run by @huggingface/tokenizers — pure JavaScript, offline.
 */
export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly eosTokenIds: readonly number[];
  readonly bosTokenId: number | null;
  readonly padTokenId: number;
  readonly chatTemplate: string | null;
  private readonly core: HfTokenizerCoreType;
  private readonly bosToken: string | null;
  private readonly eosToken: string | null;

  /** `extraEosTokenIds`: from generation_config.json / config.json, which often list more stop ids. */
  constructor(
    private readonly tokenizerJson: Json,
    private readonly tokenizerConfig: Json = {},
    extraEosTokenIds: readonly number[] = [],
  ) {
    try {
      this.core = new HfTokenizerCore(tokenizerJson, tokenizerConfig);
    } catch (error) {
      throw new CheckpointError(`tokenizer.json could not be loaded: ${(error as Error).message}`, { cause: error });
    }
    let maxId = -1;
    for (const id of this.core.get_vocab(true).values()) maxId = Math.max(maxId, id);
    for (const id of this.core.get_added_tokens_decoder().keys()) maxId = Math.max(maxId, id);
    this.vocabSize = maxId + 1;
    this.bosToken = tokenString(tokenizerConfig.bos_token);
    this.eosToken = tokenString(tokenizerConfig.eos_token);
    const idOf = (token: string | null): number | undefined =>
      token === null ? undefined : this.core.token_to_id(token);
    this.bosTokenId = idOf(this.bosToken) ?? null;
    const eos = idOf(this.eosToken);
    this.eosTokenIds = [...new Set([...(eos === undefined ? [] : [eos]), ...extraEosTokenIds])];
    this.padTokenId = idOf(tokenString(tokenizerConfig.pad_token)) ?? this.eosTokenIds[0] ?? 0;
    this.chatTemplate = chatTemplateOf(tokenizerConfig);
  }

  encode(text: string, options: { addSpecialTokens?: boolean } = {}): number[] {
    return this.core.encode(text, { add_special_tokens: options.addSpecialTokens ?? false }).ids;
  }

  decode(ids: readonly number[], options: { skipSpecialTokens?: boolean } = {}): string {
    // The library refuses an empty list; a reply that is only its end-of-turn token decodes to ''.
    if (ids.length === 0) return '';
    return this.core.decode([...ids], {
      skip_special_tokens: options.skipSpecialTokens ?? false,
      clean_up_tokenization_spaces: false,
    });
  }

  tokenText(id: number): string {
    return this.decode([id]);
  }

  applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
    if (this.chatTemplate === null) {
      throw new CheckpointError('tokenizer_config.json has no "chat_template"; pass plain text instead of messages.');
    }
    return renderChatTemplate(this.chatTemplate, messages, {
      ...options,
      ...(this.bosToken !== null ? { bosToken: this.bosToken } : {}),
      ...(this.eosToken !== null ? { eosToken: this.eosToken } : {}),
    });
  }

  toHfFiles(): { tokenizerJson: Record<string, unknown>; tokenizerConfig: Record<string, unknown> } {
    return { tokenizerJson: this.tokenizerJson, tokenizerConfig: this.tokenizerConfig };
  }
}
