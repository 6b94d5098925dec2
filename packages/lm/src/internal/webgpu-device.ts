import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runInThisContext } from 'node:vm';

/**
 * Finds a WebGPU adapter in Node through Dawn (the `webgpu` npm package, whose `dawn.node` ships inside it),
 * for tfjs's webgpu backend. What was verified on these machines is in shared/MACHINE.md:
 *
 * - Dawn tries Vulkan first: on a GPU machine the driver's Vulkan ICD (NVIDIA's, say) with the loader
 *   `libvulkan.so.1`. Debian 12's lavapipe (Mesa 22) is refused by Dawn; Mesa 25's works.
 * - Without a Vulkan adapter, Dawn's OpenGL ES backend runs on Mesa's EGL (`libegl1 libgl1-mesa-dri`) with no
 *   display (`EGL_PLATFORM=surfaceless`) at WebGPU's compatibility feature level. On a CPU-only machine that
 *   is llvmpipe, a software rasteriser: correct, and slow.
 * - `auto` must not pick a software adapter (wasm is 4–6× faster than llvmpipe here), so adapters report
 *   whether they are software, from the names Mesa and Dawn give them.
 */

/** The Dawn backends tried, in this order unless TURNGYM_WEBGPU_BACKEND names one. */
export const DAWN_BACKENDS = ['vulkan', 'opengles'] as const;
export type DawnBackend = (typeof DAWN_BACKENDS)[number];

/** The adapter a webgpu backend runs on (see `backendInfo().adapter`). */
export interface WebGpuAdapterInfo {
  /** Dawn's backend: Vulkan, or OpenGL ES through EGL. */
  readonly backend: DawnBackend;
  /** WebGPU's feature level: `core`, or `compatibility` (what OpenGL ES can offer). */
  readonly featureLevel: 'core' | 'compatibility';
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  /** A CPU rasteriser (llvmpipe, lavapipe, SwiftShader…): correct, but no faster than wasm. */
  readonly software: boolean;
}

/** The parts of Dawn's GPU objects used here (the `webgpu` package's types are not a dependency). */
export interface GpuAdapterLike {
  readonly info?: Partial<Record<'vendor' | 'architecture' | 'device' | 'description', string>> & {
    isFallbackAdapter?: boolean;
  };
  readonly isFallbackAdapter?: boolean;
}

export interface GpuLike {
  requestAdapter(options?: Record<string, unknown>): Promise<GpuAdapterLike | null>;
  readonly wgslLanguageFeatures?: unknown;
}

interface DawnModule {
  create(flags: string[]): GpuLike;
  globals: Record<string, unknown>;
}

/** An adapter found, with the GPU object it came from (tfjs asks that GPU for it again). */
export interface FoundAdapter {
  readonly gpu: GpuLike;
  readonly adapter: GpuAdapterLike;
  readonly info: WebGpuAdapterInfo;
  readonly globals: Record<string, unknown>;
}

/** Either an adapter, or why none was found (each backend tried, and what it lacked). */
export type AdapterSearch = { readonly found: FoundAdapter } | { readonly found: null; readonly reasons: string[] };

const SOFTWARE_NAMES = /llvmpipe|lavapipe|softpipe|swiftshader|software|\bwarp\b/i;

/** Whether an adapter's names say it is a CPU rasteriser, or Dawn says it is a fallback adapter. */
export function isSoftwareAdapter(info: {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  fallback?: boolean;
}): boolean {
  if (info.fallback) return true;
  return [info.vendor, info.architecture, info.device, info.description].some(
    (name) => name !== undefined && SOFTWARE_NAMES.test(name),
  );
}

/** Where `dawn.node` is: TURNGYM_DAWN_NODE (the GPU kit sets it), else inside the `webgpu` package. */
export function dawnBinaryPath(): { path: string } | { path: null; reason: string } {
  const fromEnvironment = process.env.TURNGYM_DAWN_NODE?.trim();
  if (fromEnvironment) {
    return existsSync(fromEnvironment)
      ? { path: fromEnvironment }
      : { path: null, reason: `TURNGYM_DAWN_NODE names ${fromEnvironment}, which does not exist` };
  }
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('webgpu/package.json'));
  } catch {
    return {
      path: null,
      reason: 'the `webgpu` package (Dawn for Node) is not installed: npm install webgpu@0.6.2',
    };
  }
  const platform = process.platform === 'darwin' ? 'darwin-universal' : `${process.platform}-${process.arch}`;
  const path = join(packageDir, 'dist', platform, 'dawn.node');
  return existsSync(path)
    ? { path }
    : { path: null, reason: `the \`webgpu\` package has no Dawn binary for ${platform} (${path})` };
}

/** The directories the dynamic loader searches: LD_LIBRARY_PATH, then the usual system ones. */
function libraryDirectories(): string[] {
  const fromEnvironment = (process.env.LD_LIBRARY_PATH ?? '').split(':').filter((dir) => dir !== '');
  const triplet = process.arch === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';
  return [...fromEnvironment, `/usr/lib/${triplet}`, `/lib/${triplet}`, '/usr/lib64', '/usr/lib', '/usr/local/lib'];
}

/** Whether a shared library (by file name) is on the loader's path. */
export function findLibrary(name: string): string | null {
  for (const dir of libraryDirectories()) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * The Vulkan drivers (ICD manifests) the loader would find: VK_DRIVER_FILES / VK_ICD_FILENAMES, else the
 * `vulkan/icd.d` folders under XDG_CONFIG_DIRS, /etc, XDG_DATA_DIRS and ~/.local/share. A GPU driver (NVIDIA's
 * nvidia_icd.json) or Mesa's lavapipe put one there; with none, Dawn's Vulkan backend only prints warnings.
 */
export function vulkanDriverFiles(): string[] {
  const named = process.env.VK_DRIVER_FILES ?? process.env.VK_ICD_FILENAMES;
  if (named) return named.split(':').filter((file) => file !== '' && existsSync(file));
  const split = (value: string | undefined, fallback: string): string[] =>
    (value || fallback).split(':').filter((dir) => dir !== '');
  const roots = [
    ...split(process.env.XDG_CONFIG_DIRS, '/etc/xdg'),
    '/etc',
    ...split(process.env.XDG_DATA_DIRS, '/usr/local/share:/usr/share'),
    ...(process.env.HOME ? [join(process.env.HOME, '.local/share')] : []),
  ];
  const files: string[] = [];
  for (const root of roots) {
    const dir = join(root, 'vulkan', 'icd.d');
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) if (name.endsWith('.json')) files.push(join(dir, name));
  }
  return files;
}

/**
 * Dawn resolves a mapAsync only from a tick it queues with the global `setImmediate`. tfjs reads tensors
 * synchronously in places (`dataSync`, which generation and the trainers' losses use), so the sync read runs
 * those ticks itself (see webgpu-sync-read.ts). This records each tick Dawn queues — native functions, which
 * no JavaScript caller passes — and runs it at most once, whichever comes first: the event loop or a sync read.
 */
const pendingTicks: { run: () => void; done: boolean }[] = [];

/**
 * Node's own global object. Dawn looks `setImmediate` up on the global of the context it was loaded in,
 * which under jest is not the test's sandbox global; `vm.runInThisContext` runs in Node's main context.
 * Elsewhere it is `globalThis` itself.
 */
function hostGlobal(): typeof globalThis {
  return runInThisContext('globalThis') as typeof globalThis;
}
let ticksTracked = false;

function trackDawnTicks(): void {
  if (ticksTracked) return;
  ticksTracked = true;
  const host = hostGlobal();
  const original = host.setImmediate;
  const tracked = function (this: unknown, callback: (...args: unknown[]) => void, ...args: unknown[]) {
    if (typeof callback === 'function' && Function.prototype.toString.call(callback).includes('[native code]')) {
      const entry = { run: () => callback(...args), done: false };
      pendingTicks.push(entry);
      return original(() => {
        if (entry.done) return;
        entry.done = true;
        entry.run();
      });
    }
    return original(callback, ...args);
  };
  Object.assign(tracked, original);
  host.setImmediate = tracked as typeof setImmediate;
}

/** Runs the oldest Dawn tick not yet run; false when none is queued. */
export function runDawnTick(): boolean {
  for (;;) {
    const entry = pendingTicks.shift();
    if (!entry) return false;
    if (entry.done) continue;
    entry.done = true;
    entry.run();
    return true;
  }
}

/**
 * Sets an environment variable that native code reads (with getenv) unless it is set already. Under jest,
 * `process.env` is a copy that never reaches the real environment, so this also sets it on the host's
 * `process` (see hostGlobal).
 */
function setEnvironmentDefault(name: string, value: string): void {
  for (const env of new Set([process.env, hostGlobal().process.env])) if (!env[name]) env[name] = value;
}

let dawn: DawnModule | null = null;
/** One Dawn instance per backend, made on first use: a probe by `auto` and a later start share it. */
const instances = new Map<DawnBackend, GpuLike>();

function gpuFor(module: DawnModule, backend: DawnBackend): GpuLike {
  let gpu = instances.get(backend);
  if (!gpu) {
    gpu = module.create([`backend=${backend}`]);
    instances.set(backend, gpu);
  }
  return gpu;
}

function loadDawn(): { module: DawnModule } | { module: null; reason: string } {
  if (dawn) return { module: dawn };
  const located = dawnBinaryPath();
  if (located.path === null) return { module: null, reason: located.reason };
  trackDawnTicks();
  try {
    // A native addon found at run time: the `webgpu` package is an optional peer, and the GPU kit ships
    // dawn.node beside its bundle. The package's own index.js is ESM, which jest's require cannot load.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    dawn = require(located.path) as DawnModule;
  } catch (error) {
    return { module: null, reason: `Dawn (${located.path}) failed to load: ${(error as Error).message}` };
  }
  return { module: dawn };
}

function describe(backend: DawnBackend, featureLevel: 'core' | 'compatibility', adapter: GpuAdapterLike) {
  const info = adapter.info ?? {};
  const names = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
  };
  const fallback = info.isFallbackAdapter === true || adapter.isFallbackAdapter === true;
  return { backend, featureLevel, ...names, software: isSoftwareAdapter({ ...names, fallback }) };
}

/**
 * What a Dawn backend lacks on this machine before Dawn is even loaded (a library it opens, a Vulkan
 * driver), or null. Checked first so that a machine without them gets a reason, not Dawn's warnings.
 */
export function missingForBackend(backend: DawnBackend): string | null {
  if (process.platform !== 'linux') return null;
  if (backend === 'vulkan') {
    if (findLibrary('libvulkan.so.1') === null)
      return 'Vulkan: no libvulkan.so.1 (apt install libvulkan1, plus a GPU driver that ships a Vulkan ICD)';
    if (vulkanDriverFiles().length === 0)
      return 'Vulkan: no Vulkan driver (no ICD manifest in /usr/share/vulkan/icd.d or /etc/vulkan/icd.d; a GPU driver installs one, e.g. nvidia_icd.json)';
    return null;
  }
  if (findLibrary('libEGL.so') === null)
    return 'OpenGL ES: no libEGL.so (apt install libegl1 libgl1-mesa-dri libegl-dev, or link libEGL.so.1 as libEGL.so in a directory on LD_LIBRARY_PATH)';
  return null;
}

/**
 * Why `@tensorflow/tfjs-backend-webgpu` cannot be loaded, or null. It is not imported to find out (it must be
 * imported after `navigator.gpu` is set). TURNGYM_WEBGPU_BUNDLED=1 says a bundle carries it (the GPU kit).
 */
export function backendPackageMissing(): string | null {
  if (process.env.TURNGYM_WEBGPU_BUNDLED === '1') return null;
  try {
    require.resolve('@tensorflow/tfjs-backend-webgpu');
    return null;
  } catch {
    return '@tensorflow/tfjs-backend-webgpu is not installed: npm install @tensorflow/tfjs-backend-webgpu@4.22.0';
  }
}

/**
 * Why no webgpu test can run here (the first thing missing), or null when Dawn, tfjs-webgpu and some
 * backend's libraries are all present. Synchronous and without loading Dawn, for test files to decide.
 */
export function webGpuPrerequisitesMissing(): string | null {
  const dawnPath = dawnBinaryPath();
  if (dawnPath.path === null) return dawnPath.reason;
  const backendPackage = backendPackageMissing();
  if (backendPackage !== null) return backendPackage;
  const missing = backendsToTry().map(missingForBackend);
  return missing.includes(null) ? null : missing.join('; ');
}

/** TURNGYM_WEBGPU_BACKEND: `vulkan` or `opengles` to try that one alone; unset = both, Vulkan first. */
function backendsToTry(): DawnBackend[] {
  const named = process.env.TURNGYM_WEBGPU_BACKEND?.trim();
  if (!named) return [...DAWN_BACKENDS];
  return DAWN_BACKENDS.includes(named as DawnBackend) ? [named as DawnBackend] : [];
}

/**
 * Looks for an adapter: Vulkan at WebGPU's core level, then OpenGL ES at the compatibility level.
 * `hardwareOnly` (for `auto`) tries Vulkan alone and refuses a software adapter: on Linux a real GPU shows
 * through Vulkan, and an OpenGL ES adapter without one is Mesa's llvmpipe. Each backend is skipped, with the
 * reason, when the library Dawn opens for it is missing, so a machine without one prints no Dawn warnings.
 */
export async function findAdapter(options: { hardwareOnly: boolean }): Promise<AdapterSearch> {
  const named = process.env.TURNGYM_WEBGPU_BACKEND?.trim();
  const backends = backendsToTry().filter((backend) => !options.hardwareOnly || backend === 'vulkan');
  if (backends.length === 0) {
    return {
      found: null,
      reasons: [
        named && !DAWN_BACKENDS.includes(named as DawnBackend)
          ? `TURNGYM_WEBGPU_BACKEND is "${named}"; use one of ${DAWN_BACKENDS.join(', ')} (or leave it unset)`
          : 'only Vulkan shows a hardware GPU, and TURNGYM_WEBGPU_BACKEND excludes it',
      ],
    };
  }
  const reasons: string[] = [];
  for (const backend of backends) {
    const missing = missingForBackend(backend);
    if (missing !== null) {
      reasons.push(missing);
      continue;
    }
    const loaded = loadDawn();
    if (loaded.module === null) return { found: null, reasons: [loaded.reason] };
    // Mesa's EGL needs a platform without a display server; set before Dawn first opens EGL.
    if (backend === 'opengles') setEnvironmentDefault('EGL_PLATFORM', 'surfaceless');
    const gpu = gpuFor(loaded.module, backend);
    const featureLevel = backend === 'vulkan' ? 'core' : 'compatibility';
    const adapter = await gpu.requestAdapter({ featureLevel, powerPreference: 'high-performance' });
    if (adapter === null) {
      reasons.push(
        backend === 'vulkan'
          ? 'Vulkan: Dawn found no adapter (the driver refused, e.g. Mesa 22 lavapipe)'
          : 'OpenGL ES: Dawn found no adapter (an EGL driver: apt install libgl1-mesa-dri)',
      );
      continue;
    }
    const info = describe(backend, featureLevel, adapter);
    if (options.hardwareOnly && info.software) {
      reasons.push(`${backend}: only a software adapter (${info.device || info.description || info.vendor})`);
      continue;
    }
    return { found: { gpu, adapter, info, globals: loaded.module.globals } };
  }
  return { found: null, reasons };
}
