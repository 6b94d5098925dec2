/**
 * Which keys each query may attend to, for one row of a batch. Causal is the default; `segments` packs
 * several sequences in one row (each attends causally within its own segment); `allowed` and `matrix`
 * express anything else — Self-AC's ShadowPrompt (ALGORITHMS.md §2: critic-prompt tokens see the state,
 * nothing later sees them) is a `matrix` or `allowed` pattern with explicit positions.
 */
export type AttentionPattern =
  | { readonly kind: 'causal' }
  | { readonly kind: 'segments'; readonly segmentIds: readonly number[] }
  | { readonly kind: 'allowed'; readonly allowed: (query: number, key: number) => boolean }
  /** Row-major T×T: `matrix[query * T + key]` non-zero means allowed. */
  | { readonly kind: 'matrix'; readonly matrix: Uint8Array };

export function causalAttention(): AttentionPattern {
  return { kind: 'causal' };
}

/** Packed sequences: token t attends to token k ≤ t of the same segment id. */
export function packedAttention(segmentIds: readonly number[]): AttentionPattern {
  return { kind: 'segments', segmentIds };
}

export function attentionFromFunction(allowed: (query: number, key: number) => boolean): AttentionPattern {
  return { kind: 'allowed', allowed };
}

export function attentionFromMatrix(matrix: Uint8Array): AttentionPattern {
  return { kind: 'matrix', matrix };
}

/** The pattern as a predicate over (query, key) for a row of `length` tokens. */
export function allowedPredicate(pattern: AttentionPattern, length: number): (query: number, key: number) => boolean {
  switch (pattern.kind) {
    case 'causal':
      return (query, key) => key <= query;
    case 'segments': {
      const ids = pattern.segmentIds;
      if (ids.length !== length)
        throw new RangeError(`packedAttention: ${ids.length} segment ids for ${length} tokens.`);
      return (query, key) => key <= query && ids[key] === ids[query];
    }
    case 'allowed':
      return pattern.allowed;
    case 'matrix': {
      const { matrix } = pattern;
      if (matrix.length !== length * length)
        throw new RangeError(`attentionFromMatrix: ${matrix.length} entries for ${length}×${length} tokens.`);
      return (query, key) => matrix[query * length + key] !== 0;
    }
  }
}
