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
