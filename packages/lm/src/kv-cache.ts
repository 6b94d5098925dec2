import * as tf from '@tensorflow/tfjs';
import type { LayerCache } from './decoder';

/**
 * The keys and values of one sequence's prefix: a node of a rollout tree. `fork()` gives an
 * independent handle on the same memory (tfjs reference-counts tensor data), so each branch of a tree
 * rollout continues from the shared prefix without recomputing or copying it.
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
      this.layers.map((layer) => ({ k: tf.clone(layer.k), v: tf.clone(layer.v) })),
      this.adapter,
      this.nextLogits,
    );
  }

  /**
   * The cache of the first `length` tokens, with the logits after them, as a handle on this cache's memory
   * (nothing is copied): a node of a rollout tree whose keys and values a later turn already computed, so a
   * branch from it starts sampling at once instead of running the node's last observation again.
   * `nextLogits` must be the logits after token `length - 1` (a generation's `promptLogits`).
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
      this.layers.map((layer) => ({ k: tf.clone(layer.k), v: tf.clone(layer.v) })),
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
