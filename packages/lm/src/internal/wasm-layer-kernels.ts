import * as tf from '@tensorflow/tfjs';

/** RMSNorm of each row: x·rsqrt(mean(x²) + eps)·weight. Inputs `x` [N, d], `weight` [d]; attr `eps`. */
export const RMS_NORM = 'TurngymRmsNorm';
/** SwiGLU on a fused projection: `x` [N, 2F] holds gate then up; out [N, F] = silu(gate)·up. */
export const SWIGLU = 'TurngymSwiglu';

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: tf.DataId): boolean;
}

/**
 * Two of a decoder layer's elementwise stretches as one wasm kernel each, for generation (`fused-decoder`):
 * on tiny models a decode step's cost is mostly the number of tfjs ops, not their arithmetic, and RMSNorm
 * is six ops, SwiGLU three. No gradients: training keeps the tfjs ops.
 */
export function registerWasmLayerKernels(): void {
  if (!tf.getKernel('Reshape', 'wasm') || tf.getKernel(RMS_NORM, 'wasm')) return;
  tf.registerKernel({
    kernelName: RMS_NORM,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const wasm = backend as unknown as WasmBackendLike;
      const { x, weight } = inputs as { x: tf.TensorInfo; weight: tf.TensorInfo };
      const { eps } = attrs as unknown as { eps: number };
      const [rows, width] = x.shape as [number, number];
      // Make the output first: allocating may grow the heap, which detaches views taken before it.
      const info = wasm.makeOutput([rows, width], 'float32');
      const out = wasm.typedArrayFromHeap(info) as Float32Array;
      const xs = wasm.typedArrayFromHeap(x) as Float32Array;
      const ws = wasm.typedArrayFromHeap(weight) as Float32Array;
      for (let row = 0; row < rows; row++) {
        const from = row * width;
        let squares = 0;
        for (let j = 0; j < width; j++) squares += xs[from + j]! * xs[from + j]!;
        const inverse = 1 / Math.sqrt(squares / width + eps);
        for (let j = 0; j < width; j++) out[from + j] = xs[from + j]! * inverse * ws[j]!;
      }
      return info;
    },
  });
  const sigmoid = tf.getKernel('Sigmoid', 'wasm');
  if (!sigmoid) return;
  tf.registerKernel({
    kernelName: SWIGLU,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend }) => {
      const wasm = backend as unknown as WasmBackendLike;
      const { x } = inputs as { x: tf.TensorInfo };
      const [rows, width] = x.shape as [number, number];
      const half = width / 2;
      // wasm's vectorised sigmoid over gate and up alike (twice the elements, still ~10× cheaper than
      // Math.exp on the gate alone), then silu(gate)·up = gate·sigmoid(gate)·up in one pass, in float32 as the
      // tfjs ops round.
      const sigmoids = sigmoid.kernelFunc({ inputs: { x }, backend, attrs: {} }) as tf.TensorInfo;
      const info = wasm.makeOutput([rows, half], 'float32');
      const out = wasm.typedArrayFromHeap(info) as Float32Array;
      const xs = wasm.typedArrayFromHeap(x) as Float32Array;
      const gates = wasm.typedArrayFromHeap(sigmoids) as Float32Array;
      const fround = Math.fround;
      for (let row = 0; row < rows; row++) {
        const from = row * width;
        for (let j = 0; j < half; j++) {
          out[row * half + j] = fround(fround(xs[from + j]! * gates[from + j]!) * xs[from + half + j]!);
        }
      }
      wasm.disposeData(sigmoids.dataId);
      return info;
    },
  });
}
