import type { TokenLogprob } from './top-logprobs';
import type { Tokenizer } from './tokenizer';

/** OpenAI's legacy completions caps `logprobs` (the alternatives asked for at each token) at 5. */
export const MAX_COMPLETION_LOGPROBS = 5;

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
