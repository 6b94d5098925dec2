import * as tf from '@tensorflow/tfjs';

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
}

/**
 * `SplitV` (tf.split) as straight heap copies. The wasm backend's kernel takes each piece with its Slice
 * kernel, which reads the whole input out of the heap into JavaScript first (`readSync`): RoPE's split of
 * the queries and keys into halves did so twice a layer, ~14% of a generation's time on tiny-1m
 * (docs/benchmarks/perf.md, rollouts). The pieces are the same bytes: a split only copies.
 */
export function registerWasmSplit(): void {
  const original = tf.getKernel('SplitV', 'wasm');
  if (!original) return;
  tf.unregisterKernel('SplitV', 'wasm');
  tf.registerKernel({
    kernelName: 'SplitV',
    backendName: 'wasm',
    ...(original.setupFunc ? { setupFunc: original.setupFunc } : {}),
    kernelFunc: (args) => {
      const { inputs, backend, attrs } = args;
      const { x } = inputs as { x: tf.TensorInfo };
      if (x.dtype === 'complex64' || x.dtype === 'string') return original.kernelFunc(args);
      const { numOrSizeSplits, axis } = attrs as unknown as { numOrSizeSplits: number | number[]; axis: number };
      const axisIndex = tf.util.parseAxisParam(axis, x.shape)[0] as number;
      const sizes = tf.backend_util.prepareSplitSize(x, numOrSizeSplits, axisIndex);
      const wasm = backend as unknown as WasmBackendLike;
      // Make the outputs first: allocating may grow the heap, which detaches views taken before it.
      const outputs = sizes.map((size) =>
        wasm.makeOutput(
          x.shape.map((extent, index) => (index === axisIndex ? size : extent)),
          x.dtype,
        ),
      );
      const outer = x.shape.slice(0, axisIndex).reduce((a, b) => a * b, 1);
      const inner = x.shape.slice(axisIndex + 1).reduce((a, b) => a * b, 1);
      const dimSize = x.shape[axisIndex] as number;
      const source = wasm.typedArrayFromHeap(x);
      let begin = 0;
      outputs.forEach((output, piece) => {
        const size = (sizes[piece] as number) * inner;
        if (size > 0) {
          const target = wasm.typedArrayFromHeap(output);
          for (let o = 0; o < outer; o++) {
            const from = (o * dimSize + begin) * inner;
            target.set(source.subarray(from, from + size), o * size);
          }
        }
        begin += sizes[piece] as number;
      });
      return outputs;
    },
  });
}
