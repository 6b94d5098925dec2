import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncPath, fsyncTree } from '@turngym/core';
import type { CheckpointStore, JsonValue, RunDirectory, RunFileSizes } from '@turngym/rl';
import { AlphaZeroError } from './alphazero-error';

export const ALPHAZERO_CHECKPOINT_FORMAT = 'turngym.alphazero-checkpoint/v1';
const MANIFEST = 'checkpoint.json';
const PREVIOUS = 'checkpoint.previous';
const TEMPORARY_PREFIX = '.checkpoint-tmp-';

interface Manifest {
  readonly format: typeof ALPHAZERO_CHECKPOINT_FORMAT;
  readonly iteration: number;
  readonly stores: readonly string[];
  readonly runFiles: RunFileSizes;
  readonly extra: JsonValue;
}

/**
 * The kit's checkpoint protocol (`saveTrainingCheckpoint`: one temporary directory, fsynced, swapped in by two
 * renames, metrics cut back to it on resume) for a trainer whose model is not a `@turngym/lm` model: rl's
 * `saveTrainingCheckpoint` needs an lm `Trainer`, and AlphaZero's network is its own small tfjs net. Every
 * part — the network with its Adam, the replay buffer — is a kit `CheckpointStore`, so they appear whole
 * together or not at all.
 */
export async function saveAlphaZeroCheckpoint(
  run: RunDirectory,
  iteration: number,
  stores: Readonly<Record<string, CheckpointStore>>,
  extra: JsonValue,
): Promise<void> {
  for (const name of await readdir(run.path)) {
    if (name.startsWith(TEMPORARY_PREFIX)) await rm(join(run.path, name), { recursive: true, force: true });
  }
  await run.sync();
  const names = Object.keys(stores).sort();
  const manifest: Manifest = {
    format: ALPHAZERO_CHECKPOINT_FORMAT,
    iteration,
    stores: names,
    runFiles: await run.fileSizes(),
    extra,
  };
  const temporary = await mkdtemp(join(run.path, TEMPORARY_PREFIX));
  for (const name of names) {
    const dir = join(temporary, 'stores', name);
    await mkdir(dir, { recursive: true });
    await stores[name]!.save(dir);
  }
  await writeFile(join(temporary, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  await fsyncTree(temporary);
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

/**
 * Restores the stores from the run's checkpoint and cuts its metrics back to it; null (stores reset, files
 * emptied) when the run has none. Returns the finished iteration and the `extra` saved with it.
 */
export async function loadAlphaZeroCheckpoint<Extra extends JsonValue>(
  run: RunDirectory,
  stores: Readonly<Record<string, CheckpointStore>>,
): Promise<{ iteration: number; extra: Extra } | null> {
  const previous = join(run.path, PREVIOUS);
  const dir = existsSync(join(run.checkpointPath, MANIFEST))
    ? run.checkpointPath
    : existsSync(join(previous, MANIFEST))
      ? previous // killed between the two renames of a save
      : null;
  if (dir === null) {
    if (existsSync(run.checkpointPath)) {
      throw new AlphaZeroError(
        'ALPHAZERO_CHECKPOINT',
        `${run.checkpointPath} has no ${MANIFEST}; restore it, or delete the directory to start the run over.`,
      );
    }
    for (const name of Object.keys(stores).sort()) await stores[name]!.reset();
    await run.rollBack({ metrics: 0, trajectories: 0 }, 'a run with no checkpoint');
    return null;
  }
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Manifest;
  const given = Object.keys(stores).sort();
  if (manifest.format !== ALPHAZERO_CHECKPOINT_FORMAT || manifest.stores.join('\n') !== given.join('\n')) {
    throw new AlphaZeroError(
      'ALPHAZERO_CHECKPOINT',
      `${join(dir, MANIFEST)} is not an AlphaZero checkpoint with stores ${JSON.stringify(given)}.`,
    );
  }
  for (const name of given) await stores[name]!.load(join(dir, 'stores', name));
  await run.rollBack(manifest.runFiles, `the checkpoint of iteration ${manifest.iteration}`);
  return { iteration: manifest.iteration, extra: manifest.extra as Extra };
}
