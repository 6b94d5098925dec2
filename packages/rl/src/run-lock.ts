import { claimDirectoryLock, type DirectoryLockOwner } from '@turngym/core';
import { RunDirectoryError } from './rl-errors';

/** The file a process writing a run directory holds it by. */
export const RUN_LOCK_FILE = '.lock';

function inUse(dir: string, file: string, owner: DirectoryLockOwner): RunDirectoryError {
  return new RunDirectoryError(
    dir,
    `is in use by another process (pid ${owner.pid}, since ${owner.since}): two processes writing one run ` +
      `would mix their metrics and checkpoints. Wait for it or stop it, or choose another directory; if no ` +
      `TurnGym run has pid ${owner.pid}, remove ${file}.`,
  );
}

/**
 * Claims the run directory `dir` for this process, or refuses with `RUN_DIRECTORY` while another live process holds
 * it. Two processes writing one run (the same command started twice, a seed given to two jobs) would both append to
 * metrics.jsonl and the trajectories, and each resume would reset the other's stores: a run silently mixed from two.
 * Core's `claimDirectoryLock` does the claiming: a stale lock of a killed process on this machine is taken over, one
 * taker at a time; a lock written on another host, boot or pid namespace (a container) is taken as held, since its
 * process cannot be checked from here. `RunDirectory` refuses a second writer of a run this process already has
 * open; the lock itself is reentrant, each claim returning its own release, and goes with the last, or when the
 * process exits.
 */
export function claimRunLock(dir: string): () => void {
  return claimDirectoryLock(dir, {
    file: RUN_LOCK_FILE,
    reentrant: true,
    inUse: (owner, file) => inUse(dir, file, owner),
    failed: (message) => new RunDirectoryError(dir, message),
  });
}
