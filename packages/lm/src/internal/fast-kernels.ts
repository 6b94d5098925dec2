import * as tf from '@tensorflow/tfjs';
import { registerWasmCachedAttention } from './wasm-cached-attention';
import { registerWasmGather } from './wasm-gather';
import { registerWasmLayerKernels } from './wasm-layer-kernels';
import { registerWasmSplit } from './wasm-split';
import { registerWasmStackCaches } from './wasm-stack-caches';

/**
 * Kernels the wasm backend lacks or runs slowly for training (measured in shared/MACHINE.md):
 *
 * - `UnsortedSegmentSum` (the gradient of `gather`, so of every embedding lookup) has no wasm kernel;
 *   tfjs would borrow cpu's, which is O(segments·N·D) — seconds a call. This is a direct scatter-add.
 * - `BatchMatMul` with transposeA/B (every matmul gradient) is 10–20× slower on wasm than transposing
 *   first, so the wrapper transposes explicitly and calls the plain kernel.
 */
interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: tf.DataId): boolean;
}

interface CpuBackendLike {
  readSync(dataId: tf.DataId): Float32Array | Int32Array | Uint8Array;
  makeTensorInfo(shape: number[], dtype: tf.DataType, values: Float32Array | Int32Array): tf.TensorInfo;
}

/** out[segment(i)] += x[i], rows of `inner` values; ids out of range are dropped, as TensorFlow does. */
function scatterAdd(
  out: Float32Array | Int32Array | Uint8Array,
  x: ArrayLike<number>,
  ids: ArrayLike<number>,
  inner: number,
  numSegments: number,
): void {
  for (let i = 0; i < ids.length; i++) {
    const segment = ids[i] as number;
    if (segment < 0 || segment >= numSegments) continue;
    const from = i * inner;
    const to = segment * inner;
    for (let j = 0; j < inner; j++) out[to + j] = (out[to + j] as number) + (x[from + j] as number);
  }
}

function segmentLayout(
  x: tf.TensorInfo,
  segmentIds: tf.TensorInfo,
  numSegments: number,
): { inner: number; outShape: number[] } {
  const segmentCount = segmentIds.shape.reduce((a, b) => a * b, 1);
  const inner = segmentCount === 0 ? 0 : x.shape.reduce((a, b) => a * b, 1) / segmentCount;
  return { inner, outShape: [numSegments, ...x.shape.slice(segmentIds.shape.length)] };
}

let cpuRegistered = false;

/**
 * The cpu backend's UnsortedSegmentSum runs several tfjs ops per segment (O(segments·N·D)); the gradient
 * of an embedding lookup or of picking logprobs by token then dominates a training step. Same scatter-add.
 */
export function registerCpuKernels(): void {
  if (cpuRegistered) return;
  cpuRegistered = true;
  if (tf.getKernel('UnsortedSegmentSum', 'cpu')) tf.unregisterKernel('UnsortedSegmentSum', 'cpu');
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'cpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const cpu = backend as unknown as CpuBackendLike;
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const numSegments = (attrs as { numSegments: number }).numSegments;
      const { inner, outShape } = segmentLayout(x, segmentIds, numSegments);
      // Sums in the input's dtype: a Float32Array would round int32 sums past 2²⁴ (16777217 came back 16777216).
      const out = tf.util.getTypedArrayFromDType(
        x.dtype as 'float32' | 'int32',
        outShape.reduce((a, b) => a * b, 1),
      );
      scatterAdd(out, cpu.readSync(x.dataId), cpu.readSync(segmentIds.dataId), inner, numSegments);
      return cpu.makeTensorInfo(outShape, x.dtype, out);
    },
  });
}

let registered = false;

export function registerWasmKernels(): void {
  if (registered) return;
  registered = true;
  registerWasmGather();
  registerWasmSplit();
  registerWasmCachedAttention();
  registerWasmLayerKernels();
  registerWasmStackCaches();

  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const wasm = backend as unknown as WasmBackendLike;
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const numSegments = (attrs as { numSegments: number }).numSegments;
      const { inner, outShape } = segmentLayout(x, segmentIds, numSegments);
      // Make the output first: allocating may grow the heap, which detaches earlier heap views.
      const out = wasm.makeOutput(outShape, x.dtype);
      const outValues = wasm.typedArrayFromHeap(out);
      outValues.fill(0);
      const xValues = wasm.typedArrayFromHeap(x);
      scatterAdd(outValues, xValues, wasm.typedArrayFromHeap(segmentIds), inner, numSegments);
      return out;
    },
  });

  const batchMatMul = tf.getKernel('BatchMatMul', 'wasm');
  const transpose = tf.getKernel('Transpose', 'wasm');
  const concat = tf.getKernel('Concat', 'wasm');
  const reshape = tf.getKernel('Reshape', 'wasm');
  if (!batchMatMul || !transpose || !concat || !reshape) return;
  const plainMatMul = batchMatMul.kernelFunc;
  const transposeFunc = transpose.kernelFunc;
  /**
   * The product of one float32 BatchMatMul call; what it makes besides its output goes on `temporaries`, which
   * the caller frees (also when a kernel throws).
   */
  const product = (args: Parameters<tf.KernelFunc>[0], temporaries: tf.TensorInfo[]): tf.TensorInfo => {
    const { inputs, backend, attrs } = args;
    const { transposeA, transposeB } = attrs as { transposeA: boolean; transposeB: boolean };
    const wasm = backend as unknown as WasmBackendLike;
    const keep = (info: tf.TensorInfo): tf.TensorInfo => {
      temporaries.push(info);
      return info;
    };
    const swapLast = (info: tf.TensorInfo): tf.TensorInfo => {
      const perm = info.shape.map((_, axis) => axis);
      const last = perm.length - 1;
      [perm[last - 1], perm[last]] = [perm[last] as number, perm[last - 1] as number];
      return keep(transposeFunc({ inputs: { x: info }, backend, attrs: { perm } }) as tf.TensorInfo);
    };
    const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const left = transposeA ? swapLast(a) : a;
    const right = transposeB ? swapLast(b) : b;
    const plainAttrs = { ...attrs, transposeA: false, transposeB: false };
    const batchOf = (info: tf.TensorInfo): number => info.shape.slice(0, -2).reduce((x, y) => x * y, 1);
    const batch = batchOf(left);
    const [M, K] = left.shape.slice(-2) as [number, number];
    const N = right.shape[right.shape.length - 1] as number;
    // The same batch dimensions, not just the same count of products: [2, 1, …] × [1, 2, …] broadcasts to
    // four products, which only the plain kernel computes (the split below would pair them up as two).
    const sameBatch =
      left.shape.length === right.shape.length &&
      left.shape.slice(0, -2).every((extent, axis) => extent === right.shape[axis]);
    let out: tf.TensorInfo;
    // wasm runs batch > 1 through a naive loop (~1 GFLOP/s) but batch 1 through XNNPACK (~25): split
    // equal-batch products into batch-1 products when each is big enough to repay the extra calls.
    if (batch > 1 && sameBatch && M * K * N >= 32768) {
      const flat = (info: tf.TensorInfo, rows: number, cols: number): tf.TensorInfo =>
        keep(
          reshape.kernelFunc({
            inputs: { x: info },
            backend,
            attrs: { shape: [batch, rows, cols] },
          }) as tf.TensorInfo,
        );
      const a3 = flat(left, M, K);
      const b3 = flat(right, K, N);
      // Batch entry i as its own tensor. wasm's Slice kernel reads its whole input out of the heap on every
      // call (readSync copies it), which made this loop quadratic in the batch; this copies the entry alone.
      const entry = (info: tf.TensorInfo, i: number, rows: number, cols: number): tf.TensorInfo => {
        const out = keep(wasm.makeOutput([1, rows, cols], info.dtype));
        // Read the views after makeOutput: growing the heap detaches views taken before it.
        const size = rows * cols;
        wasm.typedArrayFromHeap(out).set(wasm.typedArrayFromHeap(info).subarray(i * size, (i + 1) * size));
        return out;
      };
      const parts: tf.TensorInfo[] = [];
      for (let i = 0; i < batch; i++) {
        const ai = entry(a3, i, M, K);
        const bi = entry(b3, i, K, N);
        parts.push(keep(plainMatMul({ inputs: { a: ai, b: bi }, backend, attrs: plainAttrs }) as tf.TensorInfo));
      }
      const joined = keep(
        concat.kernelFunc({
          inputs: parts as unknown as tf.NamedTensorInfoMap,
          backend,
          attrs: { axis: 0 },
        }) as tf.TensorInfo,
      );
      out = reshape.kernelFunc({
        inputs: { x: joined },
        backend,
        attrs: { shape: [...left.shape.slice(0, -2), M, N] },
      }) as tf.TensorInfo;
    } else if (left === a && right === b) {
      out = plainMatMul(args) as tf.TensorInfo;
    } else {
      out = plainMatMul({ inputs: { a: left, b: right }, backend, attrs: plainAttrs }) as tf.TensorInfo;
    }
    return out;
  };
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({
    kernelName: 'BatchMatMul',
    backendName: 'wasm',
    // The wasm kernel binds its C function in setupFunc, run when the backend starts: registering before
    // `setBackend('wasm')` (as useBackend does) keeps that working.
    ...(batchMatMul.setupFunc ? { setupFunc: batchMatMul.setupFunc } : {}),
    kernelFunc: (args) => {
      const { inputs, backend } = args;
      const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      // wasm multiplies float32 only: its kernel refuses the rest before allocating anything, where the
      // transposes and batch entries below would be left on the heap by its error.
      if (a.dtype !== 'float32' || b.dtype !== 'float32') return plainMatMul(args);
      const wasm = backend as unknown as WasmBackendLike;
      const temporaries: tf.TensorInfo[] = [];
      try {
        return product(args, temporaries);
      } finally {
        for (const info of temporaries) wasm.disposeData(info.dataId);
      }
    },
  });
}
