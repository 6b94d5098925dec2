import { availableParallelism } from 'node:os';
import * as tf from '@tensorflow/tfjs';
import { defineOptions, InvalidOptionsError, type JSONSchemaType } from '@turngym/core';
import { registerCpuKernels, registerWasmKernels } from './internal/fast-kernels';
import {
  MAX_WASM_THREADS,
  restartWasmRegistration,
  startSingleThreadedWasm,
  startThreadedWasm,
  wasmThreadsCount,
} from './internal/wasm-threads';
import { probeWebGpu, startWebGpu, webGpuAdapterInfo, webGpuPoolInfo } from './internal/webgpu-backend';
import type { WebGpuPoolInfo } from './internal/webgpu-buffer-pool';
import { backendPackageMissing, dawnBinaryPath, type WebGpuAdapterInfo } from './internal/webgpu-device';
import { BackendUnavailableError } from './lm-errors';

export type { WebGpuAdapterInfo } from './internal/webgpu-device';
export type { WebGpuPoolInfo } from './internal/webgpu-buffer-pool';

/**
 * `tensorflow` = @tensorflow/tfjs-node-gpu or -node (optional peers); `webgpu` = @tensorflow/tfjs-backend-webgpu
 * on Dawn (the `webgpu` package; optional peers too), on a GPU or, slowly, a software adapter; `auto` picks the
 * fastest installed.
 */
export type BackendName = 'tensorflow' | 'webgpu' | 'wasm' | 'cpu' | 'auto';

export const BACKEND_NAMES: readonly BackendName[] = ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'];

export interface BackendOptions {
  /**
   * wasm only (other backends ignore it): threads for the wasm kernels. 1 = the single-threaded SIMD build;
   * n > 1 = the threaded SIMD build on n worker_threads (at most 8, tfjs's pool); `auto` = the cores Node
   * reports (os.availableParallelism()). Unset: keep the running wasm backend's threads, or start with
   * TURNGYM_LM_THREADS (a number or `auto`), else 1. If the threaded build fails to start, wasm runs on one
   * thread with a warning (code TURNGYM_WASM_THREADS). Choose before the wasm backend holds tensors:
   * changing the count restarts it.
   */
  threads?: number | 'auto';
  /**
   * webgpu only: bytes of released GPU buffers kept for reuse (tfjs-webgpu would keep every one, and a run on
   * varying shapes fills the GPU). Unset: TURNGYM_WEBGPU_POOL_MB (MiB), else 1 GiB. 0 frees each buffer at once.
   */
  webgpuPoolBytes?: number;
}

export const backendOptionsSchema: JSONSchemaType<BackendOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    threads: {
      type: ['integer', 'string'],
      anyOf: [
        { type: 'integer', minimum: 1, maximum: MAX_WASM_THREADS },
        { type: 'string', enum: ['auto'] },
      ],
      nullable: true,
    },
    webgpuPoolBytes: { type: 'integer', minimum: 0, nullable: true },
  },
} as JSONSchemaType<BackendOptions>;

const validateOptions = defineOptions<BackendOptions>('useBackend', backendOptionsSchema);

/** The backend in use and how it runs (see `backendInfo`). */
export interface BackendInfo {
  readonly name: string;
  /** Threads the kernels run on; null where the backend keeps its own pool (tensorflow). */
  readonly threads: number | null;
  /** Whether the kernels use SIMD; null where tfjs cannot tell (tensorflow, webgpu). */
  readonly simd: boolean | null;
  /** webgpu only: the adapter it runs on (a GPU, or a software rasteriser such as llvmpipe). */
  readonly adapter?: WebGpuAdapterInfo;
  /** webgpu only: the GPU memory its buffer pool holds (`BackendOptions.webgpuPoolBytes`). */
  readonly pool?: WebGpuPoolInfo;
}

/** Loads the TensorFlow C binding if one is installed; returns the package name, or null. */
function loadTensorflowBinding(): string | null {
  for (const name of ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']) {
    try {
      // A guarded require: these are optional peers that need a libtensorflow download to install.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(name);
      return name;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== 'MODULE_NOT_FOUND') {
        throw new BackendUnavailableError(`${name} is installed but failed to load: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
  }
  return null;
}

function loadWasm(): boolean {
  try {
    // Loaded on demand: importing it registers the backend, which a cpu-only run does not need.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('@tensorflow/tfjs-backend-wasm');
    registerWasmKernels();
    return true;
  } catch {
    return false;
  }
}

/** Whether the webgpu backend's two packages are installed (not whether an adapter exists: see webGpuAdapter). */
function webGpuInstalled(): boolean {
  return dawnBinaryPath().path !== null && backendPackageMissing() === null;
}

/**
 * True when the backend can be used in this process (for `auto` and for tests that skip). For webgpu: its
 * packages are installed; whether Dawn finds an adapter is `webGpuAdapter`'s question (it is async).
 */
export function isBackendAvailable(name: Exclude<BackendName, 'auto'>): boolean {
  if (name === 'cpu') return true;
  if (name === 'wasm') return loadWasm();
  if (name === 'webgpu') return webGpuInstalled();
  try {
    return loadTensorflowBinding() !== null;
  } catch {
    return false;
  }
}

/** TURNGYM_LM_THREADS: a thread count or `auto`; unset = 1. */
function threadsFromEnvironment(): number | 'auto' {
  const text = process.env.TURNGYM_LM_THREADS?.trim();
  if (!text) return 1;
  if (text === 'auto') return 'auto';
  const threads = Number(text);
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_WASM_THREADS) {
    throw new InvalidOptionsError('TURNGYM_LM_THREADS', [
      `must be an integer from 1 to ${MAX_WASM_THREADS} or "auto" (got "${text}")`,
    ]);
  }
  return threads;
}

/**
 * TURNGYM_LM_BACKEND: a backend name; unset or empty = `auto`. A name it does not know is refused, as
 * TURNGYM_LM_THREADS is: a typo (`wsam`) used to fall back to `auto` silently and run on another backend.
 */
function backendFromEnvironment(): BackendName {
  const text = process.env.TURNGYM_LM_BACKEND?.trim();
  if (!text) return 'auto';
  if (!(BACKEND_NAMES as readonly string[]).includes(text)) {
    throw new InvalidOptionsError('TURNGYM_LM_BACKEND', [`must be one of ${BACKEND_NAMES.join(', ')} (got "${text}")`]);
  }
  return text as BackendName;
}

/** The thread count to run wasm on; undefined = keep the running wasm backend as it is. */
function wasmThreads(threads: BackendOptions['threads']): number | undefined {
  const request = threads ?? (tf.findBackend('wasm') === null ? threadsFromEnvironment() : undefined);
  return request === 'auto' ? Math.min(availableParallelism(), MAX_WASM_THREADS) : request;
}

/** Starts (or restarts, for another thread count) the wasm backend; keeps a running one that fits. */
async function startWasm(threads: number | undefined): Promise<void> {
  const running = tf.findBackend('wasm');
  if (running !== null) {
    if (threads === undefined || wasmThreadsCount() === threads) {
      if (tf.getBackend() !== 'wasm' && !(await tf.setBackend('wasm')))
        throw new BackendUnavailableError('tfjs could not start the "wasm" backend.');
      return;
    }
    const held = running.numDataIds();
    if (held > 0) {
      throw new BackendUnavailableError(
        `The wasm backend runs on ${wasmThreadsCount()} thread(s) and holds ${held} tensor(s); choose threads: ${threads} before making tensors on it (or dispose them first).`,
      );
    }
    restartWasmRegistration();
  }
  if ((threads ?? 1) > 1) {
    try {
      await startThreadedWasm(threads as number);
      return;
    } catch (error) {
      process.emitWarning(
        `wasm threads failed to start (${(error as Error).message}); running the wasm backend on one thread.`,
        { code: 'TURNGYM_WASM_THREADS' },
      );
      restartWasmRegistration();
    }
  }
  try {
    await startSingleThreadedWasm();
  } catch (error) {
    throw new BackendUnavailableError(`tfjs could not start the "wasm" backend: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The adapter `useBackend('webgpu')` would run on, or why there is none (a string naming what is missing:
 * a package, a library, a driver). `hardwareOnly` refuses software adapters, as `auto` does. Starts nothing.
 */
export async function webGpuAdapter(options: { hardwareOnly?: boolean } = {}): Promise<WebGpuAdapterInfo | string> {
  if (!webGpuInstalled()) {
    const dawn = dawnBinaryPath();
    return dawn.path === null ? dawn.reason : (backendPackageMissing() as string);
  }
  const running = webGpuAdapterInfo();
  if (running && (!options.hardwareOnly || !running.software)) return running;
  return probeWebGpu({ hardwareOnly: options.hardwareOnly ?? false });
}

/** The last backend switch asked for; the next one starts after it settles. */
let switching: Promise<unknown> = Promise.resolve();

/**
 * Makes `name` tfjs's backend for this process (tfjs has one global backend) and returns the backend
 * actually in use. `auto` (the default, or TURNGYM_LM_BACKEND): tensorflow when installed, else webgpu on a
 * hardware GPU (never a software adapter, which is slower than wasm), else wasm, else cpu. Variables made on another backend move over on their next use. `options.threads` sets the
 * wasm backend's threads (see BackendOptions; `backendInfo()` says what runs).
 */
export function useBackend(
  name: BackendName = 'auto',
  options: BackendOptions = {},
): Promise<Exclude<BackendName, 'auto'>> {
  // One switch at a time: two callers that both found wasm unstarted would both start its module, and the
  // second start fails ("could not start the wasm module"). Each call waits for the one before, then finds
  // the backend already running. A failed switch does not block the next.
  const switched = switching.then(() => switchBackend(name, options));
  switching = switched.catch(() => undefined);
  return switched;
}

async function switchBackend(name: BackendName, options: BackendOptions): Promise<Exclude<BackendName, 'auto'>> {
  const { threads, webgpuPoolBytes } = validateOptions(options);
  let chosen = name;
  if (chosen === 'auto') {
    const fromEnvironment = backendFromEnvironment();
    if (fromEnvironment !== 'auto') chosen = fromEnvironment;
    else if (isBackendAvailable('tensorflow')) chosen = 'tensorflow';
    else if (isBackendAvailable('webgpu') && typeof (await webGpuAdapter({ hardwareOnly: true })) !== 'string')
      chosen = 'webgpu';
    else chosen = isBackendAvailable('wasm') ? 'wasm' : 'cpu';
  }
  if (chosen === 'tensorflow') {
    if (loadTensorflowBinding() === null) {
      throw new BackendUnavailableError(
        'Backend "tensorflow" needs @tensorflow/tfjs-node-gpu or @tensorflow/tfjs-node (optional peers, not installed). Use --backend wasm or cpu.',
      );
    }
  } else if (chosen === 'wasm') {
    if (!loadWasm())
      throw new BackendUnavailableError('Backend "wasm" needs @tensorflow/tfjs-backend-wasm, which failed to load.');
    await startWasm(wasmThreads(threads));
  } else if (chosen === 'webgpu') {
    if (!webGpuInstalled()) {
      const reason = await webGpuAdapter();
      throw new BackendUnavailableError(
        `Backend "webgpu" needs the optional peers webgpu and @tensorflow/tfjs-backend-webgpu: ${String(reason)}. Use --backend wasm or cpu.`,
      );
    }
    await startWebGpu(webgpuPoolBytes);
  } else if (chosen === 'cpu') {
    registerCpuKernels();
  } else {
    throw new BackendUnavailableError(`Unknown backend "${String(chosen)}"; use one of ${BACKEND_NAMES.join(', ')}.`);
  }
  if (tf.getBackend() !== chosen) {
    const ok = await tf.setBackend(chosen);
    if (!ok) throw new BackendUnavailableError(`tfjs could not start the "${chosen}" backend.`);
  }
  await tf.ready();
  if (chosen === 'cpu') {
    // The cpu backend prints a banner on first use suggesting tfjs-node; `auto` already prefers it.
    (tf.backend() as unknown as { firstUse?: boolean }).firstUse = false;
  }
  return chosen;
}

/** The backend tfjs is using now. */
export function currentBackend(): string {
  return tf.getBackend();
}

/** The backend tfjs is using now, with its thread count and whether it uses SIMD. */
export function backendInfo(): BackendInfo {
  const name = tf.getBackend();
  if (name === 'wasm') {
    return { name, threads: wasmThreadsCount(), simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT') };
  }
  if (name === 'cpu') return { name, threads: 1, simd: false };
  const adapter = name === 'webgpu' ? webGpuAdapterInfo() : null;
  const pool = name === 'webgpu' ? webGpuPoolInfo() : null;
  return { name, threads: null, simd: null, ...(adapter ? { adapter } : {}), ...(pool ? { pool } : {}) };
}
