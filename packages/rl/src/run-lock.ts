import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { processAlive } from '@turngym/core';
import { RunDirectoryError } from './rl-errors';

/** The file a process writing a run directory holds it by. */
export const RUN_LOCK_FILE = '.lock';

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

/**
 * The locks this process holds: lock file → the takeover marker it holds with it (if any) and how many claims of
 * this process are open on it. Two `RunDirectory` objects of one program may hold one run (a resume within one
 * program): the lock goes when the last lets go, or when the process exits.
 */
const held = new Map<string, { readonly marker: string | undefined; claims: number }>();
let exitHook = false;

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

function isMine(owner: LockOwner | null | undefined): boolean {
  return !!owner && owner.pid === process.pid && owner.host === hostname();
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Created only if absent: the one step two processes cannot both win. False when it exists. */
function createExclusive(file: string, text: string): boolean {
  try {
    writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function inUse(dir: string, file: string, owner: LockOwner): RunDirectoryError {
  return new RunDirectoryError(
    dir,
    `is in use by another process (pid ${owner.pid}, since ${owner.since}): two processes writing one run ` +
      `would mix their metrics and checkpoints. Wait for it or stop it, or choose another directory; if no ` +
      `TurnGym run has pid ${owner.pid}, remove ${file}.`,
  );
}

/**
 * Claims the run directory `dir` for this process, or refuses with `RUN_DIRECTORY` while another live process on this
 * machine holds it. Two processes writing one run (the same command started twice, a seed given to two jobs) would
 * both append to metrics.jsonl and the trajectories, and each resume would reset the other's stores: a run silently
 * mixed from two. The lock is created only if absent (`wx`, which every file system offers). A lock left by a
 * process that is gone (killed, crashed) is taken over, as is one written on another machine, whose processes cannot
 * be checked from here (a run folder carried back from a GPU machine). Of two processes taking over one stale lock,
 * only the one that creates the takeover marker named after that lock's owner may replace it; the marker stays while
 * the lock is held, so a slower rival can never replace the new lock. The same process may claim a directory again
 * (a resume within one program): each claim is one more to release. Released when every claim of this process was
 * released by `releaseRunLock`, or when the process exits.
 */
export function claimRunLock(dir: string): void {
  const file = join(resolve(dir), RUN_LOCK_FILE);
  const mine = held.get(file);
  if (mine) {
    mine.claims += 1;
    return;
  }
  const text = `${JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`;
  let marker: string | undefined;
  let blocked: string | undefined;
  for (let attempt = 0; ; attempt += 1) {
    if (attempt > 20) {
      throw new RunDirectoryError(
        dir,
        `could not claim ${file}: other processes keep taking it` +
          (blocked
            ? `; ${blocked} says another process is taking it over: remove it if no process is writing this run.`
            : '.'),
      );
    }
    if (createExclusive(file, text)) break;
    const owner = ownerOf(file);
    if (owner === undefined) continue; // released meanwhile
    if (owner === null) {
      // Being written by the process that just created it, or damaged: wait a moment before calling it damaged.
      if (attempt < 10) {
        pause(20);
        continue;
      }
      throw new RunDirectoryError(
        dir,
        `holds a lock (${file}) that cannot be read: remove it if no process is writing this run.`,
      );
    }
    if (isMine(owner)) break; // another claim of this process's, made through another path to the same folder
    if (owner.host === hostname() && processAlive(owner.pid)) throw inUse(dir, file, owner);
    // Stale. Only the creator of this owner's marker may replace the lock; a rival waits and reads the new lock.
    const candidate = `${file}.takeover-${owner.pid}-${owner.since.replace(/[^0-9A-Za-z]/g, '')}`;
    if (!createExclusive(candidate, text)) {
      blocked = candidate;
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
  held.set(file, { marker, claims: 1 });
  removeDeadMarkers(file, marker);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const [lock, { marker: takeover }] of held) release(lock, takeover);
    });
  }
}

/**
 * Takeover markers whose taker is gone: each process killed while it held a lock it took over left one, so a run
 * resumed after kill upon kill piled them up. Swept once the lock is held, when no takeover of it can be under way
 * (a slow rival that makes a marker again finds the lock replaced and removes its own). A marker written on another
 * machine, or one that cannot be read, is left alone.
 */
function removeDeadMarkers(file: string, mine: string | undefined): void {
  const folder = dirname(file);
  const prefix = `${basename(file)}.takeover-`;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(folder, name);
    if (!name.startsWith(prefix) || path === mine) continue;
    const taker = ownerOf(path);
    if (!taker || taker.host !== hostname() || isMine(taker) || processAlive(taker.pid)) continue;
    try {
      rmSync(path, { force: true });
    } catch {
      // Tidying only: the lock is held either way.
    }
  }
}

function release(file: string, marker: string | undefined): void {
  if (isMine(ownerOf(file))) rmSync(file, { force: true });
  if (marker) rmSync(marker, { force: true });
}

/**
 * Releases one claim of `dir`'s lock (a refused resume, a finished run); the lock itself goes with the last claim
 * of this process, leaving the directory to others.
 */
export function releaseRunLock(dir: string): void {
  const file = join(resolve(dir), RUN_LOCK_FILE);
  const mine = held.get(file);
  if (!mine) return;
  mine.claims -= 1;
  if (mine.claims > 0) return;
  held.delete(file);
  release(file, mine.marker);
}
