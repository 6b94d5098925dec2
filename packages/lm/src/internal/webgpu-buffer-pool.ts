/**
 * A limit on the GPU memory tfjs-webgpu holds for reuse. Its BufferManager keeps every buffer a disposed
 * tensor releases, keyed by exact size and usage, and frees none until the backend is disposed. A model run
 * on shapes that vary (generation at each prompt length, training rows of each length, a uniform buffer per
 * kernel call) makes new sizes all the time, so the pool only grows: on an NVIDIA H200 the math GRPO run ran
 * out of its 140 GiB of GPU memory after 11 iterations while its tensors held a few MB (docs/benchmarks/perf.md).
 * Here the pool keeps at most `limitBytes` free: past it, the buffers released longest ago are destroyed.
 * A buffer is released only after the commands that use it are submitted (tfjs defers disposal to its queue
 * submission), and WebGPU lets a submitted command finish with a buffer destroyed after it, so eviction is safe.
 */

interface GpuBufferLike {
  readonly size: number;
  readonly usage: number;
  destroy(): void;
}

/** The part of tfjs-webgpu's BufferManager (4.22) this patch reads and wraps. */
export interface BufferManagerLike {
  freeBuffers: Map<string, GpuBufferLike[]>;
  numBytesUsed: number;
  numBytesAllocated: number;
  numFreeBuffers: number;
  acquireBuffer(size: number, usage: number, mappedAtCreation?: boolean, reuse?: boolean): GpuBufferLike;
  releaseBuffer(buffer: GpuBufferLike, reuse?: boolean): void;
  dispose(): void;
}

/** What the pool holds now (`backendInfo().pool`). */
export interface WebGpuPoolInfo {
  /** Bytes of released buffers the pool may keep for reuse. */
  readonly limitBytes: number;
  /** Bytes of released buffers it keeps now. */
  readonly freeBytes: number;
  /** Bytes held by live tensors and in-flight uniforms. */
  readonly usedBytes: number;
  /** Buffers destroyed so far to stay under the limit. */
  readonly evictedBuffers: number;
}

export interface BoundedPool {
  info(): WebGpuPoolInfo;
  setLimit(bytes: number): void;
}

/**
 * Wraps `manager` so that it keeps at most `limitBytes` of free buffers; returns its handle. Called once per
 * backend (startWebGpu starts it once and changes the limit through the handle after).
 */
export function boundBufferPool(manager: BufferManagerLike, limitBytes: number): BoundedPool {
  let limit = limitBytes;
  let evicted = 0;
  // Free buffers in the order they were released (a Set iterates in insertion order): the first is the oldest.
  const released = new Set<GpuBufferLike>();
  const acquire = manager.acquireBuffer.bind(manager);
  const release = manager.releaseBuffer.bind(manager);
  const dispose = manager.dispose.bind(manager);
  const freeBytes = (): number => manager.numBytesAllocated - manager.numBytesUsed;

  const evict = (): void => {
    for (const buffer of released) {
      if (freeBytes() <= limit) break;
      released.delete(buffer);
      const list = manager.freeBuffers.get(`${buffer.size}_${buffer.usage}`);
      const index = list ? list.indexOf(buffer) : -1;
      // Every acquire passes through the wrapper below, so the buffer is there; were a later tfjs to take free
      // buffers some other way, skipping is safe where splicing at −1 would drop another buffer from the pool.
      if (index < 0) continue;
      list!.splice(index, 1);
      manager.numFreeBuffers -= 1;
      manager.numBytesAllocated -= buffer.size;
      buffer.destroy();
      evicted += 1;
    }
  };

  manager.acquireBuffer = (size, usage, mappedAtCreation = false, reuse = true) => {
    const buffer = acquire(size, usage, mappedAtCreation, reuse);
    released.delete(buffer);
    return buffer;
  };
  manager.releaseBuffer = (buffer, reuse = true) => {
    const before = manager.numFreeBuffers;
    release(buffer, reuse);
    // Kept for reuse (not destroyed, and not the no-op after dispose): the newest in the pool.
    if (manager.numFreeBuffers > before) released.add(buffer);
    if (freeBytes() > limit) evict();
  };
  manager.dispose = () => {
    released.clear();
    dispose();
  };
  return {
    info: () => ({
      limitBytes: limit,
      freeBytes: freeBytes(),
      usedBytes: manager.numBytesUsed,
      evictedBuffers: evicted,
    }),
    setLimit: (bytes) => {
      limit = bytes;
      evict();
    },
  };
}
