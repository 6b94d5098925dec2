import * as tf from '@tensorflow/tfjs';
import { GpuCommandError } from '../lm-errors';

/**
 * WebGPU reports a command it rejects (a validation error, an allocation that failed) through the device's
 * `uncapturederror` event, not by throwing: the command is dropped, and every tensor it should have written
 * keeps whatever its buffer held. tfjs-webgpu does not listen, so a buffer past the device's
 * `maxStorageBufferBindingSize` once went on to train on garbage, with only Dawn's log lines to say so. Here
 * the first such error is kept, and every read of a tensor from the GPU (sync or async) throws it: generation
 * reads each step's logits and training reads its loss, so a run stops within a step instead of scoring
 * garbage. It stays failed: the tensors the dropped commands fed are wrong, and nothing says which.
 * The device's buffer limit is kept here too (`maxTensorBytes`): the size past which its commands are rejected,
 * which attention stays under by working in blocks of rows (decoder.ts).
 */
export interface GpuDeviceLike {
  onuncapturederror: ((event: { error?: { message?: string } }) => void) | null;
  readonly limits: { readonly maxStorageBufferBindingSize: number; readonly maxBufferSize: number };
}

let failure: { message: string; count: number } | null = null;
let bufferLimit = Number.POSITIVE_INFINITY;

/**
 * Records the device's buffer limit and, from now on, its uncaptured errors (the first one's message, and how
 * many).
 */
export function watchDevice(device: GpuDeviceLike): void {
  bufferLimit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  failure = null;
  device.onuncapturederror = (event) => {
    const message = (event.error?.message ?? String(event)).trim();
    if (failure) failure.count++;
    else failure = { message, count: 1 };
  };
}

/** Throws GpuCommandError if the device has rejected a command since the backend started. */
export function throwIfDeviceFailed(): void {
  if (!failure) return;
  const first = failure.message.split('\n')[0]!;
  throw new GpuCommandError(
    `webgpu: the GPU rejected ${failure.count === 1 ? 'a command' : `${failure.count} commands`} (${first}), so ` +
      'the tensors computed since are not valid. Restart the process; if a buffer was too large, lower the batch ' +
      '(maxBatch, minibatchTokens) or run on the wasm backend.',
    failure.message,
  );
}

/** Test hook: forget a recorded failure (a real run has no way back from one). */
export function clearDeviceFailure(): void {
  failure = null;
}

interface ReadingBackend {
  read(dataId: object): Promise<unknown>;
  readSync(dataId: object): unknown;
}

/**
 * Makes the backend class's reads throw a recorded failure: checked after the read too, since the GPU
 * reports a rejected command while the read waits for the queue.
 */
export function checkReadsForDeviceErrors(backendClass: { prototype: object }): void {
  const prototype = backendClass.prototype as ReadingBackend;
  const read = prototype.read;
  const readSync = prototype.readSync;
  prototype.read = async function (this: ReadingBackend, dataId: object) {
    throwIfDeviceFailed();
    const values = await read.call(this, dataId);
    throwIfDeviceFailed();
    return values;
  };
  prototype.readSync = function (this: ReadingBackend, dataId: object) {
    throwIfDeviceFailed();
    const values = readSync.call(this, dataId);
    throwIfDeviceFailed();
    return values;
  };
}

/**
 * The most bytes one tensor may take while webgpu is the backend in use: the device's storage-binding limit
 * (128 MiB on a software adapter, GiBs on a GPU), past which its commands are rejected. Infinity otherwise.
 */
export function maxTensorBytes(): number {
  if (limitForTests !== null) return limitForTests;
  return tf.getBackend() === 'webgpu' ? bufferLimit : Number.POSITIVE_INFINITY;
}

let limitForTests: number | null = null;

/** Test hook: a tensor-size limit on any backend (null: the device's again), to exercise the blocked paths. */
export function limitTensorBytesForTests(bytes: number | null): void {
  limitForTests = bytes;
}
