import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDirectoryLock, type DirectoryLockOptions } from './directory-lock';

/** What this process's locks record of its pid space, where the system has it (Linux). */
const here = ((): { bootId?: string; pidNamespace?: string } => {
  const read = (get: () => string): string | undefined => {
    try {
      return get().trim();
    } catch {
      return undefined;
    }
  };
  const bootId = read(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
  const pidNamespace = read(() => readlinkSync('/proc/self/ns/pid'));
  return { ...(bootId ? { bootId } : {}), ...(pidNamespace ? { pidNamespace } : {}) };
})();

const options: DirectoryLockOptions = {
  inUse: (owner, file) => new Error(`in use by pid ${owner.pid} (${file})`),
  failed: (message) => new Error(message),
};

describe('claimDirectoryLock', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'turngym-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const lockOf = (owner: { pid: number; host: string; bootId?: string; pidNamespace?: string }): void =>
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

  it('takes over the lock of a process that is gone, in the old format (no boot id) as in the new', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    for (const owner of [
      { pid: gone, host: hostname() },
      { pid: gone, host: hostname(), ...here },
    ]) {
      lockOf(owner);
      const release = claimDirectoryLock(dir, options);
      expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8'))).toMatchObject({ pid: process.pid, ...here });
      release();
      expect(existsSync(join(dir, '.lock'))).toBe(false);
    }
  });

  // Two containers (or hosts) on one volume: pid 7 there is no process, or another one, here. Judged by the local
  // pid, a run another container was writing was taken over as stale (or refused for a local process that
  // happened to have its pid).
  it('refuses a lock written in another pid space (host, boot or container), naming it and the file to remove', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    const elsewhere = [
      { pid: gone, host: 'gpu-node-7' }, // an old lock file from another host
      { pid: gone, host: 'gpu-node-7', bootId: 'b0', pidNamespace: 'pid:[1]' },
      ...(here.bootId ? [{ pid: gone, host: hostname(), ...here, bootId: 'another-boot' }] : []),
      ...(here.pidNamespace ? [{ pid: process.ppid, host: hostname(), ...here, pidNamespace: 'pid:[1]' }] : []),
    ];
    for (const owner of elsewhere) {
      lockOf(owner);
      const before = readFileSync(join(dir, '.lock'), 'utf8');
      expect(() => claimDirectoryLock(dir, options)).toThrow(
        new RegExp(`^is held by pid ${owner.pid} on host ${owner.host}.*remove ${join(dir, '.lock')} to take it over`),
      );
      expect(readFileSync(join(dir, '.lock'), 'utf8')).toBe(before);
      // Taking over is deliberate: once the file is removed, the directory is this process's.
      rmSync(join(dir, '.lock'));
      claimDirectoryLock(dir, options)();
    }
    expect(elsewhere.length).toBe(here.bootId && here.pidNamespace ? 4 : 2);
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

  it('is one claim through a symlink to the directory: releasing one name keeps the lock the other relies on', () => {
    const alias = `${dir}-alias`;
    symlinkSync(dir, alias);
    try {
      const first = claimDirectoryLock(dir, { ...options, reentrant: true });
      const second = claimDirectoryLock(alias, { ...options, reentrant: true });
      first();
      expect(JSON.parse(readFileSync(join(dir, '.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
      second();
      expect(existsSync(join(dir, '.lock'))).toBe(false);
      // Without reentrance, the alias is the same directory, refused as held.
      const only = claimDirectoryLock(dir, options);
      expect(() => claimDirectoryLock(alias, options)).toThrow(`in use by pid ${process.pid}`);
      only();
    } finally {
      rmSync(alias, { force: true });
    }
  });
});
