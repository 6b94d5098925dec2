import { existsSync } from 'node:fs';
import { copyFile, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncPath } from '@turngym/core';
import type { CheckpointStore } from './checkpoint-store';

export interface FileStoreOptions {
  /**
   * Brings the live file up to date before it is copied (flush buffers, checkpoint a SQLite WAL into
   * the main file: `PRAGMA wal_checkpoint(TRUNCATE)`). Must leave the file unchanged until the copy is done.
   */
  readonly flush?: () => Promise<void> | void;
  /**
   * Writes a consistent copy of the live file to `destination` instead of a plain copy; for a database
   * still open for writing, e.g. SQLite's `VACUUM INTO '<destination>'`.
   */
  readonly snapshot?: (destination: string) => Promise<void> | void;
  /**
   * Files beside the live one, named by suffix, that belong to its old state and must go when it is
   * restored or reset; SQLite: `['-wal', '-shm', '-journal']` (a stale WAL replayed over a restored
   * database would undo the restore).
   */
  readonly sidecars?: readonly string[];
}

/**
 * A store that is a file some other code owns and writes (a SQLite database of visited states, a replay
 * buffer on disk). Saving copies the file into the checkpoint, consistently: after `flush`, or through
 * `snapshot` (`VACUUM INTO` for a database that stays open). Loading puts the copy back in one rename, so
 * the live file is the old one or the checkpoint's, never a mix. The owner must not hold the file open
 * across `load` or `reset` (open it after resuming), as with any file replaced underneath a database.
 *
 * A live file that does not exist yet is saved as absent, and restored by removing it.
 */
export class FileStore implements CheckpointStore {
  private readonly name: string;

  constructor(
    readonly path: string,
    private readonly options: FileStoreOptions = {},
  ) {
    this.name = basename(path);
  }

  async save(dir: string): Promise<void> {
    await this.options.flush?.();
    if (!existsSync(this.path)) return;
    const destination = join(dir, this.name);
    if (this.options.snapshot) await this.options.snapshot(destination);
    else await copyFile(this.path, destination);
  }

  async load(dir: string): Promise<void> {
    const saved = join(dir, this.name);
    await this.removeSidecars();
    await this.removeStaleRestores();
    if (!existsSync(saved)) {
      await rm(this.path, { force: true });
      return;
    }
    const temporary = join(dirname(this.path), `${this.restorePrefix}${process.pid}`);
    await copyFile(saved, temporary);
    await fsyncPath(temporary);
    await rename(temporary, this.path);
    await fsyncPath(dirname(this.path));
  }

  async reset(): Promise<void> {
    await this.removeSidecars();
    await this.removeStaleRestores();
    await rm(this.path, { force: true });
  }

  /** The name a restore copies the checkpoint's file to beside the live one, before the rename; then its pid. */
  private get restorePrefix(): string {
    return `.${this.name}.restore-`;
  }

  /**
   * Copies left by restores killed before their rename (one whole copy of the file per kill, each named for its
   * process): nothing else writes them, and a restore runs before the run does.
   */
  private async removeStaleRestores(): Promise<void> {
    const folder = dirname(this.path);
    if (!existsSync(folder)) return;
    for (const entry of await readdir(folder)) {
      if (entry.startsWith(this.restorePrefix) && /^\d+$/.test(entry.slice(this.restorePrefix.length))) {
        await rm(join(folder, entry), { force: true });
      }
    }
  }

  private async removeSidecars(): Promise<void> {
    for (const suffix of this.options.sidecars ?? []) await rm(`${this.path}${suffix}`, { force: true });
  }
}
