import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has that pid, alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string'
      ? { pid: owner.pid, host: owner.host, since: String(owner.since) }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claims the run directory `dir` for this process, or refuses with `RUN_DIRECTORY` while another live process on this
 * machine holds it. Two processes writing one run (the same command started twice, a seed given to two jobs) would
 * both append to metrics.jsonl and the trajectories, and each resume would reset the other's stores: a run silently
 * mixed from two. A lock left by a process that is gone (killed, crashed) is taken over, as is one written on another
 * machine, whose processes cannot be checked from here (a run folder carried back from a GPU machine). The same
 * process may claim a directory again (a resume within one program). Released when the process exits.
 */
export function claimRunLock(dir: string): void {
  const file = join(resolve(dir), RUN_LOCK_FILE);
  if (held.has(file)) return;
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(file, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const owner = ownerOf(file);
    if (owner && owner.host === me.host && owner.pid !== me.pid && alive(owner.pid)) {
      throw new RunDirectoryError(
        dir,
        `is in use by another process (pid ${owner.pid}, since ${owner.since}): two processes writing one run ` +
          `would mix their metrics and checkpoints. Wait for it or stop it, or choose another directory.`,
      );
    }
    rmSync(file, { force: true });
  }
  held.add(file);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const lock of held) rmSync(lock, { force: true });
    });
  }
}
