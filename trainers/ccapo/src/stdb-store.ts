import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FileStore, type CheckpointStore } from '@turngym/rl';
import { Stdb, type StdbOptions } from './stdb';
import { StdbError, type StdbErrorCode } from './stdb-error';

/** SQLite's files beside a database that belong to its live state. */
const SQLITE_SIDECARS = ['-wal', '-shm', '-journal'] as const;

export interface StdbStoreOptions extends Omit<StdbOptions, 'readonly'> {
  /**
   * A history store to start from (warm history, e.g. an earlier run's `stdb.sqlite`): copied in whenever
   * the run starts over; omitted = an empty store.
   */
  readonly warmStart?: string;
}

/**
 * The run's history store as one of the trainer kit's checkpoint stores: saved into every checkpoint with
 * `VACUUM INTO` (a consistent copy while the database stays open) and swapped back in on resume by
 * `FileStore`, atomically with the adapters, Adam and the RNG. The database is open only inside `use` (a
 * connection costs about a millisecond): FileStore must never replace a file held open, and a finished run
 * leaves no connection behind whose close could touch a later run's WAL.
 */
export class StdbStore implements CheckpointStore {
  private readonly file: FileStore;

  constructor(
    readonly path: string,
    private readonly options: StdbStoreOptions = {},
  ) {
    this.file = new FileStore(path, {
      snapshot: (destination) => this.use((stdb) => stdb.snapshot(destination)),
      sidecars: SQLITE_SIDECARS,
    });
    // Only the path is checked here: a resumed run takes its store from the checkpoint, and needs the warm start
    // no more (it may have been deleted since); `reset` checks the file itself before copying it in.
    if (options.warmStart !== undefined) refuseOwnStore(options.warmStart, path);
  }

  /** Runs `work` on the store, opened (and created if need be) for it and closed after. */
  use<T>(work: (stdb: Stdb) => T): T {
    const stdb = Stdb.open(this.path, this.options);
    try {
      return work(stdb);
    } finally {
      stdb.close();
    }
  }

  async save(dir: string): Promise<void> {
    await this.file.save(dir);
  }

  async load(dir: string): Promise<void> {
    await this.file.load(dir);
  }

  /** Empties the store, or puts the warm start back: a run that starts over starts from the same history. */
  async reset(): Promise<void> {
    const warmStart = this.options.warmStart;
    if (warmStart !== undefined) {
      try {
        checkWarmStart(warmStart, this.path, this.options.env);
      } catch (error) {
        if (!(error instanceof StdbError)) throw error;
        throw new StdbError(error.code as StdbErrorCode, error.path, `stdbWarmStart: ${error.message}`, {
          cause: error,
        });
      }
    }
    await this.file.reset();
    if (warmStart === undefined) return;
    const warm = Stdb.open(warmStart, { readonly: true });
    try {
      warm.snapshot(this.path);
    } finally {
      warm.close();
    }
  }
}

/** Whether two paths name one file (the same path written otherwise, a symbolic or a hard link). */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  if (!existsSync(a) || !existsSync(b)) return false;
  const [first, second] = [statSync(a), statSync(b)];
  return first.dev === second.dev && first.ino === second.ino;
}

/** A fresh start deletes the live store before it copies the warm start in: the two must be different files. */
function refuseOwnStore(warmStart: string, store: string): void {
  if (!sameFile(warmStart, store)) return;
  throw new StdbError(
    'STDB_INVALID',
    warmStart,
    `${warmStart} is the run's own history store (${store}), which a fresh start empties before copying the warm start in; copy it elsewhere and name the copy.`,
  );
}

/**
 * Refuses a warm start for the run whose live store is `store` before anything is written: a file that is
 * missing, not a whole history store, the run's own store, the history of another env than `env`, or damaged
 * inside (`PRAGMA quick_check`: a store whose schema reads but whose edges do not failed only when the run
 * copied it in, after run.json was written).
 */
export function checkWarmStart(warmStart: string, store: string, env?: string): void {
  refuseOwnStore(warmStart, store);
  const warm = Stdb.open(warmStart, { readonly: true, ...(env !== undefined ? { env } : {}) });
  try {
    let problems: string[];
    try {
      problems = warm.database
        .prepare<[], string>('PRAGMA quick_check')
        .pluck()
        .all()
        .filter((line) => line !== 'ok');
    } catch (error) {
      problems = [(error as Error).message];
    }
    if (problems.length > 0) {
      throw new StdbError(
        'STDB_INVALID',
        warmStart,
        `${warmStart}: a damaged history store (${problems.slice(0, 3).join('; ')}).`,
      );
    }
  } finally {
    warm.close();
  }
}
