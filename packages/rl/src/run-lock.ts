import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { RunDirectoryError } from './rl-errors';

/** The file a process writing a run directory holds it by. */
export const RUN_LOCK_FILE = '.lock';

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

/** The locks this process holds, removed when it exits. */
const held = new Set<string>();
let exitHook = false;
let asides = 0;

function alive(pid: number): boolean {
  // process.kill(0, …) signals this process group: pid 0 (or less) names no other process.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has that pid, alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's owner; undefined when the file is gone, null when it cannot be read as one. */
function ownerOf(file: string): LockOwner | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string'
      ? { pid: owner.pid, host: owner.host, since: String(owner.since) }
      : null;
  } catch {
    return null;
  }
}

function inUse(dir: string, owner: LockOwner): RunDirectoryError {
  return new RunDirectoryError(
    dir,
    `is in use by another process (pid ${owner.pid}, since ${owner.since}): two processes writing one run ` +
      `would mix their metrics and checkpoints. Wait for it or stop it, or choose another directory.`,
  );
}

/**
 * Claims the run directory `dir` for this process, or refuses with `RUN_DIRECTORY` while another live process on this
 * machine holds it. Two processes writing one run (the same command started twice, a seed given to two jobs) would
 * both append to metrics.jsonl and the trajectories, and each resume would reset the other's stores: a run silently
 * mixed from two. The lock appears whole (written aside, then linked in), so a reader never sees it half written.
 * A lock left by a process that is gone (killed, crashed) is taken over, as is one written on another machine,
 * whose processes cannot be checked from here (a run folder carried back from a GPU machine); two processes taking
 * over one stale lock at the same instant are told apart by reading it back. The same process may claim a
 * directory again (a resume within one program). Released by `releaseRunLock`, or when the process exits. Returns
 * whether this call claimed it (false: this process held it already).
 */
export function claimRunLock(dir: string): boolean {
  const file = join(resolve(dir), RUN_LOCK_FILE);
  if (held.has(file)) return false;
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  // Named by pid and a per-process count: unique on this machine without a random draw.
  const aside = `${file}.${process.pid}.${(asides += 1)}`;
  writeFileSync(aside, `${JSON.stringify(me)}\n`);
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        linkSync(aside, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = ownerOf(file);
      if (owner === undefined && attempt < 3) continue; // released meanwhile: try again
      if (owner === null || owner === undefined) {
        throw new RunDirectoryError(
          dir,
          `holds a lock (${RUN_LOCK_FILE}) that cannot be read: remove it if no process is writing this run.`,
        );
      }
      if (owner.host === me.host && owner.pid !== me.pid && alive(owner.pid)) throw inUse(dir, owner);
      // Stale: replaced in one step, then read back (another process may have replaced it too).
      renameSync(aside, file);
      const now = ownerOf(file);
      if (now && (now.pid !== me.pid || now.host !== me.host)) throw inUse(dir, now);
      break;
    }
  } finally {
    rmSync(aside, { force: true });
  }
  held.add(file);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const lock of held) {
        const owner = ownerOf(lock);
        if (owner && owner.pid === process.pid && owner.host === hostname()) rmSync(lock, { force: true });
      }
    });
  }
  return true;
}

/** Lets go of `dir`'s lock if this process holds it (a refused resume leaves the directory to others). */
export function releaseRunLock(dir: string): void {
  const file = join(resolve(dir), RUN_LOCK_FILE);
  if (!held.delete(file)) return;
  const owner = ownerOf(file);
  if (owner && owner.pid === process.pid && owner.host === hostname()) rmSync(file, { force: true });
}
