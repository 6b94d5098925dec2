import { existsSync } from 'node:fs';
import { FileStore, type CheckpointStore } from '@turngym/rl';
import { Stdb, type StdbOptions } from './stdb';
import { StdbError } from './stdb-error';

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
    if (options.warmStart !== undefined && !existsSync(options.warmStart)) {
      throw new StdbError('STDB_MISSING', options.warmStart, `stdbWarmStart: ${options.warmStart} does not exist.`);
    }
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
    await this.file.reset();
    if (this.options.warmStart === undefined) return;
    const warm = Stdb.open(this.options.warmStart, { readonly: true });
    try {
      warm.snapshot(this.path);
    } finally {
      warm.close();
    }
  }
}
