import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore } from './file-store';

describe('FileStore', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-file-store-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const snapshotDir = (name: string): string => {
    const dir = join(root, name);
    mkdirSync(dir);
    return dir;
  };

  it('saves a copy after flushing, and restores it over later writes, dropping stale sidecars', async () => {
    const live = join(root, 'search.db');
    let buffered = 'row 2\n';
    writeFileSync(live, 'row 1\n');
    const store = new FileStore(live, {
      flush: () => {
        writeFileSync(live, buffered, { flag: 'a' });
        buffered = '';
      },
      sidecars: ['-wal'],
    });
    const saved = snapshotDir('saved');
    await store.save(saved);
    expect(readFileSync(join(saved, 'search.db'), 'utf8')).toBe('row 1\nrow 2\n');

    writeFileSync(live, 'row 3\n', { flag: 'a' });
    writeFileSync(`${live}-wal`, 'a log of row 3');
    await store.load(saved);
    expect(readFileSync(live, 'utf8')).toBe('row 1\nrow 2\n');
    expect(existsSync(`${live}-wal`)).toBe(false);
  });

  it('removes the copies a restore killed half way left behind, and never the files of another store', async () => {
    // A resume killed between copying the checkpoint's file beside the live one and renaming it over leaves a
    // whole copy of the store (hundreds of MB for a large database) named for its process: one more per kill.
    const live = join(root, 'search.db');
    writeFileSync(live, 'live');
    const store = new FileStore(live);
    const saved = snapshotDir('saved');
    await store.save(saved);
    const stale = [join(root, '.search.db.restore-4242'), join(root, '.search.db.restore-77')];
    for (const path of stale) writeFileSync(path, 'a copy from a killed restore');
    const other = join(root, '.other.db.restore-4242');
    writeFileSync(other, 'another store’s');
    await store.load(saved);
    expect(stale.filter((path) => existsSync(path))).toEqual([]);
    writeFileSync(stale[0]!, 'again');
    await store.reset();
    expect(existsSync(stale[0]!)).toBe(false);
    expect(readFileSync(other, 'utf8')).toBe('another store’s');
  });

  it("takes the owner's consistent snapshot (VACUUM INTO's place) instead of copying the live file", async () => {
    const live = join(root, 'search.db');
    writeFileSync(live, 'pages mid-transaction');
    const store = new FileStore(live, { snapshot: (destination) => writeFileSync(destination, 'committed pages') });
    const saved = snapshotDir('saved');
    await store.save(saved);
    expect(readFileSync(join(saved, 'search.db'), 'utf8')).toBe('committed pages');
  });

  it('saves a file that does not exist yet as absent, restores that by removing it, and resets by removing it', async () => {
    const live = join(root, 'search.db');
    const store = new FileStore(live);
    const empty = snapshotDir('empty');
    await store.save(empty);
    writeFileSync(live, 'written after the checkpoint');
    await store.load(empty);
    expect(existsSync(live)).toBe(false);
    writeFileSync(live, 'again');
    await store.reset();
    expect(existsSync(live)).toBe(false);
  });
});
