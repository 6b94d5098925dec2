import { readProcessStat } from './process-stat';

/**
 * Whether a process with this pid runs on this machine (in this pid namespace): what a lock file or a profile
 * named after its writer's pid is judged by once that writer may be gone. pid 0 or less names no other process
 * (`process.kill(0, …)` would signal this process group). EPERM means a live process of another user. A zombie (a
 * process that exited and whose parent has not reaped it yet: a notebook that killed `turngym train` without waiting
 * for it) still answers `kill(pid, 0)`, and held its run's lock until its parent exited: it is not alive.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' && !exited(pid);
  }
  return !exited(pid);
}

/** Whether /proc says the process has exited (Z: a zombie, X: dead); false where there is no /proc to ask. */
function exited(pid: number): boolean {
  const state = readProcessStat(pid)?.state;
  return state === 'Z' || state === 'X';
}
