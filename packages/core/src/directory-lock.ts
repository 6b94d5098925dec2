import { readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { processAlive } from './process-alive';

/** Who holds a directory lock: written into the lock file by its creator. */
export interface DirectoryLockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  /**
   * The kernel boot of the holder's machine (`/proc/sys/kernel/random/boot_id`) and its pid namespace
   * (`/proc/self/ns/pid`), where the system has them; absent in locks written before they were recorded.
   */
  readonly bootId?: string;
  readonly pidNamespace?: string;
}

/**
 * What tells this process's pid space apart from another's. A hostname alone does not: two containers sharing a
 * volume may have the same one (host networking, a fixed `hostname:`) and each its own pids, so pid 7 of one is
 * no process, or another one, in the other. The boot id differs between machines (and across a restart), the pid
 * namespace between containers on one kernel.
 */
interface PidSpace {
  readonly host: string;
  readonly bootId?: string;
  readonly pidNamespace?: string;
}

function readOptional(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined; // not Linux, or /proc not mounted: the hostname is all there is
  }
}

let here: PidSpace | undefined;
function thisPidSpace(): PidSpace {
  here ??= {
    host: hostname(),
    bootId: readOptional(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidNamespace: readOptional(() => readlinkSync('/proc/self/ns/pid')),
  };
  return here;
}

/**
 * Whether `owner`'s pid can be checked from here: written in this pid space. A field missing on either side (a
 * lock from before it was recorded, a system without /proc) is not held against it, so old locks read as before.
 */
function sameTurf(owner: DirectoryLockOwner): boolean {
  const local = thisPidSpace();
  const agrees = (theirs: string | undefined, ours: string | undefined): boolean =>
    theirs === undefined || ours === undefined || theirs === ours;
  return (
    owner.host === local.host && agrees(owner.bootId, local.bootId) && agrees(owner.pidNamespace, local.pidNamespace)
  );
}

/** The lock file's text for this process. */
function ownerText(): string {
  const { host, bootId, pidNamespace } = thisPidSpace();
  const owner: DirectoryLockOwner = {
    pid: process.pid,
    host,
    since: new Date().toISOString(),
    ...(bootId !== undefined ? { bootId } : {}),
    ...(pidNamespace !== undefined ? { pidNamespace } : {}),
  };
  return `${JSON.stringify(owner)}\n`;
}

export interface DirectoryLockOptions {
  /** The lock file's name inside the directory (default `.lock`). */
  file?: string;
  /**
   * Whether this process may claim a directory it already holds (default false). A trainer's run may be opened
   * twice by one program (a resume within it): each claim is released on its own and the lock goes with the last.
   * A bench refuses it: one process running one directory twice at once mixes its writes as two processes would.
   */
  reentrant?: boolean;
  /** The error to throw while a live process holds the directory. `file` is the lock's path. */
  inUse: (owner: DirectoryLockOwner, file: string) => Error;
  /**
   * The error to throw for a lock that cannot be claimed (unreadable, or taken over and over). `message` is said of
   * the directory ("holds a lock … that cannot be read"): put its path in front.
   */
  failed: (message: string) => Error;
}

/**
 * The locks this process holds: lock file → the takeover marker it holds with it (if any) and how many claims of
 * this process are open on it. Released when the last claim is, or when the process exits.
 */
const held = new Map<string, { readonly marker: string | undefined; claims: number }>();
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
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return null;
    return {
      pid: owner.pid,
      host: owner.host,
      since: String(owner.since),
      ...(typeof owner.bootId === 'string' ? { bootId: owner.bootId } : {}),
      ...(typeof owner.pidNamespace === 'string' ? { pidNamespace: owner.pidNamespace } : {}),
    };
  } catch {
    return null;
  }
}

function isMine(owner: DirectoryLockOwner | null | undefined): boolean {
  return !!owner && owner.pid === process.pid && sameTurf(owner);
}

/** The refusal of a lock whose holder is in another pid space: said of the directory, as `failed` expects. */
function heldElsewhere(owner: DirectoryLockOwner, file: string): string {
  const local = thisPidSpace();
  const where =
    owner.host !== local.host
      ? `on host ${owner.host} (this is ${local.host})`
      : owner.bootId !== undefined && owner.bootId !== local.bootId
        ? `on host ${owner.host} before a restart of it, or on another machine of that name (boot ${owner.bootId}, this one is ${String(local.bootId)})`
        : `on host ${owner.host} in another container, or another pid namespace (${String(owner.pidNamespace)}, this one is ${String(local.pidNamespace)})`;
  return (
    `is held by pid ${owner.pid} ${where}, since ${owner.since}: its processes cannot be checked from here, so ` +
    `the lock is taken as held. If no process there is writing this directory any more (it was stopped or ` +
    `killed, the machine or container restarted, or the directory was copied from there), remove ${file} to take it over.`
  );
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

/** The name prefix of the takeover markers of the lock file named `lockName`. */
const takeoverPrefix = (lockName: string): string => `${lockName}.takeover-`;

/**
 * Whether a file named `name` belongs to the lock named `lockName` (the default `.lock`): the lock or one of its
 * takeover markers. For code that checks a locked directory holds only its own files.
 */
export function isDirectoryLockFile(name: string, lockName = '.lock'): boolean {
  return name === lockName || name.startsWith(takeoverPrefix(lockName));
}

/**
 * Takeover markers whose taker is gone: each process killed while it held a lock it took over left one, so a run
 * resumed after kill upon kill piled them up. Swept once the lock is held, when no takeover of it can be under way
 * (a slow rival that makes a marker again finds the lock replaced and removes its own). A marker written on another
 * machine, or one that cannot be read, is left alone.
 */
function removeDeadMarkers(file: string, mine: string | undefined): void {
  const folder = dirname(file);
  const prefix = takeoverPrefix(basename(file));
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
    if (!taker || !sameTurf(taker) || isMine(taker) || processAlive(taker.pid)) continue;
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
 * Claims the existing directory `dir` for this process, or throws `options.inUse` while a live process on this
 * machine holds it: two writers of one directory (the same command started twice) would mix their files. The lock
 * is created only if absent. A lock left by a process that is gone (killed, crashed) is taken over. A lock written
 * in another pid space (another host, container or boot, told by the hostname, boot id and pid namespace the lock
 * records) is refused through `options.failed`, naming that host and the file to remove to take it over: its pid
 * says nothing here, and judging it by a local pid took over a run still being written by another container on
 * the same volume. Of two processes taking over one stale lock, only the one that creates the takeover marker named
 * after that lock's owner may replace it (`<file>.takeover-…`, kept while the lock is held), so a slower rival never
 * replaces the new lock. The lock is known by the directory's real path, so a claim through a symlink is the same
 * claim. Returns the release of this claim (idempotent); the lock also goes when the process exits.
 */
export function claimDirectoryLock(dir: string, options: DirectoryLockOptions): () => void {
  // Through a symlink (or `..`) the same folder has another name: keyed by that, a second claim was a first, and
  // its release removed the lock the other claim still relied on.
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    real = resolve(dir); // a missing folder: creating the lock in it fails below, with the system's error
  }
  const file = join(real, options.file ?? '.lock');
  const mine = held.get(file);
  if (mine) {
    if (!options.reentrant)
      throw options.inUse(ownerOf(file) ?? { pid: process.pid, host: thisPidSpace().host, since: '' }, file);
    mine.claims += 1;
    return releaseOnce(file);
  }
  const text = ownerText();
  let marker: string | undefined;
  let blocked: string | undefined;
  for (let attempt = 0; ; attempt += 1) {
    if (attempt > 20) {
      throw options.failed(
        `could not be claimed: other processes keep taking ${file}` +
          (blocked
            ? `; ${blocked} says another process is taking it over: remove it if no process is writing this directory.`
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
      throw options.failed(
        `holds a lock (${file}) that cannot be read: remove it if no process is writing this directory.`,
      );
    }
    // Another claim of this process's, made through another path to the same folder.
    if (isMine(owner)) {
      if (!options.reentrant) throw options.inUse(owner, file);
      break;
    }
    if (!sameTurf(owner)) throw options.failed(heldElsewhere(owner, file));
    if (processAlive(owner.pid)) throw options.inUse(owner, file);
    // Stale. Only the creator of this owner's marker may replace the lock; a rival waits and reads the new lock.
    const candidate = `${join(dirname(file), takeoverPrefix(basename(file)))}${owner.pid}-${owner.since.replace(/[^0-9A-Za-z]/g, '')}`;
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
      for (const [lock, { marker: takeover }] of held) {
        // A throw here (a file system gone read-only) would replace the exit code and the error that ended the
        // program; a lock left behind is a dead process's, which the next claim takes over.
        try {
          release(lock, takeover);
        } catch {
          // Left for the next claim.
        }
      }
    });
  }
  return releaseOnce(file);
}

/** One claim's release: the lock itself goes with the last claim of this process. */
function releaseOnce(file: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const mine = held.get(file);
    if (!mine) return;
    mine.claims -= 1;
    if (mine.claims > 0) return;
    held.delete(file);
    release(file, mine.marker);
  };
}
