import type { Tokenizer as HfTokenizerCoreType } from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import type { ChatMessage } from '@turngym/spec';
import { compileChatTemplate, renderChatTemplate } from './chat-template';
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

const MODEL_TYPES = ['BPE', 'WordPiece', 'Unigram', 'WordLevel'];

function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

/** A `{Regex}` or `{String}` pattern; @huggingface/tokenizers turns any other into a no-op, or drops all text. */
function checkPattern(component: Json, where: string): void {
  const pattern = asObject(component.pattern);
  if (typeof pattern?.Regex !== 'string' && typeof pattern?.String !== 'string') {
    throw new CheckpointError(
      `tokenizer.json: ${where} pattern ${JSON.stringify(component.pattern)} is not supported (expected {"Regex": …} or {"String": …}).`,
    );
  }
}

/**
 * The Split settings @huggingface/tokenizers applies as HF tokenizers does: "Isolated", and "Removed" with a
 * regex; it treats the other behaviours and `invert` as "Isolated", which splits words differently.
 */
function checkSplit(component: Json, where: string): void {
  checkPattern(component, where);
  if (component.invert === true) throw new CheckpointError(`tokenizer.json: ${where} invert true is not supported.`);
  const behavior = String(component.behavior ?? 'Isolated');
  const removedByRegex = behavior.toLowerCase() === 'removed' && asObject(component.pattern)?.Regex !== undefined;
  if (behavior.toLowerCase() !== 'isolated' && !removedByRegex) {
    throw new CheckpointError(
      `tokenizer.json: ${where} behavior "${behavior}" is not supported (supported: Isolated; Removed with a Regex pattern).`,
    );
  }
}

/** Walks a normalizer, pre-tokenizer or decoder (and its Sequence members) for settings that would be misapplied. */
function checkComponent(value: unknown, where: string): void {
  const component = asObject(value);
  if (component === null) return;
  const type = String(component.type);
  const label = `${where} (${type})`;
  for (const key of ['normalizers', 'pretokenizers', 'decoders']) {
    const members = component[key];
    if (Array.isArray(members)) members.forEach((member, index) => checkComponent(member, `${where}.${key}[${index}]`));
  }
  if (type === 'Split') checkSplit(component, label);
  if (type === 'Replace') checkPattern(component, label);
}

/**
 * Refuses what @huggingface/tokenizers would load without complaint but tokenize differently from HF's
 * `tokenizers` (unknown component types it already refuses by name). Each error names the setting.
 */
function checkSupported(tokenizerJson: Json): void {
  const model = asObject(tokenizerJson.model);
  if (model === null) throw new CheckpointError('tokenizer.json: "model" must be an object.');
  if (!MODEL_TYPES.includes(String(model.type))) {
    throw new CheckpointError(
      `tokenizer.json: model type "${String(model.type)}" is not supported (supported: ${MODEL_TYPES.join(', ')}).`,
    );
  }
  if (model.type === 'BPE') {
    if (asObject(model.vocab) === null) throw new CheckpointError('tokenizer.json: model "vocab" must be an object.');
    if (!Array.isArray(model.merges))
      throw new CheckpointError('tokenizer.json: model "merges" must be a list ("a b" strings or [a, b] pairs).');
    const prefix = model.continuing_subword_prefix;
    if (typeof prefix === 'string' && prefix !== '')
      throw new CheckpointError(`tokenizer.json: BPE continuing_subword_prefix "${prefix}" is not supported.`);
  }
  checkComponent(tokenizerJson.normalizer, 'normalizer');
  checkComponent(tokenizerJson.pre_tokenizer, 'pre_tokenizer');
  checkComponent(tokenizerJson.decoder, 'decoder');
  for (const token of Array.isArray(tokenizerJson.added_tokens) ? tokenizerJson.added_tokens : []) {
    const added = asObject(token);
    if (added?.single_word === true) {
      throw new CheckpointError(
        `tokenizer.json: added token "${String(added.content)}" has single_word true, which is not supported (it would match inside words).`,
      );
    }
  }
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
    checkSupported(tokenizerJson);
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
    this.bosTokenId = this.specialTokenId('bos_token', this.bosToken);
    const eos = this.specialTokenId('eos_token', this.eosToken) ?? undefined;
    this.eosTokenIds = [...new Set([...(eos === undefined ? [] : [eos]), ...extraEosTokenIds])];
    this.padTokenId = idOf(tokenString(tokenizerConfig.pad_token)) ?? this.eosTokenIds[0] ?? 0;
    this.chatTemplate = chatTemplateOf(tokenizerConfig);
    if (this.chatTemplate !== null) {
      try {
        compileChatTemplate(this.chatTemplate);
      } catch (error) {
        throw new CheckpointError(
          `tokenizer_config.json: "chat_template" is not a valid Jinja template: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
  }

  /**
   * The id of the `bos_token` / `eos_token` tokenizer_config.json names. One the vocabulary lacks is refused:
   * transformers adds it as a new token after the vocabulary (PreTrainedTokenizerFast's init), an id the model has
   * no trained embedding for — so generation would never stop at that eos, and a template's `{{ bos_token }}` would
   * be encoded as plain text.
   */
  private specialTokenId(field: 'bos_token' | 'eos_token', token: string | null): number | null {
    if (token === null) return null;
    const id = this.core.token_to_id(token);
    if (id === undefined || id === null) {
      throw new CheckpointError(
        `tokenizer_config.json: "${field}" ${JSON.stringify(token)} is not in tokenizer.json's vocabulary or ` +
          `added_tokens; add it there with the id the model was trained with, or name a token the vocabulary has.`,
      );
    }
    return id;
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
