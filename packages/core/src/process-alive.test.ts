import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { processAlive } from './process-alive';

describe('processAlive', () => {
  it('is true of a live process, false of one that is gone and of pids that name no other process', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(spawnSync(process.execPath, ['-e', '']).pid as number)).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(processAlive(pid)).toBe(false);
  });

  // A process that exited and whose parent has not waited for it (a notebook that killed `turngym train` and
  // kept the handle) still answers kill(pid, 0): its run stayed locked "in use by pid …" until the parent exited.
  const linux = existsSync('/proc/self/stat') ? it : it.skip;
  linux('is false of a zombie: a process that exited, not yet reaped by its parent', async () => {
    // The child is killed only once its parent has become `sleep` (which never reaps): killed while the parent was
    // still the shell, it could be reaped by the shell first, and there was no zombie to look at (a flaky ENOENT).
    const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
      );
      // Waits for the states the kernel reports, not for a time.
      const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      while (comm(parent.pid as number) !== 'sleep') await new Promise((resolve) => setImmediate(resolve));
      process.kill(zombie, 'SIGKILL');
      const state = () => {
        const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
        return stat[stat.lastIndexOf(')') + 2];
      };
      while (state() !== 'Z') await new Promise((resolve) => setImmediate(resolve));
      expect(processAlive(zombie)).toBe(false);
      expect(processAlive(parent.pid as number)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
