import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stdb } from './stdb';
import { StdbError } from './stdb-error';
import { checkWarmStart, StdbStore } from './stdb-store';

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

  it('refuses the run’s own store as its warm start, and leaves the file alone', async () => {
    // A user copies an earlier store into the new run directory and points the warm start at it: starting the
    // run deletes the live store before copying the warm start in, so the copy would be gone.
    const live = join(dir, 'stdb.sqlite');
    const copied = Stdb.open(live);
    copied.record([success, failure]);
    copied.close();
    symlinkSync(live, join(dir, 'link.sqlite'));
    for (const warmStart of [live, join(dir, '.', 'stdb.sqlite'), join(dir, 'link.sqlite')]) {
      expect(() => checkWarmStart(warmStart, live)).toThrow(/the run's own history store/);
      expect(() => new StdbStore(live, { warmStart })).toThrow(StdbError);
    }
    const check = Stdb.open(live, { readonly: true });
    expect(check.globals()).toEqual({ episodes: 2, successes: 1 });
    check.close();
  });

  it('refuses a damaged warm start before the run starts, not half way through copying it', () => {
    const warmPath = join(dir, 'warm.sqlite');
    const warm = Stdb.open(warmPath);
    warm.record(
      Array.from({ length: 400 }, (_, i) => ({
        success: i % 2 === 0,
        path: [{ anchor: `loc${i}|f`, fingerprint: `fp${i}`, loop: false, stepsToEnd: 0 }],
      })),
    );
    warm.close();
    // Its last page overwritten: the header and the schema still read, the edges do not.
    const bytes = readFileSync(warmPath);
    const pageSize = bytes.readUInt16BE(16);
    bytes.fill(0xab, bytes.length - pageSize);
    writeFileSync(warmPath, bytes);
    expect(() => checkWarmStart(warmPath, join(dir, 'stdb.sqlite'))).toThrow(StdbError);
    expect(() => checkWarmStart(warmPath, join(dir, 'stdb.sqlite'))).toThrow(/malformed/);
  });

  it('refuses a warm start that does not exist when the run starts over, naming the argument', async () => {
    const store = new StdbStore(join(dir, 'x.sqlite'), { warmStart: join(dir, 'missing.sqlite') });
    await expect(store.reset()).rejects.toThrow(/stdbWarmStart: .*missing\.sqlite/);
    expect(existsSync(join(dir, 'x.sqlite'))).toBe(false);
  });
});
