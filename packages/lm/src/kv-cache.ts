import * as tf from '@tensorflow/tfjs';
import type { LayerCache } from './decoder';

/**
 * Another tensor on the same data (tfjs reference-counts it): `tf.clone` copies the whole buffer on wasm
 * (its `Identity` kernel), which a rollout tree paid for every node and branch; a reshape to the same shape
 * shares it. A cache's tensors are never written (generation copies them into its batch, and the in-place
 * append of `CACHED_ATTENTION` writes only a buffer nothing else references), so sharing is safe.
 */
function share(tensor: tf.Tensor4D): tf.Tensor4D {
  return sharing ? tf.reshape(tensor, tensor.shape) : tf.clone(tensor);
}

let sharing = true;

/**
 * Off: `fork` and `prefixOf` copy the tensors as they did before (`tf.clone`), for the A/B benchmark's
 * "before"; the bytes are the same either way. Internal (not in the package's index); returns the previous
 * setting.
 */
export function useSharedForks(enabled: boolean): boolean {
  const previous = sharing;
  sharing = enabled;
  return previous;
}

/**
 * The keys and values of one sequence's prefix: a node of a rollout tree. `fork()` gives an
 * independent handle on the same memory (nothing is copied), so each branch of a tree rollout continues
 * from the shared prefix without recomputing or copying it.
 *
 * `tokens` may run past what is cached: tokens[cachedLength…] are known but not yet run (a generated
 * token that ended its sequence); the next `prefill`/`generate` from this cache runs them first.
 */
export class KvCache {
  private released = false;

  constructor(
    readonly tokens: readonly number[],
    readonly cachedLength: number,
    /**
     * Per layer, [1, kvHeads, S, headDim] with S >= cachedLength: this cache is the first cachedLength slots
     * (S > cachedLength for a `prefixOf` view, which shares a longer cache's memory).
     */
    readonly layers: readonly LayerCache[],
    /** The adapter these keys and values were computed with (null: the base model). */
    readonly adapter: string | null,
    /** Logits after the last token, when every token is cached. */
    readonly nextLogits: Float32Array | null,
  ) {}

  get length(): number {
    return this.tokens.length;
  }

  get disposed(): boolean {
    return this.released;
  }

  /** A second handle on the same prefix; dispose each handle on its own. */
  fork(): KvCache {
    this.assertLive();
    return new KvCache(
      this.tokens,
      this.cachedLength,
      this.layers.map((layer) => ({ k: share(layer.k), v: share(layer.v) })),
      this.adapter,
      this.nextLogits,
    );
  }

  /**
   * The cache of the first `length` tokens, with the logits after them, as a handle on this cache's memory
   * (nothing is copied): a node of a rollout tree whose keys and values a later turn already computed, so a
   * branch from it starts sampling at once instead of running the node's last observation again.
   * `nextLogits` must be the logits after token `length - 1` (a generation's `promptLogits`): they are taken as
   * given (this cache does not know the vocabulary), and generation refuses a row of another length than the
   * vocabulary's, or one with NaN, naming `cache.nextLogits`.
   */
  prefixOf(length: number, nextLogits: Float32Array): KvCache {
    this.assertLive();
    if (!Number.isInteger(length) || length < 1 || length > this.cachedLength) {
      throw new RangeError(
        `prefixOf(${String(length)}): expected an integer from 1 to cachedLength (${this.cachedLength}).`,
      );
    }
    return new KvCache(
      this.tokens.slice(0, length),
      length,
      this.layers.map((layer) => ({ k: share(layer.k), v: share(layer.v) })),
      this.adapter,
      nextLogits,
    );
  }

  assertLive(): void {
    if (this.released)
      throw new RangeError('This KvCache was disposed; fork() a cache before disposing it to keep using the prefix.');
  }

  /** Idempotent. */
  dispose(): void {
    if (this.released) return;
    this.released = true;
    for (const layer of this.layers) {
      layer.k.dispose();
      layer.v.dispose();
    }
  }
}
