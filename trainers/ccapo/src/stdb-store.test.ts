import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stdb } from './stdb';
import { StdbStore } from './stdb-store';

const success = { success: true, path: [{ anchor: '^|^', fingerprint: 'A', loop: false, stepsToEnd: 0 }] };
const failure = { success: false, path: [{ anchor: '^|^', fingerprint: 'B', loop: false, stepsToEnd: 0 }] };

describe('StdbStore (the history store as a checkpoint store)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-stdb-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const snapshotDir = (name: string) => {
    const path = join(dir, name);
    mkdirSync(path);
    return path;
  };

  it('snapshots the open database into a checkpoint and restores it over later updates', async () => {
    const store = new StdbStore(join(dir, 'stdb.sqlite'));
    store.use((stdb) => stdb.record([success]));
    const saved = snapshotDir('checkpoint');
    await store.save(saved);
    store.use((stdb) => stdb.record([failure, failure]));
    expect(store.use((stdb) => stdb.globals().episodes)).toBe(3);

    await store.load(saved); // a resume: the run continues from the checkpoint's history
    expect(store.use((stdb) => stdb.globals())).toEqual({ episodes: 1, successes: 1 });
    expect(store.use((stdb) => stdb.edge('^|^', 'B'))).toBeNull();
  });

  it('starts empty, or from a warm start that every restart of the run copies in again', async () => {
    const warmPath = join(dir, 'earlier-run.sqlite');
    const earlier = Stdb.open(warmPath);
    earlier.record([success, failure]);
    earlier.close();

    const empty = new StdbStore(join(dir, 'empty.sqlite'));
    await empty.reset();
    expect(empty.use((stdb) => stdb.globals().episodes)).toBe(0);

    const warm = new StdbStore(join(dir, 'warm.sqlite'), { warmStart: warmPath });
    await warm.reset();
    expect(warm.use((stdb) => stdb.globals())).toEqual({ episodes: 2, successes: 1 });
    warm.use((stdb) => stdb.record([success]));
    await warm.reset(); // killed before its first checkpoint: start over from the same warm history
    expect(warm.use((stdb) => stdb.globals())).toEqual({ episodes: 2, successes: 1 });
    // The warm start itself is never written to.
    const check = Stdb.open(warmPath, { readonly: true });
    expect(check.globals().episodes).toBe(2);
    check.close();
  });

  it('refuses a warm start that does not exist, naming the argument', () => {
    expect(() => new StdbStore(join(dir, 'x.sqlite'), { warmStart: join(dir, 'missing.sqlite') })).toThrow(
      /stdbWarmStart/,
    );
    expect(existsSync(join(dir, 'x.sqlite'))).toBe(false);
  });
});
