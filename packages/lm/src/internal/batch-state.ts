import * as tf from '@tensorflow/tfjs';
import { languageModelHead, runDecoder, type LayerCache } from '../decoder';
import { KvCache } from '../kv-cache';
import type { LanguageModel } from '../language-model';
import type { ModelConfig } from '../model-config';
import { MASKED } from '../token-batch';
import { type FusedWeights, runFusedDecoder } from './fused-decoder';
import { maxTensorBytes } from './webgpu-device-errors';
import { ropeTables } from './rope-tables';
import { STACK_CACHES, type StackCachesAttrs } from './wasm-stack-caches';

// The batch of rows that generation runs: their keys and values, and the passes over them. Shared by
// `generate` (one call's requests) and `GenerationBatch` (rows that join and leave between passes).

/**
 * The batch's keys/values, per layer [B, kvHeads, C, headDim] with C ≥ S (on wasm, a buffer that decode steps
 * append to in place; its slots after S are unspecified), and which of the S slots each row may see.
 */
export interface BatchState {
  layers: LayerCache[];
  /** valid[row][slot] */
  valid: boolean[][];
}

export function disposeLayers(layers: readonly LayerCache[]): void {
  for (const layer of layers) {
    layer.k.dispose();
    layer.v.dispose();
  }
}

/**
 * Runs `chunks[i]` (left-padded to a common length) through the decoder on top of `state`, at the given
 * start positions. Returns logits after each row's last chunk token ([B, V] data) and the grown state.
 */
export function runChunk(
  model: LanguageModel,
  state: BatchState,
  chunks: readonly (readonly number[])[],
  startPositions: readonly number[],
  adapter: string | null,
  fusedWeights: FusedWeights | undefined,
  capacity?: number,
): { logits: Float32Array; state: BatchState } {
  let fused = fusedWeights;
  const { config } = model;
  const B = chunks.length;
  const T = Math.max(...chunks.map((chunk) => chunk.length));
  // The fused projections are twice as wide as runDecoder's widest (gate and up side by side): a chunk whose
  // fused activations would pass the device's buffer limit (a wide prefill on webgpu) runs through runDecoder.
  const widest = Math.max((config.numHeads + 2 * config.numKvHeads) * config.headDim, 2 * config.intermediateSize);
  if (fused && B * T * widest * 4 > maxTensorBytes()) fused = undefined;
  const past = state.valid[0]?.length ?? 0;
  const S = past + T;
  const tokens = new Int32Array(B * T).fill(model.tokenizer.padTokenId);
  const positions = new Int32Array(B * T);
  const mask = new Float32Array(B * T * S).fill(MASKED);
  const valid = state.valid.map((row) => [...row]);
  chunks.forEach((chunk, b) => {
    const offset = T - chunk.length;
    const row = valid[b] ?? [];
    for (let c = 0; c < T; c++) {
      const real = c >= offset;
      row.push(real);
      if (!real) continue;
      tokens[b * T + c] = chunk[c - offset] as number;
      positions[b * T + c] = (startPositions[b] as number) + c - offset;
      const base = (b * T + c) * S;
      for (let s = 0; s < past; s++) if (state.valid[b]![s]) mask[base + s] = 0;
      for (let k = offset; k <= c; k++) mask[base + past + k] = 0;
    }
    valid[b] = row;
  });
  const resolved = fused ? undefined : model.resolveAdapter(adapter);
  const result = tf.tidy(() => {
    const tables = ropeTables(model.frequencies, positions);
    const input = {
      tokens: tf.tensor2d(tokens, [B, T], 'int32'),
      cos: tf.tensor2d(tables.cos, [B * T, config.headDim]),
      sin: tf.tensor2d(tables.sin, [B * T, config.headDim]),
      mask: tf.tensor4d(mask, [B, 1, T, S]),
      ...(past > 0 ? { past: state.layers } : {}),
    };
    const output = fused
      ? runFusedDecoder(config, fused, input, capacity !== undefined ? { capacity } : {})
      : runDecoder(config, model.parameters, input, {
          keepCache: true,
          releaseLayers: true,
          ...(resolved ? { adapter: resolved } : {}),
        });
    const last = tf.reshape(
      tf.slice(tf.reshape(output.hidden, [B, T, config.hiddenSize]), [0, T - 1, 0], [B, 1, config.hiddenSize]),
      [B, config.hiddenSize],
    ) as tf.Tensor2D;
    const logits = fused ? tf.matMul(last, fused.head) : languageModelHead(model.parameters, last);
    return { logits, present: output.present! };
  });
  const logits = result.logits.dataSync() as Float32Array;
  result.logits.dispose();
  return { logits, state: { layers: result.present, valid } };
}

/** Stacks per-row caches (different lengths) into one left-padded batch state. */
export function stackCaches(model: LanguageModel, caches: readonly (KvCache | undefined)[]): BatchState {
  const lengths = caches.map((cache) => cache?.cachedLength ?? 0);
  const longest = Math.max(...lengths);
  const valid = lengths.map((length) => Array.from({ length: longest }, (_, s) => s >= longest - length));
  if (longest === 0) return { layers: [], valid: caches.map(() => []) };
  const { numKvHeads, headDim } = model.config;
  if (tf.getKernel(STACK_CACHES, tf.getBackend())) {
    // wasm: one heap copy per row, the padding zero-filled in place.
    const attrs = { lengths, numKvHeads, headDim } satisfies StackCachesAttrs as unknown as tf.NamedAttrMap;
    const stack = (layer: number, part: 'k' | 'v'): tf.Tensor4D =>
      tf
        .engine()
        .runKernel(
          STACK_CACHES,
          Object.fromEntries(
            caches
              .flatMap((cache) => (cache && cache.cachedLength > 0 ? [cache.layers[layer]![part]] : []))
              .map((tensor, index) => [`row${index}`, tensor]),
          ),
          attrs,
        ) as tf.Tensor4D;
    const layers = Array.from({ length: model.config.numLayers }, (_, layer) => ({
      k: stack(layer, 'k'),
      v: stack(layer, 'v'),
    }));
    return { layers, valid };
  }
  // Elsewhere (webgpu, cpu): one concat of every row's cache and one gather that lays them out left-padded, per
  // layer and part (`packRows`). Padding and concatenating row by row made three ops a row — 30,000 a turn for a
  // GRPO batch of 1,024 rollouts, each a GPU dispatch.
  return packRows(
    model.config,
    caches.map((cache) => ({ state: cacheState(cache), rows: [0] })),
  );
}

/** A cache as a one-row batch state: its first `cachedLength` slots (a `prefixOf` view's tensors hold more). */
export function cacheState(cache: KvCache | undefined): BatchState {
  if (!cache || cache.cachedLength === 0) return { layers: [], valid: [[]] };
  const width = cache.layers[0]!.k.shape[2];
  return {
    layers: [...cache.layers],
    valid: [Array.from({ length: width }, (_, slot) => slot < cache.cachedLength)],
  };
}

/** Row `row` of the batch state as a KvCache (only its valid slots). */
export function extractRow(
  state: BatchState,
  row: number,
  tokens: readonly number[],
  adapter: string | null,
  nextLogits: Float32Array | null,
): KvCache {
  const slots = state.valid[row]!.flatMap((ok, s) => (ok ? [s] : []));
  if (state.layers.length === 0) return new KvCache(tokens, slots.length, [], adapter, nextLogits);
  // One gather of the row's valid slots from a [B·heads·T, headDim] view (a reshape copies nothing): wasm's
  // Slice on the 4-D state read the whole batch's cache back to JS for every finished row. Every layer's
  // cache has the same shape, so one index serves them all.
  const [, heads, T, headDim] = state.layers[0]!.k.shape;
  const layers = tf.tidy(() => {
    const index = tf.tensor1d(
      Array.from({ length: heads }, (_, h) => slots.map((slot) => (row * heads + h) * T + slot)).flat(),
      'int32',
    );
    const pick = (part: tf.Tensor4D): tf.Tensor4D =>
      tf.reshape(tf.gather(tf.reshape(part, [-1, headDim]), index, 0), [1, heads, slots.length, headDim]);
    return state.layers.map(({ k, v }) => ({ k: pick(k), v: pick(v) }));
  });
  return new KvCache(tokens, slots.length, layers, adapter, nextLogits);
}

/** Keeps only `rows` of the batch state (finished rows leave the batch, so later steps cost less). */
export function selectRows(state: BatchState, rows: readonly number[]): BatchState {
  const layers = tf.tidy(() => {
    const index = tf.tensor1d([...rows], 'int32');
    return state.layers.map(({ k, v }) => ({
      k: tf.gather(k, index, 0) as tf.Tensor4D,
      v: tf.gather(v, index, 0) as tf.Tensor4D,
    }));
  });
  disposeLayers(state.layers);
  return { layers, valid: rows.map((row) => state.valid[row]!) };
}

/** Rows `rows` of `state`, in that order: a source of `packRows`. */
export interface RowSource {
  readonly state: BatchState;
  readonly rows: readonly number[];
}

/**
 * A new batch state of the sources' rows, in order: each row's valid slots, in their order, right-aligned to the
 * longest row's (the slots before them masked). Joins rows of different states (a batch and the caches of rows
 * that join it) and drops the rows left out, with one concat and one gather per layer and part, as
 * `stackCaches` lays caches out off wasm: row r's slot s of head h sits at (b·heads + h)·C + s in its source's
 * [B·heads·C, headDim] view, and one zero row after every source serves each masked slot. The sources keep
 * their tensors (the caller frees them).
 */
export function packRows(config: ModelConfig, sources: readonly RowSource[]): BatchState {
  const { numKvHeads: heads, headDim, numLayers } = config;
  const picked = sources.flatMap((source, from) =>
    source.rows.map((row) => ({
      from,
      row,
      slots: (source.state.valid[row] ?? []).flatMap((ok, slot) => (ok ? [slot] : [])),
    })),
  );
  const longest = Math.max(0, ...picked.map(({ slots }) => slots.length));
  const valid = picked.map(({ slots }) => Array.from({ length: longest }, (_, s) => s >= longest - slots.length));
  if (longest === 0) return { layers: [], valid };
  const offsets: number[] = [];
  let total = 0;
  for (const { state } of sources) {
    offsets.push(total);
    const shape = state.layers[0]?.k.shape;
    if (shape) total += shape[0] * heads * shape[2];
  }
  const index = new Int32Array(picked.length * heads * longest).fill(total);
  picked.forEach(({ from, row, slots }, r) => {
    const width = sources[from]!.state.layers[0]?.k.shape[2] ?? 0;
    const pad = longest - slots.length;
    for (let h = 0; h < heads; h++) {
      const base = (r * heads + h) * longest + pad;
      const at = (offsets[from] as number) + (row * heads + h) * width;
      slots.forEach((slot, j) => {
        index[base + j] = at + slot;
      });
    }
  });
  const layers = tf.tidy(() => {
    const gatherIndex = tf.tensor1d(index, 'int32');
    const zero = tf.zeros([1, headDim]);
    return Array.from({ length: numLayers }, (_, layer) => {
      const pack = (part: 'k' | 'v'): tf.Tensor4D => {
        const parts = sources.flatMap(({ state }) =>
          state.layers.length > 0 ? [tf.reshape(state.layers[layer]![part], [-1, headDim])] : [],
        );
        const all = tf.concat([...parts, zero], 0);
        return tf.reshape(tf.gather(all, gatherIndex, 0), [picked.length, heads, longest, headDim]);
      };
      return { k: pack('k'), v: pack('v') };
    });
  });
  return { layers, valid };
}
