import * as tf from '@tensorflow/tfjs';

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  readSync(dataId: tf.DataId): ArrayLike<number>;
}

/**
 * `GatherV2` without batch dims as straight copies of contiguous slices out of wasm's heap.
 *
 * The wasm backend's own kernel computes every output element's source through per-element index
 * vectors, ~40 ns an element: taking one finished row's keys and values out of a generation batch
 * (`extractRow`) cost 6–8 ms at 256 cached tokens, more than a whole decode step, and dropping finished
 * rows (`selectRows`) as much per row again (profiled on tiny-1m; docs/benchmarks/perf.md, rollouts).
 * The output is the same bytes: a gather only copies.
 */
export function registerWasmGather(): void {
  const original = tf.getKernel('GatherV2', 'wasm');
  if (!original) return;
  tf.unregisterKernel('GatherV2', 'wasm');
  tf.registerKernel({
    kernelName: 'GatherV2',
    backendName: 'wasm',
    ...(original.setupFunc ? { setupFunc: original.setupFunc } : {}),
    kernelFunc: (args) => {
      const { inputs, backend, attrs } = args;
      const { x, indices } = inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
      const { axis, batchDims } = attrs as unknown as { axis: number; batchDims: number };
      const axisIndex = tf.util.parseAxisParam(axis, x.shape)[0] as number;
      // Batch dims and complex numbers keep the backend's kernel (nothing in this package gathers so).
      if ((batchDims ?? 0) !== 0 || x.dtype === 'complex64' || x.dtype === 'string') return original.kernelFunc(args);
      const wasm = backend as unknown as WasmBackendLike;
      const ids = wasm.readSync(indices.dataId);
      const dimSize = x.shape[axisIndex] as number;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as number;
        // The same check and message as tfjs's own kernel.
        tf.util.assert(
          id <= dimSize - 1 && id >= 0,
          () => `GatherV2: the index value ${id} is not in [0, ${dimSize - 1}]`,
        );
      }
      const outer = x.shape.slice(0, axisIndex).reduce((a, b) => a * b, 1);
      const slice = x.shape.slice(axisIndex + 1).reduce((a, b) => a * b, 1);
      const outShape = [...x.shape.slice(0, axisIndex), ...indices.shape, ...x.shape.slice(axisIndex + 1)];
      // Make the output first: allocating may grow the heap, which detaches views taken before it.
      const out = wasm.makeOutput(outShape, x.dtype);
      if (outShape.some((size) => size === 0)) return out;
      const target = wasm.typedArrayFromHeap(out);
      const source = wasm.typedArrayFromHeap(x);
      let to = 0;
      for (let o = 0; o < outer; o++) {
        const base = o * dimSize * slice;
        // Consecutive ids (a row's cached slots) are one contiguous block: one copy for the run.
        for (let i = 0; i < ids.length;) {
          const first = ids[i] as number;
          let run = 1;
          while (i + run < ids.length && (ids[i + run] as number) === first + run) run++;
          const from = base + first * slice;
          const size = run * slice;
          if (size >= 16) {
            target.set(source.subarray(from, from + size), to);
          } else {
            for (let j = 0; j < size; j++) target[to + j] = source[from + j] as number;
          }
          to += size;
          i += run;
        }
      }
      return out;
    },
  });
}
