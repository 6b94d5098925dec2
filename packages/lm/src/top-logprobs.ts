import { logSumExp } from './sampling';

/** A token and its log-probability: one of the likeliest alternatives at a position. */
export interface TokenLogprob {
  readonly token: number;
  readonly logprob: number;
}

/**
 * The `count` likeliest tokens of the model's own distribution over `logits` (temperature 1, no top-p: the
 * distribution `sampleToken` reports a drawn token's logprob under), likeliest first, ties by lower id (the token
 * greedy decoding picks). Each logprob is `logits[i] - logSumExp(logits)`, the very float `sampleToken` gives the
 * drawn token, so a client comparing the two (lm-evaluation-harness's `is_greedy`) sees them equal. One pass over the
 * vocabulary keeping `count` candidates: nothing vocabulary-sized is allocated.
 */
export function topLogprobs(logits: ArrayLike<number>, count: number): TokenLogprob[] {
  if (count <= 0) return [];
  const kept: number[] = [];
  const before = (a: number, b: number): boolean =>
    (logits[a] as number) > (logits[b] as number) || ((logits[a] as number) === (logits[b] as number) && a < b);
  for (let i = 0; i < logits.length; i++) {
    // NaN never ranks; ids arrive in increasing order, so an equal logit never displaces a kept one.
    if (kept.length === count && !((logits[i] as number) > (logits[kept[count - 1]!] as number))) continue;
    if (Number.isNaN(logits[i] as number)) continue;
    let at = kept.length === count ? count - 1 : kept.length;
    while (at > 0 && before(i, kept[at - 1]!)) at -= 1;
    if (kept.length === count) kept.pop();
    kept.splice(at, 0, i);
  }
  const normaliser = logSumExp(logits);
  return kept.map((token) => ({ token, logprob: (logits[token] as number) - normaliser }));
}
