import * as tf from '@tensorflow/tfjs';
import { registerCpuKernels, registerWasmKernels } from './internal/fast-kernels';
import { BackendUnavailableError } from './lm-errors';

/** `tensorflow` = @tensorflow/tfjs-node-gpu or -node (optional peers); `auto` picks the fastest installed. */
export type BackendName = 'tensorflow' | 'wasm' | 'cpu' | 'auto';

export const BACKEND_NAMES: readonly BackendName[] = ['auto', 'tensorflow', 'wasm', 'cpu'];

/** Reserved for backend settings (wasm threads are not enabled yet: tfjs disables them in Node). */
export type BackendOptions = Record<string, never>;

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

/** True when the backend can be used in this process (for `auto` and for tests that skip). */
export function isBackendAvailable(name: Exclude<BackendName, 'auto'>): boolean {
  if (name === 'cpu') return true;
  if (name === 'wasm') return loadWasm();
  try {
    return loadTensorflowBinding() !== null;
  } catch {
    return false;
  }
}

/**
 * Makes `name` tfjs's backend for this process (tfjs has one global backend) and returns the backend
 * actually in use. `auto` (the default, or TURNGYM_LM_BACKEND): tensorflow when installed, else wasm,
 * else cpu. Variables made on another backend move over on their next use.
 */
export async function useBackend(
  name: BackendName = 'auto',
  _options: BackendOptions = {},
): Promise<Exclude<BackendName, 'auto'>> {
  let chosen = name;
  if (chosen === 'auto') {
    const fromEnvironment = process.env.TURNGYM_LM_BACKEND as BackendName | undefined;
    if (fromEnvironment && fromEnvironment !== 'auto' && BACKEND_NAMES.includes(fromEnvironment))
      chosen = fromEnvironment;
    else chosen = isBackendAvailable('tensorflow') ? 'tensorflow' : isBackendAvailable('wasm') ? 'wasm' : 'cpu';
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
