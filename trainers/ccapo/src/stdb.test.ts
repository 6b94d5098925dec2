import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SeededRng } from '@turngym/core';
import Database from 'better-sqlite3';
import { edgeScore } from './edge-score';
import type { PathStep } from './episode-path';
import { Stdb, type StdbEpisode } from './stdb';
import { StdbError } from './stdb-error';

const step = (anchor: string, fingerprint: string, stepsToEnd: number, loop = false): PathStep => ({
  anchor,
  fingerprint,
  stepsToEnd,
  loop,
});
const episode = (success: boolean, ...path: PathStep[]): StdbEpisode => ({ success, path });

describe('Stdb', () => {
  let dir: string;
  let stdb: Stdb;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-stdb-'));
    stdb = Stdb.open(join(dir, 'stdb.sqlite'));
  });
  afterEach(() => {
    stdb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a SQLite file in WAL mode with the documented tables', () => {
    expect(stdb.database.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = stdb.database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(['edges', 'globals', 'meta', 'nodes']);
    expect(stdb.globals()).toEqual({ episodes: 0, successes: 0 });
  });

  it('a failure bumps N_total only: N_succ, d_goal and V̄ stay untouched (seed §7.2)', () => {
    stdb.record([episode(false, step('^|^', 'A', 1), step('s|A', 'B', 0))]);
    expect(stdb.globals()).toEqual({ episodes: 1, successes: 0 });
    expect(stdb.edge('^|^', 'A')).toEqual({ total: 1, successes: 0, distanceToGoal: null });
    expect(stdb.baseline('^|^')).toBeNull();
    expect(stdb.baseline('s|A')).toBeNull();
  });

  it('a success bumps N_total and N_succ, sets d_goal, and starts V̄ at its edge score; later successes move V̄ by η', () => {
    stdb.record([episode(true, step('^|^', 'A', 1), step('s|A', 'B', 0))]);
    const global1 = { episodes: 1, successes: 1 };
    const a1 = stdb.edge('^|^', 'A')!;
    expect(a1).toEqual({ total: 1, successes: 1, distanceToGoal: 1 });
    expect(stdb.baseline('^|^')).toBeCloseTo(edgeScore(a1, global1), 12);

    // A failure through the same anchor leaves V̄ where it was (but changes N_total).
    const before = stdb.baseline('^|^')!;
    stdb.record([episode(false, step('^|^', 'C', 0))]);
    expect(stdb.baseline('^|^')).toBe(before);
    expect(stdb.edge('^|^', 'C')).toEqual({ total: 1, successes: 0, distanceToGoal: null });

    // A second success through A, 3 steps from the end this time: d_goal is the mean (1 + 3)/2, and V̄ moves
    // 10% of the way to A's new score.
    stdb.record([episode(true, step('^|^', 'A', 3), step('x|A', 'B', 2), step('y|B', 'D', 1), step('z|D', 'E', 0))]);
    const a2 = stdb.edge('^|^', 'A')!;
    expect(a2).toEqual({ total: 2, successes: 2, distanceToGoal: 2 });
    const q2 = edgeScore(a2, { episodes: 3, successes: 2 });
    expect(stdb.baseline('^|^')).toBeCloseTo(before + 0.1 * (q2 - before), 12);
  });

  it('counts an edge once per episode, at its last visit (P(success | E) counts episodes)', () => {
    stdb.record([
      episode(true, step('^|^', 'A', 3), step('s|A', 'A', 2, true), step('^|^', 'A', 1), step('t|A', 'B', 0)),
    ]);
    expect(stdb.edge('^|^', 'A')).toEqual({ total: 1, successes: 1, distanceToGoal: 1 });
    expect(stdb.summary()).toMatchObject({ episodes: 1, successes: 1, edges: 3, edgeVisits: 3, anchors: 3 });
  });

  it('takes a batch in one transaction: an error while reading it commits none of it', () => {
    stdb.record([episode(true, step('^|^', 'A', 0))]);
    function* batch(): Generator<StdbEpisode> {
      yield episode(true, step('^|^', 'A', 0));
      yield episode(false, step('^|^', 'B', 0));
      throw new Error('the batch broke half way');
    }
    expect(() => stdb.record(batch())).toThrow('half way');
    expect(stdb.globals()).toEqual({ episodes: 1, successes: 1 });
    expect(stdb.edge('^|^', 'A')!.total).toBe(1);
    expect(stdb.edge('^|^', 'B')).toBeNull();
  });

  it('gives the same store whether rows stay in memory between batches, are read back each batch, or are written in chunks', () => {
    // Random-ish episodes over a small graph, so edges, anchors and V̄ are hit again and again.
    const episodes = Array.from({ length: 60 }, (_, e) =>
      episode(
        e % 3 !== 1,
        ...Array.from({ length: 6 }, (_, t) => step(`s${(e * 5 + t * 3) % 7}|f${t % 3}`, `f${(e + t) % 4}`, 5 - t)),
      ),
    );
    const dump = (store: Stdb) => ({
      globals: store.globals(),
      edges: store.database.prepare('SELECT * FROM edges ORDER BY anchor, fingerprint').all(),
      nodes: store.database.prepare('SELECT * FROM nodes ORDER BY anchor').all(),
    });
    const variants = [
      { cacheEdges: 0 }, // every batch reads its rows from the file
      { flushEvery: 4 }, // rows written every 4 episodes inside each batch
      {},
    ];
    const dumps = variants.map((options, index) => {
      const store = Stdb.open(join(dir, `variant-${index}.sqlite`), options);
      try {
        for (let b = 0; b < episodes.length; b += 10) store.record(episodes.slice(b, b + 10));
        // What the micro stream reads comes from memory or the file alike.
        const reader = Stdb.open(store.path, { readonly: true });
        expect(store.edge('s0|f0', 'f0')).toEqual(reader.edge('s0|f0', 'f0'));
        expect(store.baseline('s0|f0')).toBe(reader.baseline('s0|f0'));
        reader.close();
        return dump(store);
      } finally {
        store.close();
      }
    });
    // And one batch of everything, on the store the test opened.
    stdb.record(episodes);
    expect(dumps[0]).toEqual(dump(stdb));
    expect(dumps[1]).toEqual(dump(stdb));
    expect(dumps[2]).toEqual(dump(stdb));
    expect((dumps[2]!.nodes as unknown[]).length).toBeGreaterThan(3);
  });

  it('reads its rows again when another connection wrote the file since its last batch', () => {
    const other = Stdb.open(stdb.path);
    try {
      stdb.record([episode(false, step('^|^', 'A', 0))]);
      other.record([episode(false, step('^|^', 'A', 0))]);
      stdb.record([episode(false, step('^|^', 'A', 0))]);
      expect(stdb.edge('^|^', 'A')!.total).toBe(3);
      expect(stdb.globals()).toEqual({ episodes: 3, successes: 0 });
    } finally {
      other.close();
    }
  });

  it('never records on rows in memory that another connection has since changed', () => {
    const other = Stdb.open(stdb.path);
    try {
      // Two batches first, so this connection holds the row in memory when the other one writes it.
      stdb.record([episode(false, step('^|^', 'A', 0))]);
      stdb.record([episode(false, step('^|^', 'A', 0))]);
      other.record([episode(true, step('^|^', 'A', 0))]);
      stdb.record([episode(false, step('^|^', 'A', 0))]);
      expect(stdb.edge('^|^', 'A')).toEqual({ total: 4, successes: 1, distanceToGoal: 0 });
      expect(stdb.globals()).toEqual({ episodes: 4, successes: 1 });
    } finally {
      other.close();
    }
  });

  it('writes exactly what one SQL update per step would, whether it reads rows one by one, scans the tables or holds them', () => {
    // Seeded random episodes over 200 edges, with edges repeated inside an episode and across the batch.
    const rng = new SeededRng(25);
    const randomEpisodes = (count: number) =>
      Array.from({ length: count }, () => {
        const length = rng.int(1, 12);
        return episode(
          rng.next() < 0.6,
          ...Array.from({ length }, (_, t) => {
            const edge = rng.int(0, 199);
            return step(`s${edge % 40}|f${edge % 5}`, `a${edge % 9}`, length - 1 - t);
          }),
        );
      });
    const first = randomEpisodes(120);
    const small = randomEpisodes(2);
    const large = randomEpisodes(150);
    const dump = (path: string) => {
      const store = Stdb.open(path, { readonly: true });
      try {
        return JSON.stringify([
          store.database.prepare('SELECT * FROM globals').raw().all(),
          store.database.prepare('SELECT * FROM edges ORDER BY anchor, fingerprint').raw().all(),
          store.database.prepare('SELECT * FROM nodes ORDER BY anchor').raw().all(),
        ]);
      } finally {
        store.close();
      }
    };
    const recorded = (name: string, batches: StdbEpisode[][], reopen: boolean) => {
      const path = join(dir, `${name}.sqlite`);
      let store = Stdb.open(path);
      for (const batch of batches) {
        if (reopen) {
          store.close();
          store = Stdb.open(path);
        }
        store.record(batch);
      }
      store.close();
      return dump(path);
    };
    const batches = [first, small, large, small];
    const reference = join(dir, 'reference.sqlite');
    Stdb.open(reference).close();
    recordStepByStep(reference, batches.flat());
    const expected = dump(reference);
    // Reopened for every batch: the small one reads its rows one by one, the large one scans the tables.
    expect(recorded('reopened', batches, true)).toBe(expected);
    // Held open: every row in memory from the start.
    expect(recorded('open', batches, false)).toBe(expected);
    // All at once.
    expect(recorded('one-batch', [batches.flat()], false)).toBe(expected);
  });

  it('forgets the rows of a batch that failed: the next batch starts from what the file holds', () => {
    // flushEvery 1: the first episode is applied in memory (and written) before the batch breaks.
    stdb.close();
    stdb = Stdb.open(join(dir, 'chunked.sqlite'), { flushEvery: 1 });
    stdb.record([episode(true, step('^|^', 'A', 0))]);
    const broken = (function* (): Generator<StdbEpisode> {
      yield episode(true, step('^|^', 'A', 0));
      throw new Error('broken');
    })();
    expect(() => stdb.record(broken)).toThrow('broken');
    stdb.record([episode(false, step('^|^', 'A', 0))]);
    expect(stdb.edge('^|^', 'A')).toEqual({ total: 2, successes: 1, distanceToGoal: 0 });
    expect(stdb.globals()).toEqual({ episodes: 2, successes: 1 });
  });

  it('keeps edges apart whose anchor and fingerprint only join into the same text (a NUL inside either)', () => {
    // Fingerprints are the env's text (a tool call's argument names, a link's text), so any character may occur.
    for (const options of [{}, { cacheEdges: 0 }]) {
      const store = Stdb.open(join(dir, `nul-${Object.keys(options).length}.sqlite`), options);
      try {
        store.record([episode(true, step('x|a\u0000b', 'c', 0))]);
        store.record([episode(false, step('x|a', 'b\u0000c', 0))]);
        store.record([episode(false, step('x|a\u0000b', 'c', 0), step('x|a', 'b\u0000c', 0))]);
        expect(store.edge('x|a\u0000b', 'c')).toEqual({ total: 2, successes: 1, distanceToGoal: 0 });
        expect(store.edge('x|a', 'b\u0000c')).toEqual({ total: 2, successes: 0, distanceToGoal: null });
        expect(store.summary().edges).toBe(2);
      } finally {
        store.close();
      }
    }
  });

  it('lists top edges and an anchor’s edges with their scores and baselines', () => {
    stdb.record([
      episode(true, step('^|^', 'A', 1), step('s|A', 'B', 0)),
      episode(true, step('^|^', 'A', 1), step('s|A', 'B', 0)),
      episode(false, step('^|^', 'C', 1), step('t|C', 'D', 0)),
      episode(false, step('^|^', 'C', 0)),
    ]);
    const top = stdb.topEdges(2, 2);
    expect(top.map((e) => `${e.anchor} ${e.fingerprint}`)).toEqual(['s|A B', '^|^ A']);
    const start = stdb.anchorEdges('^|^');
    expect(start.map((e) => [e.fingerprint, e.total, e.successes])).toEqual([
      ['A', 2, 2],
      ['C', 2, 0],
    ]);
    expect(start[0]!.score).toBeGreaterThan(start[1]!.score);
    expect(start[0]!.baseline).not.toBeNull();
    // A bare location lists every anchor there.
    expect(stdb.anchorEdges('s').map((e) => e.fingerprint)).toEqual(['B']);
  });

  it('lists the best edges of a large store as a full sort would, reading only the baselines it returns', () => {
    // The trainer asks for the best edge after every batch: at 10^5 edges, a baseline query and an object per
    // edge cost a second and tens of MB each iteration.
    const rng = new SeededRng(7);
    const episodes = Array.from({ length: 600 }, () =>
      episode(
        rng.next() < 0.4,
        ...Array.from({ length: 5 }, (_, t) => step(`s${rng.int(0, 30)}|f${t}`, `a${rng.int(0, 20)}`, 4 - t)),
      ),
    );
    stdb.record(episodes);
    const global = stdb.globals();
    const everything = stdb.database
      .prepare('SELECT anchor, fingerprint, n_total, n_succ, d_goal FROM edges WHERE n_total >= 2')
      .all() as { anchor: string; fingerprint: string; n_total: number; n_succ: number; d_goal: number | null }[];
    const expected = everything
      .map((row) => {
        const statistics = { total: row.n_total, successes: row.n_succ, distanceToGoal: row.d_goal };
        return { ...row, score: edgeScore(statistics, global), total: row.n_total };
      })
      .sort(
        (a, b) =>
          b.score - a.score || b.total - a.total || (a.anchor + a.fingerprint < b.anchor + b.fingerprint ? -1 : 1),
      )
      .map((row) => `${row.anchor} ${row.fingerprint}`);
    expect(everything.length).toBeGreaterThan(500);
    const baseline = jest.spyOn(stdb, 'baseline');
    for (const limit of [1, 3, 50, 10_000]) {
      baseline.mockClear();
      const top = stdb.topEdges(limit, 2);
      expect(top.map((edge) => `${edge.anchor} ${edge.fingerprint}`)).toEqual(expected.slice(0, limit));
      expect(baseline.mock.calls.length).toBe(Math.min(limit, expected.length));
      expect(top[0]!.baseline).toBe(
        stdb.database.prepare('SELECT v_bar FROM nodes WHERE anchor = ?').pluck().get(top[0]!.anchor) ?? null,
      );
    }
    baseline.mockRestore();
  });

  it('refuses another SQLite database without writing to it, even when opened for writing', () => {
    const other = join(dir, 'app.db');
    const app = new Database(other);
    app.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')");
    app.close();
    expect(() => Stdb.open(other)).toThrow(StdbError);
    const check = new Database(other, { readonly: true });
    try {
      expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['users']);
      expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      check.close();
    }
  });

  it('refuses a store with a table or the globals row gone, read-only or not, with a StdbError', () => {
    stdb.record([episode(true, step('^|^', 'A', 0))]);
    stdb.close();
    const damaged = (name: string, sql: string) => {
      const path = join(dir, `${name}.sqlite`);
      const store = Stdb.open(path);
      store.record([episode(true, step('^|^', 'A', 0))]);
      store.database.exec(sql);
      store.close();
      return path;
    };
    for (const path of [
      damaged('no-nodes', 'DROP TABLE nodes'),
      damaged('no-edges', 'DROP TABLE edges'),
      damaged('no-globals', 'DELETE FROM globals'),
    ]) {
      for (const readonly of [true, false]) {
        expect(() => Stdb.open(path, { readonly })).toThrow(StdbError);
        expect(() => Stdb.open(path, { readonly })).toThrow(/damaged/);
      }
    }
    // Nothing was put back: the edge counts of the nodes-less store are still there, and no nodes table.
    const check = new Database(join(dir, 'no-nodes.sqlite'), { readonly: true });
    try {
      expect(check.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'nodes'").pluck().get()).toBe(0);
    } finally {
      check.close();
    }
    stdb = Stdb.open(join(dir, 'stdb.sqlite'));
  });

  it('records the env it holds the history of, and refuses to be opened for another', () => {
    stdb.close();
    const path = join(dir, 'math.sqlite');
    const math = Stdb.open(path, { env: 'turngym/math-thought-calc-v1' });
    math.record([episode(true, step('^|^', 'CALC(+)', 0))]);
    math.close();
    for (const readonly of [true, false]) {
      // Another env, or another version of it (another fingerprint function), reads other things into `^|^`.
      for (const env of ['turngym/wiki-navigator-v1', 'turngym/math-thought-calc-v2']) {
        expect(() => Stdb.open(path, { readonly, env })).toThrow(/turngym\/math-thought-calc-v1/);
      }
      const again = Stdb.open(path, { readonly, env: 'turngym/math-thought-calc-v1' });
      expect(again.globals().episodes).toBe(1);
      again.close();
    }
    // A store written before stores recorded their env is taken, and from then on belongs to its env.
    const older = join(dir, 'older.sqlite');
    Stdb.open(older).close();
    Stdb.open(older, { readonly: true, env: 'a/b-v1' }).close();
    Stdb.open(older, { env: 'a/b-v1' }).close();
    expect(() => Stdb.open(older, { env: 'c/d-v1' })).toThrow(StdbError);
    stdb = Stdb.open(join(dir, 'stdb.sqlite'));
  });

  it('says so when the path given is a directory', () => {
    expect(() => Stdb.open(dir)).toThrow(/is a directory/);
    expect(() => Stdb.open(dir, { readonly: true })).toThrow(/is a directory/);
  });

  it('refuses a file that is not a history store, and a missing one to read', () => {
    const other = join(dir, 'other.txt');
    writeFileSync(other, 'not a database at all, just some text that is long enough to have a header');
    expect(() => Stdb.open(other)).toThrow(StdbError);
    expect(() => Stdb.open(join(dir, 'none.sqlite'), { readonly: true })).toThrow(/no history store/);
    expect(existsSync(join(dir, 'none.sqlite'))).toBe(false);
  });
});

/**
 * The update rules of ALGORITHMS.md §3 lines 106–107 as the first version of `record` applied them: for every
 * step, a read of its row and a write of it, in plain SQL, on the store's tables.
 */
function recordStepByStep(path: string, episodes: readonly StdbEpisode[]): void {
  const store = Stdb.open(path);
  const db = store.database;
  try {
    db.transaction(() => {
      for (const { success, path: steps } of episodes) {
        db.prepare(`UPDATE globals SET episodes = episodes + 1, successes = successes + ? WHERE id = 0`).run(
          success ? 1 : 0,
        );
        const global = store.globals();
        const last = steps.filter(
          (s, t) =>
            !steps.slice(t + 1).some((later) => later.anchor === s.anchor && later.fingerprint === s.fingerprint),
        );
        for (const s of last) {
          const row = db
            .prepare('SELECT n_total, n_succ, d_goal FROM edges WHERE anchor = ? AND fingerprint = ?')
            .get(s.anchor, s.fingerprint) as { n_total: number; n_succ: number; d_goal: number | null } | undefined;
          const total = (row?.n_total ?? 0) + 1;
          const successes = (row?.n_succ ?? 0) + (success ? 1 : 0);
          let distance = row?.d_goal ?? null;
          if (success) distance = distance === null ? s.stepsToEnd : distance + (s.stepsToEnd - distance) / successes;
          db.prepare(
            'INSERT OR REPLACE INTO edges (anchor, fingerprint, n_total, n_succ, d_goal) VALUES (?, ?, ?, ?, ?)',
          ).run(s.anchor, s.fingerprint, total, successes, distance);
          if (!success) continue;
          const score = edgeScore({ total, successes, distanceToGoal: distance }, global);
          const node = db.prepare('SELECT v_bar, updates FROM nodes WHERE anchor = ?').get(s.anchor) as
            { v_bar: number; updates: number } | undefined;
          const vBar = node === undefined ? score : node.v_bar + 0.1 * (score - node.v_bar);
          db.prepare('INSERT OR REPLACE INTO nodes (anchor, v_bar, updates) VALUES (?, ?, ?)').run(
            s.anchor,
            vBar,
            (node?.updates ?? 0) + 1,
          );
        }
      }
    })();
  } finally {
    store.close();
  }
}
