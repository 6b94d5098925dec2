import { claimDirectoryLock, type DirectoryLockOwner } from '@turngym/core';
import { RunDirectoryError } from './rl-errors';

/** The file a process writing a run directory holds it by. */
export const RUN_LOCK_FILE = '.lock';

function inUse(dir: string, file: string, owner: DirectoryLockOwner): RunDirectoryError {
  // This process's own claim (the lock is not reentrant): two trainings of one run in one program (two `train()`
  // calls at once) deleted each other's checkpoint in progress and mixed their metrics.
  if (owner.pid === process.pid)
    return new RunDirectoryError(
      dir,
      'is already open for writing in this process: another training of this run is under way (two at once ' +
        "would delete each other's checkpoints and mix their metrics), or a RunDirectory opened on it was not " +
        'closed. Wait for the other training to end, or close that RunDirectory (`run.close()`), then open it again.',
    );
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
 * process cannot be checked from here. The lock is not reentrant: a second claim of a run this process holds (by
 * any path to it) is refused too; it goes when the run is closed, or when the process exits.
 */
export function claimRunLock(dir: string): () => void {
  return claimDirectoryLock(dir, {
    file: RUN_LOCK_FILE,
    inUse: (owner, file) => inUse(dir, file, owner),
    failed: (message) => new RunDirectoryError(dir, message),
  });
}
