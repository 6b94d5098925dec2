import * as tf from '@tensorflow/tfjs';
import { simdAttention, type AttendFunction, type AttentionPrecision, type WasmMemory } from './wasm-simd-attention';

/** The kernel's name: the fused decoder calls it where the current backend has it (wasm, through `useBackend`). */
export const CACHED_ATTENTION = 'TurngymCachedAttention';

/** Shapes the kernel needs besides its inputs'. */
export interface CachedAttentionAttrs {
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  /**
   * Slots to allocate when the cache must move to a new buffer (it is full, or shared): the most this
   * cache will hold (generation passes the prompt plus its token budget), so later steps append in place.
   * When it is too small, a new buffer holds twice the slots needed (capacity doubling); without it, exactly
   * the slots needed (the shape tfjs's ops give).
   */
  readonly capacity?: number;
}

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: tf.DataId): boolean;
  refCount(dataId: tf.DataId): number;
  incRef(dataId: tf.DataId): void;
  /** The Emscripten module: its memory is exported (`asm.memory`), or imported (`wasmMemory`) when threaded. */
  readonly wasm: { readonly asm?: { readonly memory?: WasmMemory }; readonly wasmMemory?: WasmMemory };
}

/** The wasm SIMD inner loops for this backend and head size, unless disabled (tests) or unavailable. */
function attendOn(wasm: WasmBackendLike, headDim: number): AttendFunction | null {
  if (!simdEnabled) return null;
  const memory = wasm.wasm.asm?.memory ?? wasm.wasm.wasmMemory;
  return memory ? simdAttention(memory, headDim, simdPrecision) : null;
}

let simdEnabled = true;
let simdPrecision: AttentionPrecision = 'float32';
let appendInPlace = true;

/**
 * Off: every call copies the whole cache into a new buffer of exactly the slots it holds, as before the
 * in-place append (the A/B benchmark's "before"; the bytes read and written are the same either way).
 * Returns the previous setting.
 */
export function useInPlaceAppend(enabled: boolean): boolean {
  const previous = appendInPlace;
  appendInPlace = enabled;
  return previous;
}

/** Runs the JavaScript loops instead of the wasm SIMD ones (the tests' reference); returns the previous setting. */
export function useSimdAttention(enabled: boolean): boolean {
  const previous = simdEnabled;
  simdEnabled = enabled;
  return previous;
}

/**
 * The SIMD loops' arithmetic (`wasm-simd-attention`): float32 by default (dot products and weighted sums
 * four lanes at a time), float64 for the JavaScript loops' bits (tests, and the A/B benchmark's "before").
 * Returns the previous setting.
 */
export function useSimdPrecision(precision: AttentionPrecision): AttentionPrecision {
  const previous = simdPrecision;
  simdPrecision = precision;
  return previous;
}

/** A mask entry at or below this is `MASKED` (token-batch.ts): its softmax weight is exactly 0 in float32. */
const CLOSED = -1e8;

/**
 * Attention of new tokens over a KV cache, RoPE included, on wasm's heap in place of ~15 tfjs ops a layer.
 *
 * Generation runs it for every chunk after the first (each decode step): on tiny models the attention ops
 * were ~40% of a decode step, and their cost grew with every slot of the batch's cache, padding included
 * (branches of a rollout tree start from prefixes of different lengths, so ~a quarter of their slots were
 * padding). Here a query visits only the slots its mask opens, and there is no transposed copy of the keys,
 * no mask add and no separate softmax. The scores, softmax and weighted sum run as wasm SIMD
 * (`wasm-simd-attention`): by default with float32 dot products and weighted sums (`useSimdPrecision`; the
 * slots' share of a decode step is the part that grows with context, which a tree's branch rows have most
 * of), or in float64, the same bits as the JavaScript loops below; RoPE and the cache copies in JavaScript.
 *
 * Inputs: `qkv` [N, (heads + 2·kvHeads)·headDim] (the fused q, k and v projections, before RoPE; N = B·T),
 * `cos`/`sin` [N, headDim] (`ropeTables`), `pastK`/`pastV` [B, kvHeads, C, headDim] whose first P slots are
 * the cache (C ≥ P: a buffer with room to grow), `mask` [B, 1, T, P + T] (additive: 0 or `MASKED`; P comes
 * from it). Outputs: the attended values [N, heads·headDim], and the keys and values with this chunk's
 * appended, [B, kvHeads, C', headDim], the cache in their first P + T slots (the slots after them are
 * unspecified) — RoPE and the copies round as tfjs's ops do, so the caches are the same bytes; the attended
 * values differ from tfjs's matmul-softmax-matmul only in the order of float additions (~1e-7 relative).
 *
 * Appending in place: where the past buffer has room for the chunk and nothing else holds it (its data's
 * reference count is 1: a generation batch's own state; a forked or shared cache counts more), the chunk's
 * keys and values are written into it and the outputs are the same buffers (as `Reshape` returns its input).
 * Otherwise the cache moves to a new buffer of `capacity` slots (attrs): copy on write. A decode step used to
 * copy the whole cache into a new tensor, a cost per token that grows with the row's context, which a rollout
 * tree's branch rows have 2–3× the chains' of (docs/benchmarks/perf.md, "Trees in CPU time").
 */
export function registerWasmCachedAttention(): void {
  if (!tf.getKernel('Reshape', 'wasm') || tf.getKernel(CACHED_ATTENTION, 'wasm')) return;
  tf.registerKernel({
    kernelName: CACHED_ATTENTION,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const wasm = backend as unknown as WasmBackendLike;
      const { qkv, cos, sin, pastK, pastV, mask } = inputs as Record<string, tf.TensorInfo>;
      const { numHeads, numKvHeads, headDim } = attrs as unknown as CachedAttentionAttrs;
      const { capacity: wanted } = attrs as unknown as CachedAttentionAttrs;
      const [B, , T, S] = mask!.shape as [number, number, number, number];
      const P = S - T;
      const room = pastK!.shape[2] as number;
      const N = B * T;
      const inPlace =
        appendInPlace &&
        room >= S &&
        wasm.refCount(pastK!.dataId) === 1 &&
        wasm.refCount(pastV!.dataId) === 1 &&
        pastK!.dataId !== pastV!.dataId;
      // Without the in-place append, exactly the slots the cache holds (the behaviour before it).
      const grown = !appendInPlace || wanted === undefined ? S : wanted >= S ? wanted : 2 * S;
      // Make the outputs first: allocating may grow the heap, which detaches views taken before it.
      const attended = wasm.makeOutput([N, numHeads * headDim], 'float32');
      let keys: tf.TensorInfo;
      let values: tf.TensorInfo;
      if (inPlace) {
        // The same buffers, one more reference each (the caller disposes the inputs), as `Reshape` does.
        wasm.incRef(pastK!.dataId);
        wasm.incRef(pastV!.dataId);
        keys = { dataId: pastK!.dataId, shape: pastK!.shape, dtype: 'float32' };
        values = { dataId: pastV!.dataId, shape: pastV!.shape, dtype: 'float32' };
      } else {
        keys = wasm.makeOutput([B, numKvHeads, grown, headDim], 'float32');
        values = wasm.makeOutput([B, numKvHeads, grown, headDim], 'float32');
      }
      const attend = attendOn(wasm, headDim);
      const group = numHeads / numKvHeads;
      // The SIMD loops' scratch on the heap: one query group (float64), a row's open slots, their scores
      // (float64); 2 floats of slack to align the float64 parts to 8 bytes.
      const scratch = attend ? wasm.makeOutput([2 * group * headDim + 3 * S + 2], 'float32') : null;
      const view = (info: tf.TensorInfo): Float32Array => wasm.typedArrayFromHeap(info) as Float32Array;
      const [projected, cs, ss, pk, pv, ms] = [qkv, cos, sin, pastK, pastV, mask].map((info) => view(info!));
      const [out, kOut, vOut] = [attended, keys, values].map(view) as [Float32Array, Float32Array, Float32Array];
      try {
        cachedAttention(
          { qkv: projected!, cos: cs!, sin: ss!, pastK: pk!, pastV: pv!, mask: ms! },
          { out, keys: kOut, values: vOut },
          { B, T, S, P, room, capacity: inPlace ? room : grown, inPlace, numHeads, numKvHeads, headDim },
          attend && scratch ? simdScratch(attend, view(scratch), group * headDim, S) : undefined,
        );
      } finally {
        if (scratch) wasm.disposeData(scratch.dataId);
      }
      return [attended, keys, values];
    },
  });
}

/** The SIMD loops and where their inputs live on the heap (byte addresses). */
interface Simd {
  readonly attend: AttendFunction;
  /** One query group, rotated and scaled, at `queriesAt`. */
  readonly queries: Float64Array;
  /** The open slots of the current query row, at `openAt`. */
  readonly open: Int32Array;
  readonly queriesAt: number;
  readonly openAt: number;
  readonly scoresAt: number;
}

/** Lays out `scratch` (a heap view of 2·queryFloats + 3·S + 2 floats) for the SIMD loops. */
function simdScratch(attend: AttendFunction, scratch: Float32Array, queryFloats: number, S: number): Simd {
  const queriesAt = scratch.byteOffset + (scratch.byteOffset % 8);
  const scoresAt = queriesAt + queryFloats * 8;
  const openAt = scoresAt + S * 8;
  const buffer = scratch.buffer;
  return {
    attend,
    queries: new Float64Array(buffer, queriesAt, queryFloats),
    open: new Int32Array(buffer, openAt, S),
    queriesAt,
    openAt,
    scoresAt,
  };
}

interface Sizes {
  readonly B: number;
  readonly T: number;
  readonly S: number;
  readonly P: number;
  /** Slots per (row, key/value head) block of the past buffers, and of the output buffers. */
  readonly room: number;
  readonly capacity: number;
  /** The outputs are the past buffers: nothing to copy. */
  readonly inPlace: boolean;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
}

/** x·cos + swap_halves(x)·sin at `from`, rounded to float32 after each operation as tfjs's mul and add are. */
function rotate(
  x: Float32Array,
  from: number,
  cos: Float32Array,
  sin: Float32Array,
  table: number,
  headDim: number,
  into: Float32Array | Float64Array,
  to: number,
): void {
  const half = headDim / 2;
  const fround = Math.fround;
  for (let d = 0; d < headDim; d++) {
    const swapped = x[from + (d < half ? d + half : d - half)]!;
    into[to + d] = fround(fround(x[from + d]! * cos[table + d]!) + fround(swapped * sin[table + d]!));
  }
}

function cachedAttention(
  input: {
    readonly qkv: Float32Array;
    readonly cos: Float32Array;
    readonly sin: Float32Array;
    readonly pastK: Float32Array;
    readonly pastV: Float32Array;
    readonly mask: Float32Array;
  },
  output: { readonly out: Float32Array; readonly keys: Float32Array; readonly values: Float32Array },
  sizes: Sizes,
  simd?: Simd,
): void {
  const { B, T, S, P, room, capacity, inPlace, numHeads, numKvHeads, headDim } = sizes;
  const { qkv, cos, sin, pastK, pastV, mask } = input;
  const { out, keys, values } = output;
  const group = numHeads / numKvHeads;
  // A row of `qkv`: the queries of every head, then the keys, then the values of every key/value head.
  const kvWidth = numKvHeads * headDim;
  const width = numHeads * headDim + 2 * kvWidth;
  const scale = Math.fround(1 / Math.sqrt(headDim));
  // The cache with this chunk's keys (after RoPE) and values appended: the layer's present.
  for (let b = 0; b < B; b++) {
    for (let kv = 0; kv < numKvHeads; kv++) {
      const block = (b * numKvHeads + kv) * capacity * headDim;
      const past = (b * numKvHeads + kv) * room * headDim;
      if (P > 0 && !inPlace) {
        keys.set(pastK.subarray(past, past + P * headDim), block);
        values.set(pastV.subarray(past, past + P * headDim), block);
      }
      for (let t = 0; t < T; t++) {
        const n = b * T + t;
        const slot = block + (P + t) * headDim;
        const key = n * width + numHeads * headDim + kv * headDim;
        rotate(qkv, key, cos, sin, n * headDim, headDim, keys, slot);
        values.set(qkv.subarray(key + kvWidth, key + kvWidth + headDim), slot);
      }
    }
  }
  const queries = simd?.queries ?? new Float64Array(group * headDim);
  const open = simd?.open ?? new Int32Array(S);
  const scores = new Float64Array(group * S);
  const sums = new Float64Array(group * headDim);
  const maxima = new Float64Array(group);
  const totals = new Float64Array(group);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const n = b * T + t;
      const maskRow = n * S;
      let count = 0;
      for (let s = 0; s < S; s++) if (mask[maskRow + s]! > CLOSED) open[count++] = s;
      for (let kv = 0; kv < numKvHeads; kv++) {
        // The `group` query heads of this key/value head, each rotated and scaled, side by side.
        const first = n * numHeads * headDim + kv * group * headDim;
        if (count === 0) {
          // A padding row (no slot open): its output is never read; zeros instead of tfjs's uniform average.
          out.fill(0, first, first + group * headDim);
          continue;
        }
        for (let g = 0; g < group; g++) {
          rotate(qkv, n * width + (kv * group + g) * headDim, cos, sin, n * headDim, headDim, queries, g * headDim);
          for (let d = g * headDim; d < (g + 1) * headDim; d++) queries[d] = Math.fround(queries[d]! * scale);
        }
        const block = (b * numKvHeads + kv) * capacity * headDim;
        if (simd) {
          simd.attend(
            simd.queriesAt,
            group,
            keys.byteOffset + 4 * block,
            values.byteOffset + 4 * block,
            simd.openAt,
            count,
            mask.byteOffset + 4 * maskRow,
            simd.scoresAt,
            out.byteOffset + 4 * first,
          );
          continue;
        }
        maxima.fill(-Infinity);
        if (group === 2) {
          pairScores(queries, keys, block, open, count, mask, maskRow, headDim, scores, maxima);
        } else {
          for (let i = 0; i < count; i++) {
            const s = open[i]!;
            const at = block + s * headDim;
            const bias = mask[maskRow + s]!;
            for (let g = 0; g < group; g++) {
              const dot = bias + dotProduct(queries, g * headDim, keys, at, headDim);
              scores[g * count + i] = dot;
              if (dot > maxima[g]!) maxima[g] = dot;
            }
          }
        }
        totals.fill(0);
        sums.fill(0);
        for (let i = 0; i < count; i++) {
          const at = block + open[i]! * headDim;
          if (group === 2) {
            const w0 = Math.exp(scores[i]! - maxima[0]!);
            const w1 = Math.exp(scores[count + i]! - maxima[1]!);
            totals[0] = totals[0]! + w0;
            totals[1] = totals[1]! + w1;
            for (let d = 0; d < headDim; d++) {
              const value = values[at + d]!;
              sums[d] = sums[d]! + w0 * value;
              sums[headDim + d] = sums[headDim + d]! + w1 * value;
            }
            continue;
          }
          for (let g = 0; g < group; g++) {
            const weight = Math.exp(scores[g * count + i]! - maxima[g]!);
            totals[g] = totals[g]! + weight;
            accumulate(sums, g * headDim, weight, values, at, headDim);
          }
        }
        for (let g = 0; g < group; g++) {
          const inverse = 1 / totals[g]!;
          for (let d = 0; d < headDim; d++) out[first + g * headDim + d] = sums[g * headDim + d]! * inverse;
        }
      }
    }
  }
}

/** The scores of two query heads (queries[0…size) and [size…2·size)) that share a key/value head, in one pass over the keys. */
function pairScores(
  queries: Float64Array,
  keys: Float32Array,
  block: number,
  open: Int32Array,
  count: number,
  mask: Float32Array,
  maskRow: number,
  size: number,
  scores: Float64Array,
  maxima: Float64Array,
): void {
  let max0 = -Infinity;
  let max1 = -Infinity;
  for (let i = 0; i < count; i++) {
    const s = open[i]!;
    const at = block + s * size;
    let a0 = 0;
    let a1 = 0;
    let b0 = 0;
    let b1 = 0;
    let d = 0;
    for (; d + 1 < size; d += 2) {
      const k0 = keys[at + d]!;
      const k1 = keys[at + d + 1]!;
      a0 += queries[d]! * k0;
      a1 += queries[d + 1]! * k1;
      b0 += queries[size + d]! * k0;
      b1 += queries[size + d + 1]! * k1;
    }
    for (; d < size; d++) {
      a0 += queries[d]! * keys[at + d]!;
      b0 += queries[size + d]! * keys[at + d]!;
    }
    const bias = mask[maskRow + s]!;
    const first = bias + (a0 + a1);
    const second = bias + (b0 + b1);
    scores[i] = first;
    scores[count + i] = second;
    if (first > max0) max0 = first;
    if (second > max1) max1 = second;
  }
  maxima[0] = max0;
  maxima[1] = max1;
}

/** Σ a[from + d]·b[at + d] over d < size, four terms a round (size is even, as RoPE needs). */
function dotProduct(a: Float64Array, from: number, b: Float32Array, at: number, size: number): number {
  let s0 = 0;
  let s1 = 0;
  let d = 0;
  for (; d + 3 < size; d += 4) {
    s0 += a[from + d]! * b[at + d]! + a[from + d + 2]! * b[at + d + 2]!;
    s1 += a[from + d + 1]! * b[at + d + 1]! + a[from + d + 3]! * b[at + d + 3]!;
  }
  for (; d < size; d++) s0 += a[from + d]! * b[at + d]!;
  return s0 + s1;
}

/** into[to + d] += weight·x[at + d] over d < size. */
function accumulate(into: Float64Array, to: number, weight: number, x: Float32Array, at: number, size: number): void {
  let d = 0;
  for (; d + 3 < size; d += 4) {
    into[to + d] = into[to + d]! + weight * x[at + d]!;
    into[to + d + 1] = into[to + d + 1]! + weight * x[at + d + 1]!;
    into[to + d + 2] = into[to + d + 2]! + weight * x[at + d + 2]!;
    into[to + d + 3] = into[to + d + 3]! + weight * x[at + d + 3]!;
  }
  for (; d < size; d++) into[to + d] = into[to + d]! + weight * x[at + d]!;
}
