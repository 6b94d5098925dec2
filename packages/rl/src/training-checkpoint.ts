import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
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
import { fsyncPath, fsyncTree, writeFileAtomically } from '@turngym/core';
import type { CheckpointStore } from './checkpoint-store';
import { checkJson, type JsonValue } from './json-value';
import { isSystemError, TrainingCheckpointError } from './rl-errors';
import { RUN_FILES, type RunDirectory, type RunFileSizes } from './run-directory';

export type { JsonValue } from './json-value';

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
  /** One directory per named extra trainer, each laid out as the checkpoint's top level (adapter, trainer…). */
  trainers: 'trainers',
  /** One directory per named store, holding what its `save` wrote. */
  stores: 'stores',
} as const;

/** The previous checkpoint, while a new one is swapped in. */
const PREVIOUS = 'checkpoint.previous';
const TEMPORARY_PREFIX = '.checkpoint-tmp-';

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
  /**
   * Trainers besides `trainer`, by name, on the same model: each trains its own adapter (a critic, a
   * planner) or the value head with its own optimiser, and is saved under `trainers/<name>/`.
   */
  readonly trainers?: Readonly<Record<string, Trainer>>;
  /** State outside the model (a search tree's statistics, a database file), by name, under `stores/<name>/`. */
  readonly stores?: Readonly<Record<string, CheckpointStore>>;
}

/** What a resume restores besides the policy trainer: the same names a save was given. */
export interface AttachedCheckpointState {
  readonly trainers?: Readonly<Record<string, Trainer>>;
  readonly stores?: Readonly<Record<string, CheckpointStore>>;
}

export interface ResumedTraining<Extra = JsonValue> {
  /** The last finished iteration: continue at `iteration + 1`. */
  readonly iteration: number;
  readonly extra: Extra;
}

/** What one trainer trains. */
interface Trained {
  readonly adapter: string | null;
  readonly valueHead: boolean;
  readonly base: boolean;
}

/** checkpoint.json */
interface CheckpointManifest {
  readonly format: typeof TRAINING_CHECKPOINT_FORMAT;
  readonly iteration: number;
  readonly savedAt: string;
  /** What the policy trainer trains; null in a checkpoint of stores alone (`saveStoresCheckpoint`). */
  readonly trained: Trained | null;
  /** The extra trainers, by name, and what each trains; absent when there are none (a v1 single-trainer file). */
  readonly trainers?: Readonly<Record<string, Trained>>;
  /** The stores' names, sorted; absent when there are none. */
  readonly stores?: readonly string[];
  /** Byte lengths of metrics.jsonl and trajectories.jsonl once this iteration was written. */
  readonly runFiles: RunFileSizes;
  readonly extra: JsonValue;
}

function trainedBy(trainer: Trainer): Trained {
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

/** Names become directory names inside the checkpoint: plain file names only. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkNames(kind: 'trainers' | 'stores', names: readonly string[]): void {
  for (const name of names) {
    if (!NAME.test(name)) {
      throw new TrainingCheckpointError(
        `${kind}: "${name}" is not a plain file name (letters, digits, ".", "_", "-", not starting with "." or "-").`,
      );
    }
  }
}

/**
 * The extra trainers' manifest entries, checked: each on the policy's model, and no weights trained by two
 * trainers (two optimisers stepping the same variables would make "the" optimiser state meaningless).
 */
function trainedByAll(main: Trainer, trainers: Readonly<Record<string, Trainer>>): Record<string, Trained> {
  const names = Object.keys(trainers).sort();
  checkNames('trainers', names);
  const owners = new Map<string, string>();
  const claim = (what: string, owner: string): void => {
    const known = owners.get(what);
    if (known !== undefined)
      throw new TrainingCheckpointError(`trainers: ${what} is trained by both ${known} and ${owner}.`);
    owners.set(what, owner);
  };
  const claimAll = (trained: Trained, owner: string): void => {
    if (trained.adapter !== null) claim(`adapter "${trained.adapter}"`, owner);
    if (trained.valueHead) claim('the value head', owner);
    if (trained.base) claim('the base weights', owner);
  };
  claimAll(trainedBy(main), 'the policy trainer');
  const entries: Record<string, Trained> = {};
  for (const name of names) {
    const trainer = trainers[name]!;
    if (trainer.model !== main.model) {
      throw new TrainingCheckpointError(`trainers.${name} trains another model than the policy trainer's.`);
    }
    entries[name] = trainedBy(trainer);
    claimAll(entries[name], `trainers.${name}`);
  }
  return entries;
}

/** Writes what `trainer` trains and its optimiser state into `dir`, in the checkpoint's layout. */
async function saveTrainer(dir: string, trainer: Trainer): Promise<void> {
  const trained = trainedBy(trainer);
  const model = trainer.model;
  await mkdir(dir, { recursive: true });
  if (trained.adapter) await saveAdapter(model, trained.adapter, join(dir, CHECKPOINT_FILES.adapter));
  if (trained.valueHead) await saveValueHead(model, dir);
  if (trained.base) await writeFile(join(dir, CHECKPOINT_FILES.base), writeSafetensors(await baseTensors(model)));
  await trainer.saveState(join(dir, CHECKPOINT_FILES.trainer));
}

/**
 * Saves what a resume needs after `iteration`, as one unit: the policy trainer's weights and optimiser
 * state, each extra trainer's (`trainers`), each store's snapshot (`stores`), the caller's `extra`, and
 * the lengths of metrics.jsonl and trajectories.jsonl. Everything is written into a temporary directory
 * beside `checkpoint/`, synced to disk, then swapped in by renames: a kill at any point leaves either the
 * previous checkpoint or this one, whole — never this iteration's adapters beside the last one's stores.
 */
export async function saveTrainingCheckpoint(run: RunDirectory, options: SaveTrainingCheckpointOptions): Promise<void> {
  const { iteration, trainer } = options;
  const model = trainer.model;
  checkIteration(run, iteration, 'saveTrainingCheckpoint');
  if (options.model !== undefined && options.model !== model) {
    throw new TrainingCheckpointError('saveTrainingCheckpoint: `model` is not the model the trainer trains.');
  }
  const trained = trainedBy(trainer);
  if (options.adapter !== undefined && (options.adapter ?? null) !== trained.adapter) {
    throw new TrainingCheckpointError(
      `saveTrainingCheckpoint: adapter "${String(options.adapter)}" is not the one the trainer trains (${JSON.stringify(trained.adapter)}).`,
    );
  }
  const trainers = options.trainers ?? {};
  const trainersTrained = trainedByAll(trainer, trainers);
  await writeCheckpoint(run, {
    iteration,
    trained,
    trainers: trainersTrained,
    stores: options.stores ?? {},
    extra: options.extra ?? null,
    writeModel: async (temporary) => {
      await saveTrainer(temporary, trainer);
      for (const name of Object.keys(trainersTrained)) {
        await saveTrainer(join(temporary, CHECKPOINT_FILES.trainers, name), trainers[name]!);
      }
    },
  });
}

export interface SaveStoresCheckpointOptions {
  /** The iteration just finished; a resume continues at `iteration + 1`. */
  readonly iteration: number;
  /**
   * Everything the run trains, by name, under `stores/<name>/`: a network that is not a `@turngym/lm` model
   * with its optimiser, a replay buffer, a search tree's statistics.
   */
  readonly stores: Readonly<Record<string, CheckpointStore>>;
  /** The trainer's own state beyond the stores: RNG states, counters, global_step. JSON only. */
  readonly extra?: JsonValue;
}

/**
 * `saveTrainingCheckpoint` for a trainer with no language model (AlphaZero's own tfjs network, a tabular
 * learner): the same protocol — one temporary directory, fsynced, swapped in by two renames, the lengths of
 * metrics.jsonl and trajectories.jsonl recorded — with the stores as the whole of the checkpoint.
 * checkpoint.json says `"trained": null`, so neither loader takes the other's checkpoint.
 */
export async function saveStoresCheckpoint(run: RunDirectory, options: SaveStoresCheckpointOptions): Promise<void> {
  checkIteration(run, options.iteration, 'saveStoresCheckpoint');
  await writeCheckpoint(run, {
    iteration: options.iteration,
    trained: null,
    trainers: {},
    stores: options.stores,
    extra: options.extra ?? null,
    writeModel: async () => {},
  });
}

function checkIteration(run: RunDirectory, iteration: number, caller: string): void {
  if (!Number.isInteger(iteration) || iteration < 0) {
    throw new TrainingCheckpointError(`${caller}: iteration must be a non-negative integer, got ${String(iteration)}.`);
  }
  if (run.lastIteration !== null && run.lastIteration > iteration) {
    throw new TrainingCheckpointError(
      `${caller}: metrics.jsonl already has iteration ${run.lastIteration}, after the checkpoint's ${iteration}; ` +
        'save the checkpoint at the end of each iteration, after its metrics.',
    );
  }
}

/** What one checkpoint holds, for `writeCheckpoint`. */
interface CheckpointContent {
  readonly iteration: number;
  readonly trained: Trained | null;
  readonly trainers: Readonly<Record<string, Trained>>;
  readonly stores: Readonly<Record<string, CheckpointStore>>;
  readonly extra: JsonValue;
  /** Writes the model's part (weights, optimiser states) into the temporary directory. */
  readonly writeModel: (temporary: string) => Promise<void>;
}

/**
 * The protocol both savers share: everything is written into a temporary directory beside `checkpoint/`,
 * synced to disk, then swapped in by renames.
 */
async function writeCheckpoint(run: RunDirectory, content: CheckpointContent): Promise<void> {
  checkJson(content.extra, 'extra');
  const stores = content.stores;
  const storeNames = Object.keys(stores).sort();
  checkNames('stores', storeNames);

  await run.sync(); // refuses a closed run, before anything in it is touched
  await removeStaleTemporaries(run);
  // The extra fields only when used: a single-trainer checkpoint.json stays byte for byte what it was.
  const manifest: CheckpointManifest = {
    format: TRAINING_CHECKPOINT_FORMAT,
    iteration: content.iteration,
    savedAt: new Date().toISOString(),
    trained: content.trained,
    ...(Object.keys(content.trainers).length > 0 ? { trainers: content.trainers } : {}),
    ...(storeNames.length > 0 ? { stores: storeNames } : {}),
    runFiles: await run.fileSizes(),
    extra: content.extra,
  };
  const temporary = await mkdtemp(join(run.path, TEMPORARY_PREFIX));
  try {
    await content.writeModel(temporary);
    for (const name of storeNames) {
      const dir = join(temporary, CHECKPOINT_FILES.stores, name);
      await mkdir(dir, { recursive: true });
      await stores[name]!.save(dir);
    }
    await writeFile(join(temporary, CHECKPOINT_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
    await fsyncTree(temporary);
  } catch (error) {
    // A full disk (or a store that failed) must not leave a part-written checkpoint taking up the space the run
    // needs: the previous checkpoint stays the run's, whole, and a rerun resumes from it.
    await rm(temporary, { recursive: true, force: true }).catch(() => undefined);
    if (!isSystemError(error)) throw error;
    throw new TrainingCheckpointError(
      `saving the checkpoint of iteration ${content.iteration} in ${run.path} failed (${(error as Error).message}); ` +
        `${keptCheckpoint(run)}: ${storageFix(error)} and ${rerun(run)}.`,
      { cause: error },
    );
  }

  // A directory cannot be renamed over a non-empty one, so the swap is two renames. Between them only
  // the previous checkpoint exists (as checkpoint.previous), and loading falls back to it.
  const current = run.checkpointPath;
  const previous = join(run.path, PREVIOUS);
  try {
    if (existsSync(current)) {
      await rm(previous, { recursive: true, force: true });
      await rename(current, previous);
    }
    await rename(temporary, current);
  } catch (error) {
    await rm(temporary, { recursive: true, force: true }).catch(() => undefined);
    throw swapFailed(run, content.iteration, error, keptCheckpoint(run));
  }
  try {
    await fsyncPath(run.path);
    await rm(previous, { recursive: true, force: true });
  } catch (error) {
    // Saved, but the next save would fail on the same directory after a whole iteration's work: said now.
    throw swapFailed(run, content.iteration, error, `the checkpoint of iteration ${content.iteration} is saved`);
  }
}

/**
 * A swap of checkpoints that failed on the file system: a checkpoint made read-only (`chmod -R a-w`, to keep it
 * safe) cannot be moved aside nor removed, and the bare EACCES of an unlink deep inside it named neither the run nor
 * what to do. Other errors pass through.
 */
function swapFailed(run: RunDirectory, iteration: number, error: unknown, kept: string): unknown {
  if (!isSystemError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const fix =
    code === 'EACCES' || code === 'EPERM'
      ? `a checkpoint is replaced after every iteration, so ${run.checkpointPath} and ${join(run.path, PREVIOUS)} ` +
        `must be writable: give them write access (chmod -R u+w), or copy the run somewhere writable,`
      : storageFix(error);
  return new TrainingCheckpointError(
    `replacing the checkpoint of ${run.path} by iteration ${iteration}'s failed (${(error as Error).message}); ` +
      `${kept}: ${fix} and ${rerun(run)}.`,
    { cause: error },
  );
}

/** Whether the run has a whole checkpoint on disk (`checkpoint/`, or `checkpoint.previous` mid-swap). */
function hasCheckpoint(run: RunDirectory): boolean {
  return [run.checkpointPath, join(run.path, PREVIOUS)].some((dir) => existsSync(join(dir, CHECKPOINT_FILES.manifest)));
}

/**
 * What a failed save leaves the run: its last whole checkpoint, or, when the first save failed, none ("the last whole
 * checkpoint is kept" was said of a run that had none).
 */
function keptCheckpoint(run: RunDirectory): string {
  return hasCheckpoint(run)
    ? 'the last whole checkpoint is kept'
    : 'the run has no checkpoint yet (this was its first)';
}

/** What running the same command again does after a failed save: resume, or, with no checkpoint, start over. */
function rerun(run: RunDirectory): string {
  return hasCheckpoint(run) ? 'run the same command to resume from it' : 'run the same command to start the run over';
}

/** What to do about a file-system error, by its code: EFBIG is a per-file size limit, not a full disk. */
function storageFix(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOSPC':
      return 'fix the cause (free disk space)';
    case 'EDQUOT':
      return 'fix the cause (free space within your disk quota, or raise it)';
    case 'EFBIG':
      return "fix the cause (a file grew past the size limit on files, `ulimit -f`, or the file system's largest file: raise the limit, or move the run to a file system that allows larger files)";
    default:
      return 'fix the cause';
  }
}

/**
 * Stale temporaries are the remains of a save that was killed (or failed); they were never the checkpoint. A closed
 * run is refused first: another process may hold it now, in the middle of a save.
 */
async function removeStaleTemporaries(run: RunDirectory): Promise<void> {
  run.assertOpen();
  for (const name of await readdir(run.path)) {
    if (name.startsWith(TEMPORARY_PREFIX)) await rm(join(run.path, name), { recursive: true, force: true });
  }
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

/**
 * A checkpoint's tensors, refused if any value is not finite (a corrupt file, or a run that diverged): loaded,
 * NaN weights made every later rollout fail without a word (a resumed run scored 0 and took no update).
 */
function readTensors(path: string): NamedTensors {
  if (!existsSync(path)) throw new CheckpointError(`${path} not found: the checkpoint is incomplete.`);
  const tensors = readSafetensors(readFileSync(path), path).tensors;
  for (const [name, tensor] of tensors) {
    const data = tensor.data;
    for (let index = 0; index < data.length; index++) {
      if (!Number.isFinite(data[index])) {
        throw new CheckpointError(
          `${path}: tensor "${name}" holds ${String(data[index])} at index ${index} (a corrupt file, or a run that diverged); restore the checkpoint, or delete the run directory to start the run over.`,
        );
      }
    }
  }
  return tensors;
}

/** Loads weights into the model's existing variables: the trainer holds those very variables. */
function loadWeights(dir: string, trainer: Trainer, trained: Trained): void {
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

/** Refuses a resume given other trainers or stores than the checkpoint holds, before anything is loaded. */
function checkAttached(
  path: string,
  manifest: CheckpointManifest,
  main: Trainer,
  attached: AttachedCheckpointState,
): void {
  const expected = trainedBy(main);
  if (manifest.trained === null) {
    throw new TrainingCheckpointError(
      `${path}: the checkpoint holds stores alone (no language model); resume it with loadStoresCheckpoint.`,
    );
  }
  if (JSON.stringify(manifest.trained) !== JSON.stringify(expected)) {
    throw new CheckpointError(
      `${path}: the checkpoint trained ${JSON.stringify(manifest.trained)}, this trainer trains ${JSON.stringify(expected)}.`,
    );
  }
  const given = trainedByAll(main, attached.trainers ?? {});
  const saved = manifest.trainers ?? {};
  if (JSON.stringify(sortedEntries(saved)) !== JSON.stringify(sortedEntries(given))) {
    throw new TrainingCheckpointError(
      `${path}: the checkpoint holds trainers ${JSON.stringify(sortedEntries(saved))}, this resume gives ${JSON.stringify(sortedEntries(given))}.`,
    );
  }
  checkStores(path, manifest, attached.stores ?? {});
}

function checkStores(
  path: string,
  manifest: CheckpointManifest,
  stores: Readonly<Record<string, CheckpointStore>>,
): void {
  const savedStores = [...(manifest.stores ?? [])].sort();
  const givenStores = Object.keys(stores).sort();
  if (savedStores.join('\n') !== givenStores.join('\n')) {
    throw new TrainingCheckpointError(
      `${path}: the checkpoint holds stores ${JSON.stringify(savedStores)}, this resume gives ${JSON.stringify(givenStores)}.`,
    );
  }
}

function sortedEntries<T>(record: Readonly<Record<string, T>>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Resumes a run from `<run>/checkpoint/`: loads the trained weights into `model` (which must already have
 * the adapters / value head the trainers train, as built for a fresh run), the optimiser states into
 * `trainer` and `attached.trainers`, each store in `attached.stores` from its snapshot, then cuts
 * metrics.jsonl and trajectories.jsonl back to the checkpoint, so rows of an iteration that was killed
 * before its checkpoint (and any torn line) are gone. The trainers and stores must be those the checkpoint
 * was saved with, by name (checked before anything is loaded). Returns the checkpoint's iteration and
 * `extra`, or null when the run has no checkpoint (then the files are emptied and the stores reset: the
 * run starts over at iteration 0). A checkpoint from before extra trainers and stores existed loads as one
 * with none.
 */
export async function loadTrainingCheckpoint<Extra = JsonValue>(
  run: RunDirectory,
  model: LanguageModel,
  trainer: Trainer,
  attached: AttachedCheckpointState = {},
): Promise<ResumedTraining<Extra> | null> {
  if (model !== trainer.model)
    throw new TrainingCheckpointError('loadTrainingCheckpoint: `model` is not the model the trainer trains.');
  const stores = attached.stores ?? {};
  const trainers = attached.trainers ?? {};
  const dir = await findCheckpoint(run, stores);
  if (dir === null) return null;
  const manifest = readManifest(dir);
  checkAttached(join(dir, CHECKPOINT_FILES.manifest), manifest, trainer, attached);
  loadWeights(dir, trainer, manifest.trained!);
  await trainer.loadState(join(dir, CHECKPOINT_FILES.trainer));
  for (const [name, trained] of sortedEntries(manifest.trainers ?? {})) {
    const trainerDir = join(dir, CHECKPOINT_FILES.trainers, name);
    loadWeights(trainerDir, trainers[name]!, trained);
    await trainers[name]!.loadState(join(trainerDir, CHECKPOINT_FILES.trainer));
  }
  return restoreStores(run, dir, manifest, stores);
}

/**
 * Resumes a run saved by `saveStoresCheckpoint`: each store from its snapshot (the same names the checkpoint
 * holds, checked before anything loads), metrics.jsonl and trajectories.jsonl cut back to the checkpoint.
 * Returns the checkpoint's iteration and `extra`, or null when the run has none (then the files are emptied
 * and the stores reset). A checkpoint with a language model's trainer is refused: it needs
 * `loadTrainingCheckpoint`.
 */
export async function loadStoresCheckpoint<Extra = JsonValue>(
  run: RunDirectory,
  stores: Readonly<Record<string, CheckpointStore>>,
): Promise<ResumedTraining<Extra> | null> {
  const dir = await findCheckpoint(run, stores);
  if (dir === null) return null;
  const manifest = readManifest(dir);
  const path = join(dir, CHECKPOINT_FILES.manifest);
  if (manifest.trained !== null || manifest.trainers !== undefined) {
    throw new TrainingCheckpointError(
      `${path}: the checkpoint holds a language model's trainer; resume it with loadTrainingCheckpoint.`,
    );
  }
  checkStores(path, manifest, stores);
  return restoreStores(run, dir, manifest, stores);
}

/**
 * The whole checkpoint's directory: `checkpoint/`, or `checkpoint.previous` after a kill between the two
 * renames of a save; null (the stores reset, the files emptied) for a run that has none.
 */
async function findCheckpoint(
  run: RunDirectory,
  stores: Readonly<Record<string, CheckpointStore>>,
): Promise<string | null> {
  // A save killed (or failed on a full disk) left its part-written checkpoint: gone now, not at the next save, since
  // the iteration before it appends to the run's files and needs that space.
  await removeStaleTemporaries(run);
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
  if (dir !== null) assertReplaceable(run);
  if (dir === run.checkpointPath && existsSync(previous)) {
    // A save killed after its second rename, before it removed the previous checkpoint: that one is stale, and in
    // a finished run no later save would remove it.
    await rm(previous, { recursive: true, force: true });
    await fsyncPath(run.path);
  }
  if (dir === null) {
    // Every iteration appends its metrics and then saves its checkpoint, so a kill leaves at most the first
    // iteration's rows without one. Rows of later iterations mean the checkpoint was removed: starting over
    // would wipe them.
    const later = (await run.readMetrics()).filter((row) => typeof row.iteration === 'number' && row.iteration > 0);
    if (later.length > 0) {
      const last = Math.max(...later.map((row) => row.iteration as number));
      throw new CheckpointError(
        `${run.metricsPath} records iterations 0–${last}, but the run has no checkpoint (${run.checkpointPath}); restore it, or delete the run directory to start the run over.`,
      );
    }
    for (const name of Object.keys(stores).sort()) await stores[name]!.reset();
    await run.rollBack({ metrics: 0, trajectories: 0 }, 'a run with no checkpoint');
  }
  return dir;
}

/**
 * Refuses, before an iteration is run, a checkpoint the next save cannot replace: one made read-only (to keep it
 * safe) let a resumed run train a whole iteration and then fail on an unlink deep inside it. Every directory of
 * `checkpoint/` and `checkpoint.previous` must be writable, since replacing it removes their files.
 */
function assertReplaceable(run: RunDirectory): void {
  const previous = join(run.path, PREVIOUS);
  const directories = (dir: string): string[] =>
    existsSync(dir) && statSync(dir).isDirectory()
      ? [
          dir,
          ...readdirSync(dir, { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .flatMap((entry) => directories(join(dir, entry.name))),
        ]
      : [];
  for (const dir of [...directories(run.checkpointPath), ...directories(previous)]) {
    try {
      accessSync(dir, constants.W_OK);
    } catch (error) {
      throw new TrainingCheckpointError(
        `${dir} is not writable (${(error as Error).message}): a resumed run replaces its checkpoint after every ` +
          `iteration, so ${run.checkpointPath}${existsSync(previous) ? ` and ${previous}` : ''} must be writable. ` +
          'Give them write access (chmod -R u+w), or copy the run somewhere writable and resume it there.',
        { cause: error },
      );
    }
  }
}

/** Loads the stores' snapshots and cuts the run's files back to the checkpoint. */
async function restoreStores<Extra>(
  run: RunDirectory,
  dir: string,
  manifest: CheckpointManifest,
  stores: Readonly<Record<string, CheckpointStore>>,
): Promise<ResumedTraining<Extra>> {
  for (const name of manifest.stores ?? []) await stores[name]!.load(join(dir, CHECKPOINT_FILES.stores, name));
  const runFiles = await restartLostTrajectories(run, dir, manifest);
  await run.rollBack(runFiles, `the checkpoint of iteration ${manifest.iteration}`);
  return { iteration: manifest.iteration, extra: manifest.extra as Extra };
}

/**
 * A run whose trajectories.jsonl is gone (deleted to free space, lost with a disk, moved aside as the error for a
 * damaged one says) resumes with a fresh one: it is the log of rollouts, which training never reads back, and
 * refusing left the run, its weights and metrics whole, with no way on. A warning says so, notes.jsonl records
 * from which iteration the log starts, and the checkpoint is made to count the new file (0 bytes) before anything
 * is appended, so a kill before the next checkpoint never cuts the new file to the old file's length. Returns the
 * lengths to roll back to.
 */
async function restartLostTrajectories(
  run: RunDirectory,
  dir: string,
  manifest: CheckpointManifest,
): Promise<RunFileSizes> {
  if (manifest.runFiles.trajectories === 0 || existsSync(run.trajectoriesPath)) return manifest.runFiles;
  const next = manifest.iteration + 1;
  const note =
    `${RUN_FILES.trajectories} was missing when the run resumed from the checkpoint of iteration ${manifest.iteration} ` +
    `(which counted ${manifest.runFiles.trajectories} bytes of it): it starts afresh at iteration ${next}, so the ` +
    `rollouts of iterations 0–${manifest.iteration} are not in it; metrics and checkpoint are whole.`;
  await run.appendNote(next, note);
  const runFiles: RunFileSizes = { ...manifest.runFiles, trajectories: 0 };
  await writeFileAtomically(
    join(dir, CHECKPOINT_FILES.manifest),
    `${JSON.stringify({ ...manifest, runFiles }, null, 2)}\n`,
  );
  process.emitWarning(`${run.path}: ${note} (noted in ${RUN_FILES.notes})`, { code: 'TURNGYM_TRAJECTORIES_RESTARTED' });
  return runFiles;
}
