import * as tf from '@tensorflow/tfjs';

/** The kernel's name: generation stacks per-row caches with it where the backend has it (wasm). */
export const STACK_CACHES = 'TurngymStackCaches';

/**
 * Inputs `row0`, `row1`, … (the rows that have a cache, in order), each [1, kvHeads, S, headDim] with S at
 * least the row's length (a `KvCache.prefixOf` view: only its first `length` slots are copied); `lengths` has
 * an entry for every row.
 */
export interface StackCachesAttrs {
  /** Cached slots of each row of the batch (0: no cache, all padding). */
  readonly lengths: readonly number[];
  readonly numKvHeads: number;
  readonly headDim: number;
}

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
}

/**
 * One layer's keys (or values) of several rows, each [1, kvHeads, length, headDim], as one left-padded
 * batch [B, kvHeads, longest, headDim] with zeros in the padding: straight copies on wasm's heap.
 *
 * Generation did this with tfjs ops, a zeros tensor and a concat per padded row and a concat of the rows,
 * so every cache was copied twice, through ~2 ops a row; a rollout tree's branch round stacks 32 rows of
 * prefixes of different lengths at each turn, where this took ~4% of the trees' time against ~1% of the
 * chains' (profiled on tiny-1m, docs/benchmarks/perf.md, "Trees in CPU time"). The bytes are the same.
 */
export function registerWasmStackCaches(): void {
  if (!tf.getKernel('Reshape', 'wasm') || tf.getKernel(STACK_CACHES, 'wasm')) return;
  tf.registerKernel({
    kernelName: STACK_CACHES,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const wasm = backend as unknown as WasmBackendLike;
      const { lengths, numKvHeads, headDim } = attrs as unknown as StackCachesAttrs;
      const longest = Math.max(0, ...lengths);
      // Make the output first: allocating may grow the heap, which detaches views taken before it.
      const out = wasm.makeOutput([lengths.length, numKvHeads, longest, headDim], 'float32');
      const target = wasm.typedArrayFromHeap(out) as Float32Array;
      const block = longest * headDim;
      let input = 0;
      lengths.forEach((length, row) => {
        const pad = (longest - length) * headDim;
        const info = length > 0 ? inputs[`row${input++}`]! : null;
        const source = info ? (wasm.typedArrayFromHeap(info) as Float32Array) : null;
        // The row's own slots per head: more than `length` for a prefix view.
        const stride = info ? (info.shape[2] as number) * headDim : 0;
        for (let head = 0; head < numKvHeads; head++) {
          const at = (row * numKvHeads + head) * block;
          target.fill(0, at, at + pad);
          if (source) target.set(source.subarray(head * stride, head * stride + length * headDim), at + pad);
        }
      });
      return out;
    },
  });
}
