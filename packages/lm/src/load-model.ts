import { useBackend, type BackendName } from './backend';
import { loadCheckpoint } from './checkpoint';
import { LanguageModel } from './language-model';
import { TINY_CONFIGS, type TinyConfigName } from './tiny-configs';

export interface LoadModelOptions {
  /** The tfjs backend to run on (default auto: tensorflow, else wasm, else cpu). */
  readonly backend?: BackendName;
  /** Seed for a built-in config's fresh weights. */
  readonly seed?: number;
  /** Load a checkpoint's base weights as trainable variables (full fine-tuning); built-in configs always are. */
  readonly trainable?: boolean;
}

/**
 * A model from a checkpoint directory, or a freshly initialised built-in config (`tiny-1m`, `tiny-8m`,
 * `tiny-30m`, `tiny-100m`; untrained — for plumbing and benchmarks). Selects the backend first.
 */
export async function loadModel(checkpoint: string, options: LoadModelOptions = {}): Promise<LanguageModel> {
  await useBackend(options.backend ?? 'auto');
  // Own keys only: `in` also took "toString" or "constructor" (a directory by that name) for a built-in config.
  if (Object.hasOwn(TINY_CONFIGS, checkpoint)) {
    return LanguageModel.create(TINY_CONFIGS[checkpoint as TinyConfigName], { seed: options.seed ?? 0 });
  }
  return loadCheckpoint(checkpoint, { trainable: options.trainable ?? false });
}
