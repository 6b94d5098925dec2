/**
 * Whether a process with this pid runs on this machine (in this pid namespace): what a lock file or a profile
 * named after its writer's pid is judged by once that writer may be gone. pid 0 or less names no other process
 * (`process.kill(0, …)` would signal this process group). EPERM means a live process of another user.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
