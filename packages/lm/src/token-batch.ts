import { allowedPredicate, type AttentionPattern } from './attention-mask';
import { ContextLengthError, TokenizerMismatchError } from './lm-errors';

/**
 * One sequence to score or train on: tokens, and optionally explicit positions, an attention pattern
 * and which output predicts which token. This is what rollout token records (packed episodes, critic
 * prompts) turn into.
 */
export interface TokenRow {
  readonly tokens: readonly number[];
  /** Position ids for RoPE. Default 0…T−1, restarting at 0 in each segment of a `segments` pattern. */
  readonly positions?: readonly number[];
  readonly attention?: AttentionPattern;
  /**
   * For each token t, the index whose output predicts it (−1: not scored). Default t−1 (−1 for the first
   * token of a row or of a segment). ShadowPrompt needs this: an action's first token is predicted by the
   * last state token, not by the critic prompt between them.
   */
  readonly predictFrom?: readonly number[];
  /** Per-token loss weight (a loss mask: 1 for tokens the policy wrote, 0 for prompt/observation). Default 1. */
  readonly weights?: readonly number[];
}

/** A batch laid out for the decoder: right-padded to the longest row. */
export interface PreparedBatch {
  readonly batchSize: number;
  readonly length: number;
  readonly tokens: Int32Array;
  readonly positions: Int32Array;
  /** [B, T, T] additive: 0 where allowed, a large negative number elsewhere (padding included). */
  readonly mask: Float32Array;
  /** [B·T] flat index of the output that predicts each token (0 where unscored). */
  readonly sources: Int32Array;
  /** [B·T] 1 where the token is scored, else 0. */
  readonly scored: Float32Array;
  /** [B·T] the row's weights where scored, else 0. */
  readonly weights: Float32Array;
}

/** Blocked attention. Finite (not −∞) so a query that sees nothing gets a uniform, not NaN, softmax. */
export const MASKED = -1e9;

/** `vocabSize`: ids at or past it are refused here, as a GPU gather would read a wrong row without a word. */
export function prepareBatch(
  rows: readonly TokenRow[],
  maxPositions: number,
  padTokenId: number,
  vocabSize: number,
): PreparedBatch {
  if (rows.length === 0) throw new RangeError('A token batch needs at least one row.');
  const batchSize = rows.length;
  const length = Math.max(1, ...rows.map((row) => row.tokens.length));
  const tokens = new Int32Array(batchSize * length).fill(padTokenId);
  const positions = new Int32Array(batchSize * length);
  const mask = new Float32Array(batchSize * length * length).fill(MASKED);
  const sources = new Int32Array(batchSize * length);
  const scored = new Float32Array(batchSize * length);
  const weights = new Float32Array(batchSize * length);
  rows.forEach((row, b) => {
    const T = row.tokens.length;
    const pattern = row.attention ?? { kind: 'causal' };
    const segments = pattern.kind === 'segments' ? pattern.segmentIds : undefined;
    if (segments && segments.length !== T)
      throw new RangeError(`Row ${b}: ${segments.length} segment ids for ${T} tokens.`);
    for (const [name, list] of [
      ['positions', row.positions],
      ['predictFrom', row.predictFrom],
      ['weights', row.weights],
    ] as const) {
      if (list && list.length !== T) throw new RangeError(`Row ${b}: ${list.length} ${name} for ${T} tokens.`);
    }
    const allowed = allowedPredicate(pattern, T);
    let segmentStart = 0;
    for (let t = 0; t < T; t++) {
      const token = row.tokens[t] as number;
      if (!Number.isInteger(token) || token < 0)
        throw new RangeError(`Row ${b}: token ${t} is ${token}, not a token id.`);
      if (token >= vocabSize) {
        throw new TokenizerMismatchError(
          `Row ${b}: token ${t} is ${token}, outside the model's vocabulary of ${vocabSize} ids.`,
        );
      }
      tokens[b * length + t] = token;
      if (segments && t > 0 && segments[t] !== segments[t - 1]) segmentStart = t;
      const position = row.positions ? (row.positions[t] as number) : t - segmentStart;
      if (position >= maxPositions) throw new ContextLengthError(position + 1, maxPositions, `row ${b}`);
      positions[b * length + t] = position;
      const source = row.predictFrom ? (row.predictFrom[t] as number) : t > segmentStart ? t - 1 : -1;
      if (source >= T) throw new RangeError(`Row ${b}: predictFrom[${t}] = ${source} is past the row's end.`);
      if (source >= 0) {
        sources[b * length + t] = b * length + source;
        scored[b * length + t] = 1;
        weights[b * length + t] = row.weights ? (row.weights[t] as number) : 1;
      }
      const base = (b * length + t) * length;
      for (let key = 0; key < T; key++) if (allowed(t, key)) mask[base + key] = 0;
    }
  });
  return { batchSize, length, tokens, positions, mask, sources, scored, weights };
}
