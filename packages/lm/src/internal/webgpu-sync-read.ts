import * as tf from '@tensorflow/tfjs';
import { BackendUnavailableError } from '../lm-errors';
import { runDawnTick } from './webgpu-device';

/**
 * tfjs-webgpu's `readSync` (behind `dataSync`/`arraySync`) reads through an OffscreenCanvas, which Node does
 * not have. Generation samples from `dataSync`'d logits and the trainers' losses read scalars the same way,
 * so the backend needs a synchronous read that works in Node: copy the tensor's buffer to a mappable one,
 * ask Dawn to map it, and run Dawn's event ticks here (webgpu-device.ts records them) until it is mapped.
 * The values are cached on the tensor as tfjs's own async `read` does.
 */
interface GpuBufferLike {
  readonly size: number;
  readonly mapState: 'unmapped' | 'pending' | 'mapped';
  mapAsync(mode: number): Promise<void>;
  getMappedRange(): ArrayBuffer;
  unmap(): void;
}

interface TensorDataLike {
  values: tf.backend_util.BackendValues | null;
  dtype: tf.DataType;
  resource: GpuBufferLike | null;
  complexTensorInfos?: { real: tf.TensorInfo; imag: tf.TensorInfo };
}

interface WebGpuBackendLike {
  tensorMap: { get(dataId: tf.DataId): TensorDataLike };
  bufferManager: {
    acquireBuffer(size: number, usage: number): GpuBufferLike;
    releaseBuffer(buffer: GpuBufferLike): void;
  };
  commandEncoder: {
    copyBufferToBuffer(from: GpuBufferLike, a: number, to: GpuBufferLike, b: number, size: number): void;
  };
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  submitQueue(): void;
  convertAndCacheOnCPU(dataId: tf.DataId, values: tf.backend_util.BackendValues): tf.backend_util.BackendValues;
  readSync(dataId: tf.DataId): tf.backend_util.BackendValues;
}

/** Spins before each pause while the GPU works: a software adapter needs the cores this loop would take. */
const SPINS_BEFORE_PAUSING = 64;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Maps `buffer` for reading, running Dawn's ticks until it is mapped. */
function mapForReadingNow(buffer: GpuBufferLike, mapRead: number): void {
  let failure: unknown = null;
  buffer.mapAsync(mapRead).catch((error: unknown) => (failure = error));
  for (let spins = 0; buffer.mapState !== 'mapped'; spins++) {
    if (buffer.mapState === 'unmapped' || failure !== null || !runDawnTick()) {
      throw new BackendUnavailableError(
        `webgpu: reading a tensor back from the GPU failed (${failure ? String(failure) : `buffer ${buffer.mapState}, no Dawn event pending`}).`,
        { cause: failure ?? undefined },
      );
    }
    if (spins >= SPINS_BEFORE_PAUSING) Atomics.wait(pause, 0, 0, 0.1);
  }
}

function readNow(backend: WebGpuBackendLike, dataId: tf.DataId): tf.backend_util.BackendValues {
  const data = backend.tensorMap.get(dataId);
  if (data.values != null || data.dtype === 'string') return data.values as tf.backend_util.BackendValues;
  if (data.dtype === 'complex64') {
    const real = readNow(backend, data.complexTensorInfos!.real.dataId) as Float32Array;
    const imag = readNow(backend, data.complexTensorInfos!.imag.dataId) as Float32Array;
    return backend.convertAndCacheOnCPU(dataId, tf.backend_util.mergeRealAndImagArrays(real, imag));
  }
  const source = data.resource;
  if (source === null || source.size === 0) {
    return backend.convertAndCacheOnCPU(
      dataId,
      tf.util.convertBackendValuesAndArrayBuffer(new ArrayBuffer(0), data.dtype),
    );
  }
  const usage = globalThis as unknown as { GPUBufferUsage: Record<string, number>; GPUMapMode: Record<string, number> };
  const staging = backend.bufferManager.acquireBuffer(
    source.size,
    (usage.GPUBufferUsage.COPY_DST as number) | (usage.GPUBufferUsage.MAP_READ as number),
  );
  backend.ensureCommandEncoderReady();
  backend.endComputePassEncoder();
  backend.commandEncoder.copyBufferToBuffer(source, 0, staging, 0, source.size);
  backend.submitQueue();
  mapForReadingNow(staging, usage.GPUMapMode.READ as number);
  const bytes = staging.getMappedRange().slice(0);
  staging.unmap();
  backend.bufferManager.releaseBuffer(staging);
  return backend.convertAndCacheOnCPU(dataId, tf.util.convertBackendValuesAndArrayBuffer(bytes, data.dtype));
}

/** Replaces the webgpu backend class's `readSync` with one that works in Node. */
export function patchWebGpuReadSync(backendClass: { prototype: object }): void {
  (backendClass.prototype as WebGpuBackendLike).readSync = function (this: WebGpuBackendLike, dataId: tf.DataId) {
    return readNow(this, dataId);
  };
}
