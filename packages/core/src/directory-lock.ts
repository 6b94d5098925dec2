import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { processAlive } from './process-alive';

/** Who holds a directory lock: written into the lock file by its creator. */
export interface DirectoryLockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

export interface DirectoryLockOptions {
  /** The lock file's name inside the directory (default `.lock`). */
  file?: string;
  /**
   * The error to throw while a live process holds the directory (this one included: one process running the
   * same directory twice at once mixes its writes just as two processes would). `file` is the lock's path.
   */
  inUse: (owner: DirectoryLockOwner, file: string) => Error;
  /** The error to throw for a lock that cannot be claimed (unreadable, or taken over and over). */
  failed: (message: string) => Error;
}

/** Lock files this process holds → the takeover marker held with each (if any); removed when it exits. */
const held = new Map<string, string | undefined>();
let exitHook = false;

/** The lock's owner; undefined when the file is gone, null when it cannot be read as one. */
function ownerOf(file: string): DirectoryLockOwner | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const owner = JSON.parse(text) as Partial<DirectoryLockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string'
      ? { pid: owner.pid, host: owner.host, since: String(owner.since) }
      : null;
  } catch {
    return null;
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Created only if absent (`wx`, which every file system offers): the one step two processes cannot both win. */
function createExclusive(file: string, text: string): boolean {
  try {
    writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function release(file: string, marker: string | undefined): void {
  const owner = ownerOf(file);
  if (owner && owner.pid === process.pid && owner.host === hostname()) rmSync(file, { force: true });
  if (marker) rmSync(marker, { force: true });
}

/**
 * Claims the existing directory `dir` for this process, or throws `options.inUse` while a live process on this
 * machine holds it: two writers of one directory (the same command started twice) would mix their files. A lock
 * left by a process that is gone (killed, crashed) is taken over, as is one written on another machine, whose
 * processes cannot be checked from here. Of two processes taking over one stale lock, only the one that creates
 * the takeover marker named after that lock's owner may replace it (`<file>.takeover-…`, kept while the lock is
 * held), so a slower rival never replaces the new lock. Returns the release; the lock also goes when the process
 * exits.
 */
export function claimDirectoryLock(dir: string, options: DirectoryLockOptions): () => void {
  const file = join(resolve(dir), options.file ?? '.lock');
  const text = `${JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`;
  let marker: string | undefined;
  for (let attempt = 0; ; attempt += 1) {
    if (attempt > 20) throw options.failed(`could not claim ${file}: other processes keep taking it.`);
    if (createExclusive(file, text)) break;
    const owner = ownerOf(file);
    if (owner === undefined) continue; // released meanwhile
    if (owner === null) {
      // Being written by the process that just created it, or damaged: wait a moment before calling it damaged.
      if (attempt < 10) {
        pause(20);
        continue;
      }
      throw options.failed(`${file} cannot be read as a lock: remove it if no process is writing ${dir}.`);
    }
    if (owner.host === hostname() && processAlive(owner.pid)) throw options.inUse(owner, file);
    // Stale. Only the creator of this owner's marker may replace the lock; a rival waits and reads the new lock.
    const candidate = `${file}.takeover-${owner.pid}-${owner.since.replace(/[^0-9A-Za-z]/g, '')}`;
    if (!createExclusive(candidate, text)) {
      pause(20);
      continue;
    }
    const still = ownerOf(file);
    if (!still || still.pid !== owner.pid || still.host !== owner.host || still.since !== owner.since) {
      rmSync(candidate, { force: true }); // replaced meanwhile by its rightful taker: read it again
      continue;
    }
    rmSync(file, { force: true });
    if (!createExclusive(file, text)) {
      rmSync(candidate, { force: true });
      continue;
    }
    marker = candidate;
    break;
  }
  held.set(file, marker);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const [lock, takeover] of held) release(lock, takeover);
    });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.delete(file);
    release(file, marker);
  };
}
