import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDirectoryLock, type DirectoryLockOptions } from './directory-lock';

const options: DirectoryLockOptions = {
  inUse: (owner, file) => new Error(`in use by pid ${owner.pid} (${file})`),
  failed: (message) => new Error(message),
};

describe('claimDirectoryLock', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'turngym-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const lockOf = (owner: { pid: number; host: string }): void =>
    writeFileSync(join(dir, '.lock'), JSON.stringify({ ...owner, since: '2026-01-01T00:00:00.000Z' }));

  it('refuses while a live process holds the directory, this one included, and leaves its lock alone', () => {
    const release = claimDirectoryLock(dir, options);
    expect(() => claimDirectoryLock(dir, options)).toThrow(`in use by pid ${process.pid}`);
    release();
    expect(existsSync(join(dir, '.lock'))).toBe(false);

    lockOf({ pid: process.ppid, host: hostname() });
    expect(() => claimDirectoryLock(dir, options)).toThrow(`in use by pid ${process.ppid}`);
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8'))).toMatchObject({ pid: process.ppid });
  });

  it('takes over the lock of a process that is gone, or of another machine', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    for (const owner of [
      { pid: gone, host: hostname() },
      { pid: process.ppid, host: `not-${hostname()}` },
    ]) {
      lockOf(owner);
      const release = claimDirectoryLock(dir, options);
      expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
      release();
      expect(existsSync(join(dir, '.lock'))).toBe(false);
    }
  });

  it('lets a reentrant owner claim again, and keeps the lock until its last claim is released', () => {
    const first = claimDirectoryLock(dir, { ...options, reentrant: true });
    const second = claimDirectoryLock(dir, { ...options, reentrant: true });
    first();
    first(); // a release is idempotent: it cannot let go of the other claim
    expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
    second();
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });
});
