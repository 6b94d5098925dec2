// The part of better-sqlite3@12's API the corpus store uses (@turngym avoids @types packages for one file's use).
declare module 'better-sqlite3' {
  class Database {
    constructor(path: string, options?: Database.Options);
    readonly open: boolean;
    prepare<Row = unknown>(source: string): Database.Statement<Row>;
    exec(source: string): this;
    pragma(source: string, options?: { simple?: boolean }): unknown;
    transaction<F extends (...args: never[]) => unknown>(fn: F): F;
    unsafeMode(unsafe?: boolean): this;
    close(): this;
  }
  namespace Database {
    interface RunResult {
      changes: number;
      lastInsertRowid: number | bigint;
    }
    interface Statement<Row = unknown> {
      run(...parameters: unknown[]): RunResult;
      get(...parameters: unknown[]): Row | undefined;
      all(...parameters: unknown[]): Row[];
      iterate(...parameters: unknown[]): IterableIterator<Row>;
      pluck(toggle?: boolean): this;
    }
    interface Options {
      readonly?: boolean;
      fileMustExist?: boolean;
    }
  }
  export = Database;
}
