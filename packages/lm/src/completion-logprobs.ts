import type { TokenLogprob } from './top-logprobs';
import type { Tokenizer } from './tokenizer';

/** OpenAI's legacy completions caps `logprobs` (the alternatives asked for at each token) at 5. */
export const MAX_COMPLETION_LOGPROBS = 5;

/** What a token that ends inside a multi-byte character decodes to on its own. */
const REPLACEMENT = '\uFFFD';

/**
 * One position's `top_logprobs` entry as OpenAI's /v1/completions sends it: token text → logprob, the likeliest
 * alternatives and, as OpenAI documents ("up to logprobs+1 elements"), the chosen token too when it is not among
 * them. Two ids with the same text (byte pieces decoding to the same character) keep the likelier one, so the
 * object's largest value is always the position's argmax: what lm-evaluation-harness compares the chosen token's
 * logprob with to decide `is_greedy`. A JSON object, so its keys carry no order.
 */
export function completionTopLogprobs(
  tokenizer: Tokenizer,
  alternatives: readonly TokenLogprob[],
  chosen: TokenLogprob,
): Record<string, number> {
  // No prototype: a token whose text is "__proto__" is a key like any other.
  const entries = Object.create(null) as Record<string, number>;
  for (const { token, logprob } of [...alternatives, chosen]) {
    const text = tokenizer.tokenText(token);
    if (!Object.hasOwn(entries, text) || entries[text]! < logprob) entries[text] = logprob;
  }
  return entries;
}

/** Tokens between the anchors `textOffsets` measures from, and tokens of context decoded before each window. */
const ANCHOR_TOKENS = 32;
const CONTEXT_TOKENS = 8;

/**
 * OpenAI's `text_offset` for tokens `from` to `to` of `tokens`: where each token's text starts in the choice's text,
 * in characters (UTF-16 code units, as clients index strings), the text being `start` characters (an echoed prompt)
 * and then `tokens` decoded, at most `end` long (a stop sequence cuts it). A token inside a multi-byte character
 * starts where the character does.
 *
 * Token i starts at the length of the tokens before it decoded (a trailing broken character left out). Decoding
 * every prefix costs O(n²): 0.27 s for one 1,024-token choice of a BPE here, seconds for a request of many, the
 * event loop held. So lengths are measured in short windows instead: from an anchor every 32 tokens, as the
 * difference of two decodes that both start 8 tokens before it, so what a decoder does at the start of a text
 * (SentencePiece drops a leading space, a lone continuation byte shows as U+FFFD) cancels out.
 */
export function textOffsets(
  tokenizer: Tokenizer,
  tokens: readonly number[],
  from: number,
  to: number,
  start: number,
  end = Infinity,
): number[] {
  /** The length of tokens a..b decoded, without a broken character at the end. */
  const length = (a: number, b: number): number => {
    if (b <= a) return 0;
    let text = tokenizer.decode(tokens.slice(a, b));
    while (text.endsWith(REPLACEMENT)) text = text.slice(0, -1);
    return text.length;
  };
  const offsets: number[] = [];
  /** The window's anchor, the tokens before it decoded (`atAnchor`), and its context decoded (`contextLength`). */
  let anchor = 0;
  let atAnchor = 0;
  let contextLength = 0;
  const windowStart = (): number => Math.max(0, anchor - CONTEXT_TOKENS);
  let previous = start;
  for (let i = from; i < to; i++) {
    while (anchor + ANCHOR_TOKENS <= i) {
      const next = anchor + ANCHOR_TOKENS;
      atAnchor += length(windowStart(), next) - contextLength;
      anchor = next;
      contextLength = length(windowStart(), anchor);
    }
    // Never backwards (a decoder that strips what a later token explains) and never past the text.
    previous = Math.min(Math.max(previous, start + atAnchor + length(windowStart(), i) - contextLength), end);
    offsets.push(previous);
  }
  return offsets;
}

/** Some tokens' entries for a completion choice's `logprobs`. */
export interface CompletionLogprobEntries {
  readonly tokens: readonly number[];
  /** Each token's log-probability; null for a prompt's first token, which nothing predicts. */
  readonly logprobs: readonly (number | null)[];
  /** The likeliest alternatives at each token (null where there are none: a prompt's first token). */
  readonly alternatives: readonly (readonly TokenLogprob[] | null)[] | undefined;
  /** Each token's `text_offset` (`textOffsets`). */
  readonly offsets: readonly number[];
}

/**
 * A choice's (or a streamed chunk's) `logprobs` object on OpenAI's legacy /v1/completions: the tokens' texts,
 * their log-probabilities, the `top` likeliest alternatives at each (`top_logprobs`, null when none were asked
 * for) and their character offsets. Built here only, for the plain answer and the stream alike.
 */
export function completionLogprobs(tokenizer: Tokenizer, entries: CompletionLogprobEntries, top: number) {
  const { tokens, logprobs, alternatives, offsets } = entries;
  return {
    tokens: tokens.map((token) => tokenizer.tokenText(token)),
    token_logprobs: [...logprobs],
    top_logprobs:
      top > 0 && alternatives
        ? tokens.map((token, i) => {
            const each = alternatives[i];
            const logprob = logprobs[i];
            return each === null || each === undefined || logprob === null || logprob === undefined
              ? null
              : completionTopLogprobs(tokenizer, each, { token, logprob });
          })
        : null,
    text_offset: [...offsets],
  };
}
