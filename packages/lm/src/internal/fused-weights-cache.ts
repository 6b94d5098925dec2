import * as tf from '@tensorflow/tfjs';
import type { DecoderParameters } from '../decoder-parameters';
import type { LoraAdapter } from '../lora-adapter';
import type { ModelConfig } from '../model-config';
import { FusedWeights } from './fused-decoder';

/**
 * Layer weights up to which a model keeps its `FusedWeights` between generation calls (tiny-1m, tiny-8m: a
 * second copy of 4–32 MB per adapter). Above it each call builds and frees its own, as before: on tiny-30m
 * the copy would be ~120 MB for the model's lifetime, and a call's arithmetic dwarfs the build.
 */
const MAX_KEPT_WEIGHTS = 10e6;

interface Entry {
  /** The backend, the adapter's scale and the data ids of every tensor the fused weights were built from. */
  readonly key: readonly unknown[];
  readonly weights: FusedWeights;
}

/** What the fused weights of `parameters` (and `adapter`) are built from: changes when any of them is assigned. */
function sourceKey(parameters: DecoderParameters, adapter: LoraAdapter | undefined): unknown[] {
  // tfjs gives an assigned variable a new data id, so a trained or reloaded tensor changes the key.
  const tensors: tf.Tensor[] = [...parameters.variables(), ...(adapter ? adapter.variables() : [])];
  return [tf.getBackend(), adapter?.scale ?? null, ...tensors.map((tensor) => tensor.dataId)];
}

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/**
 * One model's `FusedWeights`, one per adapter (null: the base), kept between generation calls while the
 * tensors they were built from are unchanged. Building them (LoRA merged, q/k/v and gate/up concatenated)
 * took ~6 ms a call on tiny-1m, and XNNPACK packs a new weight tensor again on its first product (~4 ms):
 * a tree rollout's ~10 generation calls an iteration paid that twice as often as chains' ~5
 * (docs/benchmarks/perf.md, "Trees in CPU time").
 */
export class FusedWeightsCache {
  private readonly entries = new Map<string | null, Entry>();

  constructor(private readonly config: ModelConfig) {}

  /** Whether this model's fused weights are kept (small models) or built per call. */
  get keeps(): boolean {
    const { hiddenSize, intermediateSize, numHeads, numKvHeads, headDim, numLayers } = this.config;
    const attention = hiddenSize * (2 * numHeads + 2 * numKvHeads) * headDim;
    return numLayers * (attention + 3 * hiddenSize * intermediateSize) <= MAX_KEPT_WEIGHTS;
  }

  /**
   * The fused weights for `adapter`, and whether the caller owns them (frees them after its call): kept
   * ones are owned by the cache, rebuilt when a source tensor changed.
   */
  acquire(
    parameters: DecoderParameters,
    name: string | null,
    adapter: LoraAdapter | undefined,
  ): { weights: FusedWeights; owned: boolean } {
    if (!this.keeps) return { weights: FusedWeights.build(parameters, adapter), owned: true };
    const key = sourceKey(parameters, adapter);
    const entry = this.entries.get(name);
    if (entry && sameKey(entry.key, key)) return { weights: entry.weights, owned: false };
    entry?.weights.dispose();
    const weights = FusedWeights.build(parameters, adapter);
    this.entries.set(name, { key, weights });
    return { weights, owned: false };
  }

  /** Frees the kept entry of one adapter (removed from the model). */
  release(name: string | null): void {
    this.entries.get(name)?.weights.dispose();
    this.entries.delete(name);
  }

  /** Frees every kept entry (the model is disposed). */
  dispose(): void {
    for (const entry of this.entries.values()) entry.weights.dispose();
    this.entries.clear();
  }
}
