import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError } from '@turngym/core';
import { BackendUnavailableError } from '../lm-errors';
import { boundBufferPool, type BoundedPool, type BufferManagerLike, type WebGpuPoolInfo } from './webgpu-buffer-pool';
import { findAdapter, type FoundAdapter, type WebGpuAdapterInfo } from './webgpu-device';
import { checkReadsForDeviceErrors, watchDevice, type GpuDeviceLike } from './webgpu-device-errors';
import { registerWebGpuKernels } from './webgpu-kernels';
import { registerWebGpuLayerKernels } from './webgpu-layer-kernels';
import { patchWebGpuReadSync } from './webgpu-sync-read';

/**
 * Starts tfjs's webgpu backend (`@tensorflow/tfjs-backend-webgpu`, an optional peer) on an adapter Dawn
 * found. The package registers its backend on import only where `navigator.gpu` exists, and its factory asks
 * `navigator.gpu` for an adapter with `powerPreference` alone (an OpenGL ES adapter needs the compatibility
 * feature level), so while it is imported and started `navigator.gpu` hands it the adapter found here.
 * `navigator` is removed again afterwards: other packages take a global `navigator` for a browser.
 */
const INSTALL = 'npm install @tensorflow/tfjs-backend-webgpu@4.22.0 webgpu@0.6.2';

let running: WebGpuAdapterInfo | null = null;
let pool: BoundedPool | null = null;

/** Free GPU memory kept for reuse when neither the options nor TURNGYM_WEBGPU_POOL_MB say: 1 GiB. */
const DEFAULT_WEBGPU_POOL_BYTES = 1024 * 1024 * 1024;

/** The pool limit from TURNGYM_WEBGPU_POOL_MB (MiB), else the default. */
function poolBytesFromEnvironment(): number {
  const text = process.env.TURNGYM_WEBGPU_POOL_MB?.trim();
  if (!text) return DEFAULT_WEBGPU_POOL_BYTES;
  const mib = Number(text);
  if (!Number.isFinite(mib) || mib < 0) {
    throw new InvalidOptionsError('TURNGYM_WEBGPU_POOL_MB', [`must be a number of MiB, 0 or more (got "${text}")`]);
  }
  return Math.round(mib * 1024 * 1024);
}

/** The webgpu backend's buffer pool (webgpu-buffer-pool.ts); null before it starts. */
export function webGpuPoolInfo(): WebGpuPoolInfo | null {
  return pool ? pool.info() : null;
}

/** The adapter the webgpu backend runs on; null before it starts. */
export function webGpuAdapterInfo(): WebGpuAdapterInfo | null {
  return running;
}

/** The webgpu backend package's module, required once `navigator.gpu` is set. */
interface WebGpuModule {
  WebGPUBackend: { prototype: object };
}

function loadBackendPackage(): WebGpuModule {
  try {
    // A guarded require: an optional peer, and it must load after navigator.gpu exists (see above).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@tensorflow/tfjs-backend-webgpu') as WebGpuModule;
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND') {
      throw new BackendUnavailableError(
        `Backend "webgpu" needs @tensorflow/tfjs-backend-webgpu (an optional peer, not installed): ${INSTALL}.`,
        { cause: error },
      );
    }
    throw new BackendUnavailableError(
      `@tensorflow/tfjs-backend-webgpu is installed but failed to load: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Runs `body` with `navigator.gpu` handing out `found`'s adapter (once; later asks get a fresh one). */
async function withNavigatorGpu<T>(found: FoundAdapter, body: () => Promise<T>): Promise<T> {
  let handedOut = false;
  const gpu = {
    requestAdapter: async (options: Record<string, unknown> = {}) => {
      if (!handedOut) {
        handedOut = true;
        return found.adapter;
      }
      return found.gpu.requestAdapter({ ...options, featureLevel: found.info.featureLevel });
    },
    getPreferredCanvasFormat: () => 'bgra8unorm',
    wgslLanguageFeatures: found.gpu.wgslLanguageFeatures,
  };
  const global = globalThis as { navigator?: object };
  const hadNavigator = Object.prototype.hasOwnProperty.call(global, 'navigator');
  const previous = Object.getOwnPropertyDescriptor(global, 'navigator');
  const existing = global.navigator;
  if (existing) Object.defineProperty(existing, 'gpu', { value: gpu, configurable: true });
  else Object.defineProperty(global, 'navigator', { value: { gpu }, configurable: true, writable: true });
  try {
    return await body();
  } finally {
    if (existing) delete (existing as { gpu?: unknown }).gpu;
    else if (hadNavigator && previous) Object.defineProperty(global, 'navigator', previous);
    else delete global.navigator;
  }
}

/** Finds an adapter (`hardwareOnly` for `auto`); null when none, with the reasons. */
export async function probeWebGpu(options: { hardwareOnly: boolean }): Promise<WebGpuAdapterInfo | string> {
  const search = await findAdapter(options);
  return search.found ? search.found.info : search.reasons.join('; ');
}

/**
 * Makes tfjs's webgpu backend the one in use, starting it on first call. `poolBytes` bounds the free GPU
 * memory it keeps for reuse (default TURNGYM_WEBGPU_POOL_MB, else 1 GiB); given again, it changes the bound.
 */
export async function startWebGpu(poolBytes?: number): Promise<WebGpuAdapterInfo> {
  if (tf.findBackend('webgpu') !== null && running !== null) {
    if (tf.getBackend() !== 'webgpu' && !(await tf.setBackend('webgpu'))) {
      throw new BackendUnavailableError('tfjs could not switch back to the "webgpu" backend.');
    }
    if (poolBytes !== undefined) pool?.setLimit(poolBytes);
    return running;
  }
  const limit = poolBytes ?? poolBytesFromEnvironment();
  const search = await findAdapter({ hardwareOnly: false });
  if (!search.found) {
    throw new BackendUnavailableError(`Backend "webgpu" found no GPU adapter: ${search.reasons.join('; ')}.`);
  }
  const found = search.found;
  // tfjs-webgpu names these globals (GPUBufferUsage, GPUMapMode…) everywhere, not only when it starts.
  for (const [name, value] of Object.entries(found.globals)) {
    if (!(name in globalThis)) Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  await withNavigatorGpu(found, async () => {
    const module = loadBackendPackage();
    if (tf.findBackendFactory('webgpu') === null) {
      throw new BackendUnavailableError(
        '@tensorflow/tfjs-backend-webgpu was imported before navigator.gpu existed, so it registered no backend; let useBackend("webgpu") import it.',
      );
    }
    patchWebGpuReadSync(module.WebGPUBackend);
    checkReadsForDeviceErrors(module.WebGPUBackend);
    registerWebGpuKernels();
    registerWebGpuLayerKernels();
    let ok: boolean;
    try {
      ok = await tf.setBackend('webgpu');
    } catch (error) {
      throw new BackendUnavailableError(`tfjs could not start the "webgpu" backend: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!ok) throw new BackendUnavailableError(`tfjs could not start the "webgpu" backend on ${found.info.device}.`);
  });
  const backend = tf.findBackend('webgpu') as unknown as { bufferManager?: BufferManagerLike; device: GpuDeviceLike };
  watchDevice(backend.device);
  const manager = backend.bufferManager;
  if (!manager || typeof manager.releaseBuffer !== 'function' || !(manager.freeBuffers instanceof Map)) {
    // Without the bound a long run fills the GPU (see webgpu-buffer-pool.ts): refuse rather than run into it.
    throw new BackendUnavailableError(
      '@tensorflow/tfjs-backend-webgpu has no BufferManager of the shape 4.22 has, so its buffer pool cannot be bounded; install @tensorflow/tfjs-backend-webgpu@4.22.0.',
    );
  }
  pool = boundBufferPool(manager, limit);
  running = found.info;
  return found.info;
}
