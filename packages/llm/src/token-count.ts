/**
 * A deterministic stand-in for a tokenizer: words, numbers and single punctuation marks each count as one
 * token. Within ~30% of BPE counts on English prose; used where no real tokenizer exists (scripted models,
 * the model server's usage for such models) so that costs and budgets still move.
 */
export function approximateTokenCount(text: string): number {
  return text.match(TOKEN_PATTERN)?.length ?? 0;
}

const TOKEN_PATTERN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

/** The end offset (exclusive) of the first `limit` tokens of `text`, for truncating to `maxTokens`. */
export function tokenPrefixEnd(text: string, limit: number): number {
  if (limit <= 0) return 0;
  let count = 0;
  for (const match of text.matchAll(TOKEN_PATTERN)) {
    count += 1;
    if (count === limit) return (match.index ?? 0) + match[0].length;
  }
  return text.length;
}
