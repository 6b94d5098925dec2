import { resolveObjectURL } from 'node:buffer';
import type { Worker as NodeWorker, WorkerOptions } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';

/**
 * Starts tfjs's threaded SIMD wasm binary in Node. tfjs ships it (Emscripten pthreads on worker_threads)
 * but never uses it outside a browser, for four reasons this shim works around at run time (nothing in
 * node_modules is edited):
 *
 * 1. The WASM_HAS_MULTITHREAD_SUPPORT flag answers false in Node (tfjs issue 3830): we set it.
 * 2. Emscripten starts every pthread worker from a Blob URL, which Node's Worker cannot load, then posts it
 *    the main script as a Blob, which the worker's `importScripts` (fs.readFileSync) cannot read. So while
 *    `tf.setBackend('wasm')` runs, `worker_threads.Worker` (which Emscripten copies to the global `Worker`)
 *    is a subclass that starts such workers from WORKER_BOOTSTRAP below instead, handing it the Blob.
 * 3. The C++ side caps its pool at `os.cpus().length / 2` (it assumes two hyperthreads per core), read
 *    once as the module starts; on a 2-core machine that is 1. While the backend starts, `os.cpus()`
 *    reports 2·threads entries, so the cap is the count asked for (tfjs's own limit, 8, still applies).
 * 4. Emscripten refs the worker of every running pthread, and XNNPACK's pool threads run for good, so a
 *    finished script would never exit. Our workers are unref'd and ignore `ref()`: the main thread only
 *    ever waits for them synchronously, inside a kernel call, so they never need to keep the process up;
 *    when it exits, Node ends them.
 */

/** tfjs's threaded build pre-creates 8 pthread workers and caps its pool there. */
export const MAX_WASM_THREADS = 8;

/** How long the workers get to load the module before we give up and fall back (it takes ~0.5 s). */
const STARTUP_TIMEOUT_MS = 60_000;

/**
 * Runs in each pthread worker (eval'd, so there is no file to ship or to find under jest). Emscripten
 * posts `load` first and nothing else until the worker answers `loaded`, so the async reads fit in between.
 * The main script is the factory's `toString()` from tfjs's Node bundle: it still names that bundle's
 * module-scope variables, which are defined here as globals (fs, path, perf_hooks, os, the global object,
 * and three tslib helpers that its downlevelled for-of loops and spreads call).
 */
const WORKER_BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.once('message', async (load) => {
  try {
    const [workerScript, mainScript] = await Promise.all([workerData.workerScript.text(), load.urlOrBlob.text()]);
    Object.assign(globalThis, {
      commonjsGlobal: globalThis,
      require$$0: require('node:fs'),
      require$$1: require('node:path'),
      require$$3: require('node:perf_hooks'),
      require$$4: require('node:os'),
      __values: (iterable) => iterable[Symbol.iterator](),
      __read: (iterable) => Array.from(iterable),
      __spreadArray: (to, from) => to.concat(Array.from(from)),
    });
    (0, eval)(workerScript); // Emscripten's pthread worker: listens for later messages, defines onmessage
    globalThis.importScripts = () => (0, eval)(mainScript);
    globalThis.onmessage({ data: load });
  } catch (error) {
    parentPort.postMessage({ pthreadBootstrapError: String(error) });
  }
});
`;

/** What a pthread worker reports when the bootstrap fails (Emscripten ignores messages without `cmd`). */
interface BootstrapError {
  readonly pthreadBootstrapError: string;
}

// Node's own module objects (not an import's copy): Emscripten reads `require('worker_threads').Worker`,
// and tfjs's C++ side reads `require('os').cpus()`.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const workerThreads = require('node:worker_threads') as typeof import('node:worker_threads');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const os = require('node:os') as typeof import('node:os');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const wasmPackage = (): typeof import('@tensorflow/tfjs-backend-wasm') => require('@tensorflow/tfjs-backend-wasm');

/** Set while a threaded start is in progress: where worker failures go instead of crashing the process. */
let failStartup: ((error: Error) => void) | null = null;
const pthreadWorkers = new Set<NodeWorker>();
const RealWorker = workerThreads.Worker;

class PthreadWorker extends RealWorker {
  private readonly pthread: boolean;
  private emscriptenOnError: ((error: unknown) => void) | undefined;

  constructor(filename: string | URL, options?: WorkerOptions) {
    const pthread = typeof filename === 'string' && filename.startsWith('blob:');
    // An unknown URL resolves to undefined: the bootstrap then reports the failure.
    if (pthread) super(WORKER_BOOTSTRAP, { eval: true, workerData: { workerScript: resolveObjectURL(filename) } });
    else super(filename, options); // someone else's worker, made while the swap is in place
    this.pthread = pthread;
    if (!pthread) return;
    pthreadWorkers.add(this);
    this.once('exit', () => pthreadWorkers.delete(this));
    this.on('message', (message: Partial<BootstrapError> | null) => {
      if (message?.pthreadBootstrapError) failStartup?.(new Error(message.pthreadBootstrapError));
    });
    this.unref();
  }

  override ref(): void {
    if (!this.pthread) super.ref();
  }

  // Emscripten rethrows a worker's error from its handler, which would end the process; while a fallback
  // is still possible, the error fails the start instead.
  get onerror(): (error: unknown) => void {
    return (error) => {
      if (failStartup) failStartup(error instanceof Error ? error : new Error(String(error)));
      else this.emscriptenOnError?.(error);
    };
  }

  set onerror(handler: (error: unknown) => void) {
    this.emscriptenOnError = handler;
  }
}

/**
 * Makes tfjs's wasm backend the threaded SIMD build with `threads` threads (2..8). The wasm backend must be
 * registered and not yet started (see `restartWasmRegistration`). Throws, with every worker it made ended,
 * if the threaded build cannot start; the caller then falls back to one thread.
 */
export async function startThreadedWasm(threads: number): Promise<void> {
  const wasm = wasmPackage();
  const failure = new Promise<never>((_, reject) => {
    failStartup = reject;
  });
  failure.catch(() => {}); // raced below; never left unhandled
  const timer = setTimeout(
    () => failStartup?.(new Error(`the pthread workers did not load within ${STARTUP_TIMEOUT_MS / 1000} s`)),
    STARTUP_TIMEOUT_MS,
  );
  const realCpus = os.cpus;
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', true);
  wasm.setThreadsCount(threads);
  workerThreads.Worker = PthreadWorker;
  os.cpus = () => {
    const cpus = realCpus();
    return Array.from({ length: 2 * threads }, (_, i) => cpus[i % cpus.length] as import('node:os').CpuInfo);
  };
  try {
    const started = await Promise.race([tf.setBackend('wasm'), failure]);
    if (!started) throw new Error('tfjs could not start the threaded wasm module');
    const running = wasm.getThreadsCount();
    if (running !== threads) throw new Error(`tfjs started ${running} threads, not ${threads}`);
  } catch (error) {
    await Promise.all([...pthreadWorkers].map((worker) => worker.terminate()));
    throw error;
  } finally {
    workerThreads.Worker = RealWorker;
    os.cpus = realCpus;
    clearTimeout(timer);
    failStartup = null;
  }
}

/** Makes tfjs's wasm backend the single-threaded build (SIMD where the runtime has it). */
export async function startSingleThreadedWasm(): Promise<void> {
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  wasmPackage().setThreadsCount(1);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs could not start the wasm module');
}

/** The thread count of the running wasm backend. */
export function wasmThreadsCount(): number {
  return wasmPackage().getThreadsCount();
}

/**
 * Forgets the started wasm backend (its pthread workers end with it) and registers the same factory again,
 * so the next `setBackend('wasm')` builds a new one, with other threads. Tensors it holds would be lost.
 */
export function restartWasmRegistration(): void {
  const engine = tf.engine() as unknown as {
    registryFactory: Record<string, { factory: () => Promise<tf.KernelBackend>; priority: number } | undefined>;
  };
  const entry = engine.registryFactory.wasm;
  if (!entry) throw new Error('the wasm backend is not registered');
  tf.removeBackend('wasm');
  tf.registerBackend('wasm', entry.factory, entry.priority);
}
