import type { Tokenizer as HfTokenizerCoreType } from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import type { ChatMessage } from '@turngym/spec';
import { compileChatTemplate, renderChatTemplate } from './chat-template';
import { useHfDecoding, withHfPreTokenizers } from './hf-tokenizer-parity';
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

/**
 * The chat template: a string, or HF's list form `[{name, template}, …]`, from which transformers takes the one named
 * "default" (with none, it refuses to render without a name; returned here as `missing`, the reason). Anything else
 * is refused: a list entry that is not `{name, template}` crashed the reader, and a template of another type was
 * taken for none.
 */
function chatTemplateOf(config: Json): { template: string | null; missing: string } {
  const raw = config.chat_template;
  const none = 'tokenizer_config.json has no "chat_template"; pass plain text instead of messages.';
  if (raw === undefined || raw === null) return { template: null, missing: none };
  if (typeof raw === 'string') return { template: raw, missing: none };
  if (!Array.isArray(raw))
    throw new CheckpointError(`tokenizer_config.json: "chat_template" must be a string or a list, got ${typeof raw}.`);
  raw.forEach((entry, index) => {
    const { name, template } = (asObject(entry) ?? {}) as Json;
    if (typeof name !== 'string' || typeof template !== 'string') {
      throw new CheckpointError(
        `tokenizer_config.json: "chat_template"[${index}] must be {"name": …, "template": …} strings.`,
      );
    }
  });
  const entries = raw as { name: string; template: string }[];
  const named = entries.find((entry) => entry.name === 'default');
  if (named) return { template: named.template, missing: none };
  return {
    template: null,
    missing:
      `tokenizer_config.json: "chat_template" lists ${entries.map((entry) => `"${entry.name}"`).join(', ')} ` +
      'but none named "default", the one transformers renders when no name is given (it refuses the rest); ' +
      'pass plain text instead of messages.',
  };
}

/** transformers' SPECIAL_TOKENS_ATTRIBUTES, each a template variable in `apply_chat_template` when it is set. */
const SPECIAL_TOKEN_FIELDS = [
  'bos_token',
  'eos_token',
  'unk_token',
  'sep_token',
  'pad_token',
  'cls_token',
  'mask_token',
];

/** The special tokens transformers passes a chat template (its `special_tokens_map`: the ones set, as strings). */
function templateSpecialTokens(config: Json): Record<string, string | string[]> {
  const tokens: Record<string, string | string[]> = {};
  for (const field of SPECIAL_TOKEN_FIELDS) {
    const token = tokenString(config[field]);
    if (token) tokens[field] = token;
  }
  const additional = Array.isArray(config.additional_special_tokens)
    ? config.additional_special_tokens.map(tokenString).filter((token): token is string => token !== null)
    : [];
  if (additional.length > 0) tokens.additional_special_tokens = additional;
  return tokens;
}

/**
 * A special token must be a string or `{content, …}`, as transformers requires (a TypeError there): `"eos_token": 2`,
 * an id where the token belongs, was read here as no eos token at all, and generation ran on to max_tokens.
 */
function checkSpecialTokens(config: Json): void {
  for (const field of SPECIAL_TOKEN_FIELDS) {
    const value = config[field];
    if (value !== undefined && value !== null && tokenString(value) === null) {
      throw new CheckpointError(
        `tokenizer_config.json: "${field}" must be a token string or {"content": …}, got ${JSON.stringify(value)}.`,
      );
    }
  }
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

/**
 * BPE merges as HF's `tokenizers` accepts them: all `"a b"` strings (exactly one space; `#version` lines skipped) or
 * all `[a, b]` pairs, each part and their concatenation in the vocabulary (MergeTokenOutOfVocabulary otherwise).
 * @huggingface/tokenizers loads the rest: a merge whose result is not a token made text vanish from the encoding
 * (with no unk_token) and a pair after string merges was never applied.
 */
function checkMerges(merges: unknown[], vocab: Json): void {
  const pairs = typeof merges[0] !== 'string';
  merges.forEach((merge, index) => {
    if (typeof merge === 'string' && merge.startsWith('#version')) return;
    const pair = !pairs && typeof merge === 'string' ? merge.split(' ') : merge;
    const wellFormed =
      typeof merge === (pairs ? 'object' : 'string') &&
      Array.isArray(pair) &&
      pair.length === 2 &&
      pair.every((part) => typeof part === 'string');
    if (!wellFormed) {
      throw new CheckpointError(
        `tokenizer.json: model merges[${index}] is ${JSON.stringify(merge)}; expected ` +
          `${pairs ? 'an [a, b] pair' : 'an "a b" string (one space)'}${index > 0 ? ', like merges[0]' : ''}.`,
      );
    }
    const [left, right] = pair as [string, string];
    for (const token of [left, right, left + right]) {
      if (!Object.hasOwn(vocab, token)) {
        throw new CheckpointError(
          `tokenizer.json: model merges[${index}] ${JSON.stringify(merge)} needs ${JSON.stringify(token)}, which is not in the vocab.`,
        );
      }
    }
  });
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
    checkMerges(model.merges, model.vocab as Json);
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
  /** Why `chatTemplate` is null, for `applyChatTemplate`'s error. */
  private readonly noChatTemplate: string;
  /** The special tokens a chat template sees as variables (`pad_token`, …): read from the config once. */
  private readonly templateTokens: Record<string, string | string[]>;

  /** `extraEosTokenIds`: from generation_config.json / config.json, which often list more stop ids. */
  constructor(
    private readonly tokenizerJson: Json,
    private readonly tokenizerConfig: Json = {},
    extraEosTokenIds: readonly number[] = [],
  ) {
    checkSupported(tokenizerJson);
    checkSpecialTokens(tokenizerConfig);
    try {
      this.core = new HfTokenizerCore(withHfPreTokenizers(tokenizerJson), tokenizerConfig);
    } catch (error) {
      throw new CheckpointError(`tokenizer.json could not be loaded: ${(error as Error).message}`, { cause: error });
    }
    useHfDecoding(this.core.decoder);
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
    this.templateTokens = templateSpecialTokens(tokenizerConfig);
    const { template, missing } = chatTemplateOf(tokenizerConfig);
    this.chatTemplate = template;
    this.noChatTemplate = missing;
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

  /**
   * As HF's `decode`: an id the tokenizer has no token for (a model's vocabulary padded past the tokenizer's, as
   * Qwen2's and many fine-tunes' are, can sample one) is left out. The library wrote `unk_token` for it instead,
   * text the model never produced.
   */
  decode(ids: readonly number[], options: { skipSpecialTokens?: boolean } = {}): string {
    for (const id of ids) if (!Number.isInteger(id)) throw new RangeError(`decode: ${id} is not a token id.`);
    const known = ids.filter((id) => this.core.id_to_token(id) !== undefined);
    // The library refuses an empty list; a reply that is only its end-of-turn token decodes to ''.
    if (known.length === 0) return '';
    return this.core.decode(known, {
      skip_special_tokens: options.skipSpecialTokens ?? false,
      clean_up_tokenization_spaces: false,
    });
  }

  tokenText(id: number): string {
    return this.decode([id]);
  }

  applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
    if (this.chatTemplate === null) {
      throw new CheckpointError(this.noChatTemplate);
    }
    return renderChatTemplate(this.chatTemplate, messages, {
      ...options,
      specialTokens: this.templateTokens,
      ...(this.bosToken !== null ? { bosToken: this.bosToken } : {}),
      ...(this.eosToken !== null ? { eosToken: this.eosToken } : {}),
    });
  }

  toHfFiles(): { tokenizerJson: Record<string, unknown>; tokenizerConfig: Record<string, unknown> } {
    return { tokenizerJson: this.tokenizerJson, tokenizerConfig: this.tokenizerConfig };
  }
}
