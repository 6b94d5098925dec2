import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {
  CheckpointError,
  readSafetensors,
  saveAdapter,
  saveValueHead,
  writeSafetensors,
  type LanguageModel,
  type NamedTensors,
  type Trainer,
} from '@turngym/lm';
import { fsyncPath, fsyncTree } from '@turngym/core';
import type { RunDirectory, RunFileSizes } from './run-directory';

export const TRAINING_CHECKPOINT_FORMAT = 'turngym.training-checkpoint/v1';

/** Where things live inside `<run>/checkpoint/`. */
export const CHECKPOINT_FILES = {
  manifest: 'checkpoint.json',
  /** The LoRA adapter in PEFT's format (`loadAdapter` and `peft` read it as is). */
  adapter: 'adapter',
  valueHead: 'value_head.safetensors',
  /** Base weights, for full fine-tuning: `base.<i>` in `trainableVariables({ base: true })` order. */
  base: 'base.safetensors',
  /** `Trainer.saveState`: Adam's moments, step count, options. */
  trainer: 'trainer',
} as const;

/** The previous checkpoint, while a new one is swapped in. */
const PREVIOUS = 'checkpoint.previous';
const TEMPORARY_PREFIX = '.checkpoint-tmp-';

/** A JSON value (what `extra` may hold). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface SaveTrainingCheckpointOptions {
  /** The iteration just finished; a resume continues at `iteration + 1`. */
  readonly iteration: number;
  /** The optimiser; what it trains (its adapter, value head, base weights) is what gets saved. */
  readonly trainer: Trainer;
  /** The policy model; must be the trainer's (checked), for call sites that hold both. */
  readonly model?: LanguageModel;
  /** The adapter the trainer trains; must be the trainer's (checked). */
  readonly adapter?: string | null;
  /** The trainer's own state beyond the model: RNG states, counters, schedules, global_step. JSON only. */
  readonly extra?: JsonValue;
}

export interface ResumedTraining<Extra = JsonValue> {
  /** The last finished iteration: continue at `iteration + 1`. */
  readonly iteration: number;
  readonly extra: Extra;
}

/** checkpoint.json */
interface CheckpointManifest {
  readonly format: typeof TRAINING_CHECKPOINT_FORMAT;
  readonly iteration: number;
  readonly savedAt: string;
  readonly trained: { readonly adapter: string | null; readonly valueHead: boolean; readonly base: boolean };
  /** Byte lengths of metrics.jsonl and trajectories.jsonl once this iteration was written. */
  readonly runFiles: RunFileSizes;
  readonly extra: JsonValue;
}

/** Rejects what JSON would silently change (NaN → null, undefined dropped), naming the path. */
function checkJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${path} is ${value}; checkpoint state must be finite JSON.`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkJson(item, `${path}[${index}]`));
    return;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) checkJson(item, `${path}.${key}`);
    return;
  }
  throw new RangeError(
    `${path} is ${typeof value === 'object' ? 'a class instance' : typeof value}; checkpoint state must be JSON.`,
  );
}

function trainedBy(trainer: Trainer): CheckpointManifest['trained'] {
  return {
    adapter: trainer.options.adapter ?? null,
    valueHead: trainer.options.valueHead,
    base: trainer.options.base,
  };
}

async function baseTensors(model: LanguageModel): Promise<NamedTensors> {
  const tensors: NamedTensors = new Map();
  const variables = model.trainableVariables({ base: true });
  for (const [index, variable] of variables.entries()) {
    tensors.set(`base.${index}`, {
      shape: [...variable.shape],
      data: Float32Array.from((await variable.data()) as Float32Array),
    });
  }
  return tensors;
}

/**
 * Saves what a resume needs after `iteration`: the trained weights, the trainer's optimiser state, the
 * caller's `extra`, and the lengths of metrics.jsonl and trajectories.jsonl. Written into a temporary
 * directory beside `checkpoint/`, synced to disk, then swapped in by renames: a kill at any point leaves
 * either the previous checkpoint or this one, whole.
 */
export async function saveTrainingCheckpoint(run: RunDirectory, options: SaveTrainingCheckpointOptions): Promise<void> {
  const { iteration, trainer } = options;
  const model = trainer.model;
  if (!Number.isInteger(iteration) || iteration < 0) {
    throw new RangeError(`saveTrainingCheckpoint: iteration must be a non-negative integer, got ${String(iteration)}.`);
  }
  if (options.model !== undefined && options.model !== model) {
    throw new RangeError('saveTrainingCheckpoint: `model` is not the model the trainer trains.');
  }
  const trained = trainedBy(trainer);
  if (options.adapter !== undefined && (options.adapter ?? null) !== trained.adapter) {
    throw new RangeError(
      `saveTrainingCheckpoint: adapter "${String(options.adapter)}" is not the one the trainer trains (${JSON.stringify(trained.adapter)}).`,
    );
  }
  if (run.lastIteration !== null && run.lastIteration > iteration) {
    throw new RangeError(
      `saveTrainingCheckpoint: metrics.jsonl already has iteration ${run.lastIteration}, after the checkpoint's ${iteration}; ` +
        'save the checkpoint at the end of each iteration, after its metrics.',
    );
  }
  const extra = options.extra ?? null;
  checkJson(extra, 'extra');

  // Stale temporaries are the remains of a save that was killed; they were never the checkpoint.
  for (const name of await readdir(run.path)) {
    if (name.startsWith(TEMPORARY_PREFIX)) await rm(join(run.path, name), { recursive: true, force: true });
  }
  await run.sync();
  const manifest: CheckpointManifest = {
    format: TRAINING_CHECKPOINT_FORMAT,
    iteration,
    savedAt: new Date().toISOString(),
    trained,
    runFiles: await run.fileSizes(),
    extra,
  };
  const temporary = await mkdtemp(join(run.path, TEMPORARY_PREFIX));
  if (trained.adapter) await saveAdapter(model, trained.adapter, join(temporary, CHECKPOINT_FILES.adapter));
  if (trained.valueHead) await saveValueHead(model, temporary);
  if (trained.base) await writeFile(join(temporary, CHECKPOINT_FILES.base), writeSafetensors(await baseTensors(model)));
  await trainer.saveState(join(temporary, CHECKPOINT_FILES.trainer));
  await writeFile(join(temporary, CHECKPOINT_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  await fsyncTree(temporary);

  // A directory cannot be renamed over a non-empty one, so the swap is two renames. Between them only
  // the previous checkpoint exists (as checkpoint.previous), and loading falls back to it.
  const current = run.checkpointPath;
  const previous = join(run.path, PREVIOUS);
  if (existsSync(current)) {
    await rm(previous, { recursive: true, force: true });
    await rename(current, previous);
  }
  await rename(temporary, current);
  await fsyncPath(run.path);
  await rm(previous, { recursive: true, force: true });
}

function readManifest(dir: string): CheckpointManifest {
  const path = join(dir, CHECKPOINT_FILES.manifest);
  let manifest: CheckpointManifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as CheckpointManifest;
  } catch (error) {
    throw new CheckpointError(`${path} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (manifest.format !== TRAINING_CHECKPOINT_FORMAT) {
    throw new CheckpointError(`${path}: format "${String(manifest.format)}" is not ${TRAINING_CHECKPOINT_FORMAT}.`);
  }
  if (!Number.isInteger(manifest.iteration) || manifest.iteration < 0 || typeof manifest.runFiles !== 'object') {
    throw new CheckpointError(`${path}: iteration or runFiles is missing or malformed.`);
  }
  return manifest;
}

function readTensors(path: string): NamedTensors {
  if (!existsSync(path)) throw new CheckpointError(`${path} not found: the checkpoint is incomplete.`);
  return readSafetensors(readFileSync(path), path).tensors;
}

/** Loads weights into the model's existing variables: the trainer holds those very variables. */
function loadWeights(dir: string, trainer: Trainer, trained: CheckpointManifest['trained']): void {
  const model = trainer.model;
  if (trained.adapter) {
    const adapterDir = join(dir, CHECKPOINT_FILES.adapter);
    const configPath = join(adapterDir, 'adapter_config.json');
    const saved = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
    const live = model.adapter(trained.adapter).peftConfig();
    for (const key of ['r', 'lora_alpha', 'target_modules'] as const) {
      if (JSON.stringify(saved[key]) !== JSON.stringify(live[key])) {
        throw new CheckpointError(
          `${configPath}: ${key} is ${JSON.stringify(saved[key])} but adapter "${trained.adapter}" has ${JSON.stringify(live[key])}.`,
        );
      }
    }
    const weightsPath = join(adapterDir, 'adapter_model.safetensors');
    model.adapter(trained.adapter).setTensors(readTensors(weightsPath), weightsPath);
  }
  if (trained.valueHead) {
    const path = join(dir, CHECKPOINT_FILES.valueHead);
    if (!model.valueHead) throw new CheckpointError(`${path}: the checkpoint has a value head and the model has none.`);
    model.valueHead.setTensors(readTensors(path), path);
  }
  if (trained.base) {
    const path = join(dir, CHECKPOINT_FILES.base);
    const tensors = readTensors(path);
    const variables = model.trainableVariables({ base: true });
    if (tensors.size !== variables.length) {
      throw new CheckpointError(`${path} holds ${tensors.size} base tensors; the model has ${variables.length}.`);
    }
    for (const [index, variable] of variables.entries()) {
      const tensor = tensors.get(`base.${index}`);
      if (!tensor || tensor.shape.join(',') !== variable.shape.join(',')) {
        throw new CheckpointError(
          `${path}: tensor "base.${index}" is ${tensor ? `[${tensor.shape.join(', ')}]` : 'missing'}, expected [${variable.shape.join(', ')}].`,
        );
      }
    }
    for (const [index, variable] of variables.entries()) {
      const tensor = tensors.get(`base.${index}`)!;
      tf.tidy(() => variable.assign(tf.tensor(tensor.data, [...tensor.shape])));
    }
  }
}

/**
 * Resumes a run from `<run>/checkpoint/`: loads the trained weights into `model` (which must already have
 * the adapter / value head the trainer trains, as built for a fresh run) and the optimiser state into
 * `trainer`, then cuts metrics.jsonl and trajectories.jsonl back to the checkpoint, so rows of an
 * iteration that was killed before its checkpoint (and any torn line) are gone. Returns the checkpoint's
 * iteration and `extra`, or null when the run has no checkpoint (then the files are emptied: the run
 * starts over at iteration 0).
 */
export async function loadTrainingCheckpoint<Extra = JsonValue>(
  run: RunDirectory,
  model: LanguageModel,
  trainer: Trainer,
): Promise<ResumedTraining<Extra> | null> {
  if (model !== trainer.model)
    throw new RangeError('loadTrainingCheckpoint: `model` is not the model the trainer trains.');
  const previous = join(run.path, PREVIOUS);
  const dir = existsSync(join(run.checkpointPath, CHECKPOINT_FILES.manifest))
    ? run.checkpointPath
    : existsSync(join(previous, CHECKPOINT_FILES.manifest))
      ? previous // killed between the two renames of a save: the previous checkpoint is the whole one
      : null;
  if (dir === null && existsSync(run.checkpointPath)) {
    // `checkpoint/` only ever appears whole (renamed from a finished temporary): one without its manifest
    // was changed by hand, and starting over would wipe the run's metrics.
    throw new CheckpointError(
      `${run.checkpointPath} has no ${CHECKPOINT_FILES.manifest}; restore it, or delete the directory to start the run over.`,
    );
  }
  if (dir === null) {
    await run.rollBack({ metrics: 0, trajectories: 0 }, 'a run with no checkpoint');
    return null;
  }
  const manifest = readManifest(dir);
  const expected = trainedBy(trainer);
  if (JSON.stringify(manifest.trained) !== JSON.stringify(expected)) {
    throw new CheckpointError(
      `${join(dir, CHECKPOINT_FILES.manifest)}: the checkpoint trained ${JSON.stringify(manifest.trained)}, this trainer trains ${JSON.stringify(expected)}.`,
    );
  }
  loadWeights(dir, trainer, manifest.trained);
  await trainer.loadState(join(dir, CHECKPOINT_FILES.trainer));
  await run.rollBack(manifest.runFiles, `the checkpoint of iteration ${manifest.iteration}`);
  return { iteration: manifest.iteration, extra: manifest.extra as Extra };
}
