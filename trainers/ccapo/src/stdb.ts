import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import {
  EDGE_SCORE_DEFAULTS,
  edgeScore,
  type EdgeScoreParameters,
  type EdgeStatistics,
  type GlobalStatistics,
} from './edge-score';
import type { PathStep } from './episode-path';
import { StdbError } from './stdb-error';

/** Written into every store's `meta` table; a file without it (or with another) is refused. */
export const STDB_SCHEMA = 'turngym.stdb/v1';

/** η of V̄'s moving average (ALGORITHMS.md §3 line 107, **[choice]**). */
export const BASELINE_RATE = 0.1;

export interface StdbOptions {
  /** Open for reading only (`turngym stdb`): nothing is created, the file must exist. */
  readonly readonly?: boolean;
  /**
   * The env whose history the store holds (its id, version included: `turngym/math-thought-calc-v1`). Recorded
   * in `meta` by the first connection given it that may write; a store recorded for another env is refused,
   * since its anchors and fingerprints mean other things (every env's first step shares the anchor `^|^`).
   */
  readonly env?: string;
  /** The constants of Q(E), used when V̄ moves towards the score of the edge a successful episode took. */
  readonly score?: EdgeScoreParameters;
  /** η of V̄(u) ← V̄(u) + η·(Q(E) − V̄(u)). */
  readonly baselineRate?: number;
  /**
   * Most episodes of a `record` batch merged in memory before their rows are written (still inside the batch's
   * one transaction): bounds the memory of a huge batch. Default: the whole batch.
   */
  readonly flushEvery?: number;
  /**
   * Most edges kept in memory between `record` calls (the rows of every batch are; past this many, they are
   * dropped after the batch and the next batch reads its rows from the file again). Default 1,000,000 (about
   * 200 MB); 0 keeps none.
   */
  readonly cacheEdges?: number;
}

/** One finished episode, as the store takes it in. */
export interface StdbEpisode {
  readonly success: boolean;
  readonly path: readonly PathStep[];
}

/** An edge with its statistics and score, as the inspection commands list them. */
export interface ScoredEdge extends EdgeStatistics {
  readonly anchor: string;
  readonly fingerprint: string;
  /** Q(E) under the store's current globals. */
  readonly score: number;
  /** V̄ of the edge's anchor (null while no successful episode passed through it). */
  readonly baseline: number | null;
}

/** What `turngym stdb stats` prints. */
export interface StdbSummary extends GlobalStatistics {
  readonly edges: number;
  /** Anchors with at least one edge. */
  readonly anchors: number;
  /** Anchors with a baseline V̄ (some successful episode passed through them). */
  readonly baselines: number;
  /** Σ N_total(E): edge visits recorded. */
  readonly edgeVisits: number;
  readonly fingerprints: number;
}

interface EdgeRow {
  anchor: string;
  fingerprint: string;
  n_total: number;
  n_succ: number;
  d_goal: number | null;
}

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS globals (
  id INTEGER PRIMARY KEY CHECK (id = 0),
  episodes INTEGER NOT NULL,
  successes INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS edges (
  anchor TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  n_total INTEGER NOT NULL,
  n_succ INTEGER NOT NULL,
  d_goal REAL,
  PRIMARY KEY (anchor, fingerprint)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nodes (
  anchor TEXT PRIMARY KEY,
  v_bar REAL NOT NULL,
  updates INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO globals (id, episodes, successes) VALUES (0, 0, 0);
`;

/**
 * CCAPO's persistent history store (STDB, ALGORITHMS.md §3 lines 93–95 and 106–107), a SQLite database file:
 * `edges` (anchor → fingerprint: N_total, N_succ, d_goal), `nodes` (anchor: V̄), `globals` (episodes,
 * successes), `meta` (the schema id). WAL mode: readers (`turngym stdb`) never block the trainer, and a
 * process killed mid-update leaves the last committed state. `record` takes a whole batch in one
 * transaction, so an episode is in the store entirely or not at all.
 */
export class Stdb {
  readonly score: EdgeScoreParameters;
  readonly baselineRate: number;
  private readonly flushEvery: number;
  private readonly cacheEdges: number;
  private readonly statements: ReturnType<Stdb['prepare']>;
  /**
   * The committed rows of every edge and anchor the batches since open touched (write-behind: a batch changes
   * them and writes each changed row in its transaction), used by `record` only. A batch that throws drops them
   * all (the file rolled back, memory did not), and so does a batch that finds another connection wrote the file
   * since (`PRAGMA data_version`).
   */
  private cache = new Map<string, AnchorState>();
  /**
   * The same edges by one `edgeKey` string: one Map lookup per step (two, of two strings, cost ~30% more at 10^5
   * edges).
   */
  private rows = new Map<string, EdgeState>();
  /** `PRAGMA data_version` when the rows in memory were last known to match the file. */
  private dataVersion = -1;
  /** Whether `rows` and `cache` hold every row of the file (an edge not there is new). */
  private complete = false;
  /** Numbers the episodes recorded, so a row is counted once per episode. */
  private serial = 0;

  private constructor(
    /** The better-sqlite3 handle, for queries of your own (the tables are documented in the README). */
    readonly database: Database.Database,
    readonly path: string,
    options: StdbOptions,
  ) {
    this.score = options.score ?? EDGE_SCORE_DEFAULTS;
    this.baselineRate = options.baselineRate ?? BASELINE_RATE;
    this.flushEvery = options.flushEvery ?? Number.POSITIVE_INFINITY;
    this.cacheEdges = options.cacheEdges ?? DEFAULT_CACHE_EDGES;
    this.statements = this.prepare();
  }

  /** Opens (or creates, unless `readonly`) the store at `path`; a file that is not a store is refused. */
  static open(path: string, options: StdbOptions = {}): Stdb {
    if (options.readonly && !existsSync(path)) {
      throw new StdbError(
        'STDB_MISSING',
        path,
        `${path}: no history store there (a CCAPO run writes <runDir>/stdb.sqlite).`,
      );
    }
    if (existsSync(path) && statSync(path).isDirectory()) {
      throw new StdbError(
        'STDB_INVALID',
        path,
        `${path} is a directory; give the store's file (<runDir>/stdb.sqlite).`,
      );
    }
    let database: Database.Database | undefined;
    try {
      database = new Database(path, { readonly: options.readonly === true, fileMustExist: options.readonly === true });
      // Tables are created only in a file that has none: creating them in any other (another program's
      // database, a store with a table gone) made it pass as a history store, and wrote into it. Checked again
      // under the write lock, so two processes creating one store cannot both find it empty.
      const db = database;
      const empty = () => db.prepare('SELECT count(*) FROM sqlite_master').pluck().get() === 0;
      if (!options.readonly && empty()) {
        db.transaction(() => {
          if (!empty()) return;
          db.exec(SCHEMA_SQL);
          db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('schema', STDB_SCHEMA);
        }).immediate();
      }
      checkLayout(database, path);
      if (options.env !== undefined) checkEnv(database, path, options.env, options.readonly === true);
      if (!options.readonly) {
        database.pragma('journal_mode = WAL');
        // WAL + NORMAL: a crash (kill -9) loses nothing committed; only a power cut may lose the last
        // transactions, and never corrupts. The checkpoint's snapshot is the durable copy.
        database.pragma('synchronous = NORMAL');
        // 64 MiB of page cache (SQLite's default is 2 MiB): a batch reads and writes each row it touches once,
        // and a store of 10^5–10^6 edges then stays in memory between batches.
        database.pragma('cache_size = -65536');
      }
    } catch (error) {
      database?.close();
      if (error instanceof StdbError) throw error;
      throw new StdbError(
        'STDB_INVALID',
        path,
        `${path}: not a ${STDB_SCHEMA} history store: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    return new Stdb(database, path, options);
  }

  private prepare() {
    const db = this.database;
    const readonly = db.readonly;
    return {
      globals: db.prepare<[], { episodes: number; successes: number }>(
        'SELECT episodes, successes FROM globals WHERE id = 0',
      ),
      edge: db.prepare<[string, string], EdgeRow>(
        'SELECT anchor, fingerprint, n_total, n_succ, d_goal FROM edges WHERE anchor = ? AND fingerprint = ?',
      ),
      baseline: db.prepare<[string], number>('SELECT v_bar FROM nodes WHERE anchor = ?').pluck(),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      anchorEdges: db.prepare<[string], EdgeRow>(
        'SELECT anchor, fingerprint, n_total, n_succ, d_goal FROM edges WHERE anchor = ?',
      ),
      allEdges: db.prepare<[number], EdgeRow>(
        'SELECT anchor, fingerprint, n_total, n_succ, d_goal FROM edges WHERE n_total >= ?',
      ),
      ...(readonly
        ? {}
        : {
            setGlobals: db.prepare<[number, number]>('UPDATE globals SET episodes = ?, successes = ? WHERE id = 0'),
            edgeCount: db.prepare<[], number>('SELECT count(*) FROM edges').pluck(),
            edgeRows: db
              .prepare<[], [string, string, number, number, number | null]>(
                'SELECT anchor, fingerprint, n_total, n_succ, d_goal FROM edges',
              )
              .raw(),
            nodeRows: db.prepare<[], [string, number, number]>('SELECT anchor, v_bar, updates FROM nodes').raw(),
            writeEdge: db.prepare<[EdgeValue[]]>(upsertEdges(1)),
            writeEdges: db.prepare<[EdgeValue[]]>(upsertEdges(WRITE_ROWS)),
            node: db.prepare<[string], { v_bar: number; updates: number }>(
              'SELECT v_bar, updates FROM nodes WHERE anchor = ?',
            ),
            writeNode: db.prepare<[string, number | null, number]>(
              'INSERT OR REPLACE INTO nodes (anchor, v_bar, updates) VALUES (?, ?, ?)',
            ),
          }),
    };
  }

  /** N_total^global (episodes) and N_succ^total. */
  globals(): GlobalStatistics {
    const row = this.statements.globals.get()!;
    return { episodes: row.episodes, successes: row.successes };
  }

  /** E's statistics, or null when the store has never seen E. */
  edge(anchor: string, fingerprint: string): EdgeStatistics | null {
    const row = this.statements.edge.get(anchor, fingerprint);
    return row ? edgeStatistics(row) : null;
  }

  /** V̄(anchor), or null when no successful episode has passed through the anchor (an unknown anchor). */
  baseline(anchor: string): number | null {
    return this.statements.baseline.get(anchor) ?? null;
  }

  /**
   * Takes in finished episodes, all in one transaction (ALGORITHMS.md §3 lines 106–107; seed §7.2):
   * N_total^global += 1 per episode and N_succ^total += 1 per success; for every edge the episode visited
   * (once per episode, at its last visit: P(success | E) counts episodes), N_total += 1; on success also
   * N_succ += 1, d_goal's mean takes the steps left after it, and V̄ of its anchor moves towards its new Q.
   * Failures never touch N_succ, d_goal or V̄.
   *
   * The episodes are applied in order to the in-memory rows (`cache`), so the result is exactly that of one
   * update per step. When every row of the file is in memory (a store this connection created, or one whose
   * tables a large batch read whole: see `readWhole`), each episode is applied as its steps are looked up. Else
   * each chunk of `flushEvery` episodes (default: the whole batch) takes three passes: its steps are resolved to
   * rows, the rows not in memory yet are read from the file, then the episodes are applied. Either way each
   * changed row is written once, anchor by anchor in key order, many rows to a statement (at 10^5 edges, reading
   * every touched row and writing each in its own statement cost four times more than the updates themselves:
   * docs/benchmarks/perf.md). Everything happens inside the one transaction: `episodes` may be any iterable, and a
   * process killed while reading it (or while writing) commits none of the batch.
   */
  record(episodes: Iterable<StdbEpisode>): void {
    const { setGlobals, writeEdge, writeEdges, writeNode, node } = this.statements;
    if (!setGlobals || !writeEdge || !writeEdges || !writeNode || !node) {
      throw new StdbError('STDB_INVALID', this.path, `${this.path} is open read-only; it cannot record episodes.`);
    }
    const readEdge = this.statements.edge;
    const write = (dirty: AnchorState[], global: GlobalStatistics) => {
      const values: EdgeValue[] = [];
      for (const anchor of dirty.sort(byAnchor)) {
        for (const row of anchor.dirty) {
          values.push(anchor.anchor, row.fingerprint, row.n_total, row.n_succ, row.d_goal);
          row.dirty = false;
          if (values.length === WRITE_ROWS * EDGE_COLUMNS) {
            writeEdges.run(values);
            values.length = 0;
          }
        }
        anchor.dirty = [];
        if (anchor.nodeDirty) writeNode.run(anchor.anchor, anchor.v_bar, anchor.updates);
        anchor.nodeDirty = false;
      }
      for (let i = 0; i < values.length; i += EDGE_COLUMNS) writeEdge.run(values.slice(i, i + EDGE_COLUMNS));
      setGlobals.run(global.episodes, global.successes);
    };
    /** Applies one episode's distinct edges (`rows[first..]` and `toEnd[first..]`, last visit first) in order. */
    const apply = (
      success: boolean,
      rows: EdgeState[],
      toEnd: number[],
      first: number,
      last: number,
      global: { episodes: number; successes: number },
      dirty: AnchorState[],
    ) => {
      global.episodes += 1;
      if (success) global.successes += 1;
      for (let i = last - 1; i >= first; i--) {
        const edge = rows[i]!;
        const anchor = edge.owner;
        if (!edge.dirty) {
          edge.dirty = true;
          if (anchor.dirty.length === 0 && !anchor.nodeDirty) dirty.push(anchor);
          anchor.dirty.push(edge);
        }
        edge.n_total += 1;
        if (!success) continue;
        edge.n_succ += 1;
        // d_goal: the running mean of the steps left after E, over the successful episodes through E.
        const stepsToEnd = toEnd[i]!;
        edge.d_goal = edge.d_goal === null ? stepsToEnd : edge.d_goal + (stepsToEnd - edge.d_goal) / edge.n_succ;
        // V̄ starts at the first successful visit's score, then moves by η towards each later one.
        const score = edgeScore(edgeStatistics(edge), global, this.score);
        anchor.v_bar = anchor.v_bar === null ? score : anchor.v_bar + this.baselineRate * (score - anchor.v_bar);
        anchor.updates += 1;
        anchor.nodeDirty = true;
      }
    };
    /** The rows of every file row are in memory: an edge not there is new, so nothing is read. */
    const whole = (batch: readonly StdbEpisode[], global: { episodes: number; successes: number }) => {
      const cache = this.cache;
      const cached = this.rows;
      const dirty: AnchorState[] = [];
      const rows: EdgeState[] = [];
      const toEnd: number[] = [];
      for (const episode of batch) {
        const serial = ++this.serial;
        const path = episode.path;
        rows.length = 0;
        toEnd.length = 0;
        for (let t = path.length - 1; t >= 0; t--) {
          const step = path[t]!;
          const key = edgeKey(step.anchor, step.fingerprint);
          let row = cached.get(key);
          if (!row) {
            let owner = cache.get(step.anchor);
            if (!owner) cache.set(step.anchor, (owner = newAnchorState(step.anchor, true)));
            row = newEdgeState(owner, step.fingerprint);
            cached.set(key, row);
          }
          if (row.visit === serial) continue; // a later step of this episode took the same edge
          row.visit = serial;
          rows.push(row);
          toEnd.push(step.stepsToEnd);
        }
        apply(episode.success, rows, toEnd, 0, rows.length, global, dirty);
      }
      write(dirty, global);
    };
    const chunk = (batch: readonly StdbEpisode[], global: { episodes: number; successes: number }) => {
      if (!this.complete) this.readWhole(batch);
      if (this.complete) return whole(batch, global);
      // The Maps as they are now, not as they were when record began: the data_version check inside the
      // transaction may have replaced them (before 2026-11-26 a connection went on with the old ones and so
      // recorded on rows another connection had changed since).
      const cache = this.cache;
      const cached = this.rows;
      // Pass 1: each episode's distinct edges at their last visits, as rows (episode e's are rows[ends[e - 1]..
      // ends[e]], last visit first); the anchors with rows (or a baseline) not in memory yet listed.
      const unread: AnchorState[] = [];
      const rows: EdgeState[] = [];
      const toEnd: number[] = [];
      const ends: number[] = [];
      for (const episode of batch) {
        const serial = ++this.serial;
        const path = episode.path;
        for (let t = path.length - 1; t >= 0; t--) {
          const step = path[t]!;
          const key = edgeKey(step.anchor, step.fingerprint);
          let row = cached.get(key);
          if (!row) {
            let owner = cache.get(step.anchor);
            if (!owner) cache.set(step.anchor, (owner = newAnchorState(step.anchor, false)));
            row = newEdgeState(owner, step.fingerprint);
            cached.set(key, row);
            owner.unread.push(row);
            if (owner.unread.length === 1 && owner.nodeRead !== 'pending') unread.push(owner);
          }
          const anchor = row.owner;
          if (row.visit === serial) continue; // a later step of this episode took the same edge
          row.visit = serial;
          rows.push(row);
          toEnd.push(step.stepsToEnd);
          if (episode.success && anchor.nodeRead === false) {
            if (anchor.unread.length === 0) unread.push(anchor);
            anchor.nodeRead = 'pending';
          }
        }
        ends.push(rows.length);
      }
      // Pass 2: what the file holds for them.
      for (const anchor of unread.sort(byAnchor)) {
        for (const row of anchor.unread) {
          const stored = readEdge.get(anchor.anchor, row.fingerprint);
          if (!stored) continue;
          row.n_total = stored.n_total;
          row.n_succ = stored.n_succ;
          row.d_goal = stored.d_goal;
        }
        anchor.unread = [];
        if (anchor.nodeRead === 'pending') {
          const stored = node.get(anchor.anchor);
          anchor.v_bar = stored?.v_bar ?? null;
          anchor.updates = stored?.updates ?? 0;
          anchor.nodeRead = true;
        }
      }
      // Pass 3: the episodes in order, then the changed rows written back.
      const dirty: AnchorState[] = [];
      batch.forEach((episode, e) =>
        apply(episode.success, rows, toEnd, e === 0 ? 0 : ends[e - 1]!, ends[e]!, global, dirty),
      );
      write(dirty, global);
    };
    try {
      // IMMEDIATE: the write lock from the start, so no other connection commits between the check and the reads.
      this.database
        .transaction(() => {
          // Another connection wrote the file since this one's last batch: the rows in memory may be stale.
          const version = this.statements.dataVersion.get()!;
          if (version !== this.dataVersion) this.dropCache();
          this.dataVersion = version;
          const global = { ...this.globals() };
          let pending: StdbEpisode[] = [];
          for (const episode of episodes) {
            pending.push(episode);
            if (pending.length >= this.flushEvery) {
              chunk(pending, global);
              pending = [];
            }
          }
          chunk(pending, global);
        })
        .immediate();
    } catch (error) {
      this.dropCache();
      throw error;
    }
    if (this.rows.size > this.cacheEdges) this.dropCache();
  }

  /**
   * Reads the whole `edges` and `nodes` tables into memory when nothing is there yet and the file holds at most
   * `SCAN_FACTOR` rows per step of the batch (and no more than `cacheEdges`): one sequential scan then costs less
   * than reading the touched rows one by one, and every later batch of this connection reads nothing.
   */
  private readWhole(batch: readonly StdbEpisode[]): void {
    const { edgeCount, edgeRows, nodeRows } = this.statements;
    if (this.rows.size > 0 || !edgeCount || !edgeRows || !nodeRows) return;
    let steps = 0;
    for (const episode of batch) steps += episode.path.length;
    const count = edgeCount.get()!;
    if (count > this.cacheEdges || count > SCAN_FACTOR * steps) return;
    const cache = this.cache;
    const cached = this.rows;
    for (const [anchor, fingerprint, total, successes, distance] of edgeRows.iterate()) {
      let owner = cache.get(anchor);
      if (!owner) cache.set(anchor, (owner = newAnchorState(anchor, true)));
      const row = newEdgeState(owner, fingerprint);
      row.n_total = total;
      row.n_succ = successes;
      row.d_goal = distance;
      cached.set(edgeKey(anchor, fingerprint), row);
    }
    for (const [anchor, vBar, updates] of nodeRows.iterate()) {
      let owner = cache.get(anchor);
      if (!owner) cache.set(anchor, (owner = newAnchorState(anchor, true)));
      owner.v_bar = vBar;
      owner.updates = updates;
    }
    this.complete = true;
  }

  private dropCache(): void {
    this.cache = new Map();
    this.rows = new Map();
    this.complete = false;
  }

  /** Counts of everything in the store. */
  summary(): StdbSummary {
    const db = this.database;
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    return {
      ...this.globals(),
      edges: count('SELECT count(*) FROM edges'),
      anchors: count('SELECT count(DISTINCT anchor) FROM edges'),
      baselines: count('SELECT count(*) FROM nodes'),
      edgeVisits: count('SELECT coalesce(sum(n_total), 0) FROM edges'),
      fingerprints: count('SELECT count(DISTINCT fingerprint) FROM edges'),
    };
  }

  /** The `limit` best-scored edges among those visited at least `minVisits` times, best first. */
  topEdges(limit: number, minVisits = 1): ScoredEdge[] {
    const global = this.globals();
    // The trainer asks for the best edge after every batch: rows are scored as they stream by and only the best
    // `limit` are kept (cut back whenever twice that many wait), and only those look up their baseline. Listing
    // every edge with its baseline cost 1.2 s and 60 MB an iteration at 2·10^5 edges.
    const keep = Math.max(0, Math.floor(limit));
    const best: ScoredEdge[] = [];
    const cut = () => {
      best.sort(byScore);
      best.length = Math.min(best.length, keep);
    };
    for (const row of this.statements.allEdges.iterate(minVisits)) {
      const statistics = edgeStatistics(row);
      const score = edgeScore(statistics, global, this.score);
      best.push({ anchor: row.anchor, fingerprint: row.fingerprint, ...statistics, score, baseline: null });
      if (best.length >= 2 * keep + 1024) cut();
    }
    cut();
    return best.map((edge) => ({ ...edge, baseline: this.baseline(edge.anchor) }));
  }

  /**
   * The edges out of an anchor, best first: what the policy did there, how often it led to success, and the
   * baseline its next choice there is measured against. `anchor` may be a whole key (`loc|fingerprint`) or
   * just a location: then every anchor at that location.
   */
  anchorEdges(anchor: string): ScoredEdge[] {
    const global = this.globals();
    const rows = anchor.includes('|')
      ? this.statements.anchorEdges.all(anchor)
      : this.database
          .prepare<[string, string], EdgeRow>(
            "SELECT anchor, fingerprint, n_total, n_succ, d_goal FROM edges WHERE substr(anchor, 1, length(?) + 1) = ? || '|'",
          )
          .all(anchor, anchor);
    return rows.map((row) => this.scored(row, global)).sort(byScore);
  }

  /** Writes a consistent copy of the store to `destination` (which must not exist), even mid-run. */
  snapshot(destination: string): void {
    this.database.prepare('VACUUM INTO ?').run(destination);
  }

  close(): void {
    if (this.database.open) this.database.close();
  }

  private scored(row: EdgeRow, global: GlobalStatistics): ScoredEdge {
    const statistics = edgeStatistics(row);
    return {
      anchor: row.anchor,
      fingerprint: row.fingerprint,
      ...statistics,
      score: edgeScore(statistics, global, this.score),
      baseline: this.baseline(row.anchor),
    };
  }
}

/** The columns `record` and the queries use, by table. */
const LAYOUT: Readonly<Record<string, readonly string[]>> = {
  meta: ['key', 'value'],
  globals: ['id', 'episodes', 'successes'],
  edges: ['anchor', 'fingerprint', 'n_total', 'n_succ', 'd_goal'],
  nodes: ['anchor', 'v_bar', 'updates'],
};

/**
 * Refuses a file that is not a whole `STDB_SCHEMA` store: another schema, or a store with a table, a column or
 * the globals row gone (which failed later as a bare SQLite error or a TypeError, or, opened for writing, was
 * silently given empty tables again).
 */
function checkLayout(database: Database.Database, path: string): void {
  const columns = (table: string) =>
    database.prepare<[string], string>('SELECT name FROM pragma_table_info(?)').pluck().all(table);
  if (columns('meta').length === 0) {
    throw new StdbError('STDB_INVALID', path, `${path}: not a ${STDB_SCHEMA} history store (no meta table).`);
  }
  const schema = database.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get();
  if (schema !== STDB_SCHEMA) {
    throw new StdbError(
      'STDB_INVALID',
      path,
      `${path}: not a ${STDB_SCHEMA} history store (schema ${String(schema)}).`,
    );
  }
  const missing = Object.entries(LAYOUT).flatMap(([table, wanted]) => {
    const found = new Set(columns(table));
    if (found.size === 0) return [`table ${table}`];
    return wanted.filter((column) => !found.has(column)).map((column) => `${table}.${column}`);
  });
  if (missing.length === 0 && database.prepare('SELECT count(*) FROM globals WHERE id = 0').pluck().get() !== 1) {
    missing.push('the globals row');
  }
  if (missing.length > 0) {
    throw new StdbError(
      'STDB_INVALID',
      path,
      `${path}: a damaged ${STDB_SCHEMA} history store (missing ${missing.join(', ')}); restore it from the run's checkpoint (checkpoint/stores/stdb/stdb.sqlite).`,
    );
  }
}

/** Refuses a store recorded for another env; records `env` in one that has none yet (unless read-only). */
function checkEnv(database: Database.Database, path: string, env: string, readonly: boolean): void {
  const stored = database.prepare<[], string>("SELECT value FROM meta WHERE key = 'env'").pluck().get();
  if (stored === undefined) {
    if (!readonly) database.prepare("INSERT INTO meta (key, value) VALUES ('env', ?)").run(env);
    return;
  }
  if (stored === env) return;
  throw new StdbError(
    'STDB_INVALID',
    path,
    `${path}: the history of ${stored}, not of ${env}: its anchors and fingerprints are another env's (warm-start from a run on the same env and version).`,
  );
}

function edgeStatistics(row: Pick<EdgeRow, 'n_total' | 'n_succ' | 'd_goal'>): EdgeStatistics {
  return { total: row.n_total, successes: row.n_succ, distanceToGoal: row.d_goal };
}

function byScore(a: ScoredEdge, b: ScoredEdge): number {
  return b.score - a.score || b.total - a.total || (a.anchor + a.fingerprint < b.anchor + b.fingerprint ? -1 : 1);
}

/**
 * One string per (anchor, fingerprint), different for different pairs whatever characters they hold: the
 * anchor's length first. (Joined by a NUL, `x|a NUL b` + `c` and `x|a` + `b NUL c` were one row in memory, and
 * each counted the other's visits; fingerprints are the env's text, where any character may occur.)
 */
function edgeKey(anchor: string, fingerprint: string): string {
  return `${anchor.length}:${anchor}${fingerprint}`;
}

/** Default of `StdbOptions.cacheEdges`. */
export const DEFAULT_CACHE_EDGES = 1_000_000;

/** `readWhole` scans the tables when they hold at most this many rows per step of the batch. */
const SCAN_FACTOR = 4;

/** Rows per multi-row upsert: 5 values each, far below SQLite's 32,766 parameters. */
const WRITE_ROWS = 256;
const EDGE_COLUMNS = 5;
type EdgeValue = string | number | null;

/** `INSERT … ON CONFLICT DO UPDATE` of `rows` edges: new edges inserted, known ones overwritten. */
function upsertEdges(rows: number): string {
  return `INSERT INTO edges (anchor, fingerprint, n_total, n_succ, d_goal) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ')}
    ON CONFLICT (anchor, fingerprint) DO UPDATE SET n_total = excluded.n_total, n_succ = excluded.n_succ, d_goal = excluded.d_goal`;
}

/** An edge's row in memory. */
interface EdgeState {
  /** Its anchor. */
  readonly owner: AnchorState;
  readonly fingerprint: string;
  n_total: number;
  n_succ: number;
  d_goal: number | null;
  /** Changed since it was last written. */
  dirty: boolean;
  /** The last episode (`Stdb.serial`) that counted this edge: once per episode. */
  visit: number;
}

/** An anchor in memory: its V̄ and its edges to read or write. */
interface AnchorState {
  readonly anchor: string;
  /** Edges new to memory, still to be read from the file. */
  unread: EdgeState[];
  /** Edges changed since the last write. */
  dirty: EdgeState[];
  /** Whether v_bar/updates hold the file's row (`pending`: to be read in this chunk). */
  nodeRead: boolean | 'pending';
  v_bar: number | null;
  updates: number;
  nodeDirty: boolean;
}

/** A row of `edges` in memory: zero counts (a new edge) until the file's are read into it. */
function newEdgeState(owner: AnchorState, fingerprint: string): EdgeState {
  return { owner, fingerprint, n_total: 0, n_succ: 0, d_goal: null, dirty: false, visit: 0 };
}

/** `nodeRead`: whether its V̄ is known (a new anchor, or every row of the file is in memory). */
function newAnchorState(anchor: string, nodeRead: boolean): AnchorState {
  return {
    anchor,
    unread: [],
    dirty: [],
    nodeRead,
    v_bar: null,
    updates: 0,
    nodeDirty: false,
  };
}

/** Key order (close to SQLite's: it compares UTF-8 bytes, this UTF-16 units), for locality only. */
function byAnchor(a: AnchorState, b: AnchorState): number {
  return a.anchor < b.anchor ? -1 : a.anchor > b.anchor ? 1 : 0;
}
