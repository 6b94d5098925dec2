import type { ChatMessage, ToolSpec } from '@turngym/spec';

export interface ChatTemplateOptions {
  /** End with the assistant header, so the model writes the reply next (default true). */
  readonly addGenerationPrompt?: boolean;
  /** Tools to describe to the model, for templates that render them. */
  readonly tools?: readonly ToolSpec[];
  /**
   * The moment a template's `strftime_now` formats (Llama 3.x write "Today Date: 27 Nov 2026" with it). Default: the
   * current local time, as transformers; pin it to render the same prompt on every day.
   */
  readonly now?: Date;
}

/**
 * What the model needs from a tokenizer. Two implementations: `ByteTokenizer` (bytes + a few special
 * tokens, for the built-in tiny configs) and `HfTokenizer` (any `tokenizer.json`, through
 * @huggingface/tokenizers). Both render HF chat templates (Jinja) the same way.
 */
export interface Tokenizer {
  /** Every id this tokenizer can produce is below this. */
  readonly vocabSize: number;
  /** Ids that end generation. */
  readonly eosTokenIds: readonly number[];
  readonly bosTokenId: number | null;
  /** The id used for padding (never attended to, never scored). */
  readonly padTokenId: number;
  /** The Jinja chat template, or null when the tokenizer has none. */
  readonly chatTemplate: string | null;
  /** Special-token strings in `text` (e.g. `<|im_start|>`) become their ids. */
  encode(text: string, options?: { addSpecialTokens?: boolean }): number[];
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /** The text of one token, for display (a lone byte of a multi-byte character shows as U+FFFD). */
  tokenText(id: number): string;
  /** Renders messages with the chat template into the text the model reads. */
  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): string;
  /** The files that recreate this tokenizer in a checkpoint directory. */
  toHfFiles(): { tokenizerJson: Record<string, unknown>; tokenizerConfig: Record<string, unknown> };
}
