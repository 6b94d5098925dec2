import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcessStat } from './process-stat';

const linux = process.platform === 'linux';

describe('readProcessStat', () => {
  (linux ? it : it.skip)('reads this process: running, its parent, its group and a start time', () => {
    const stat = readProcessStat(process.pid);
    expect(stat).toMatchObject({ pid: process.pid, parent: process.ppid });
    expect(['R', 'S', 'D']).toContain(stat!.state);
    expect(Number.isInteger(stat!.group)).toBe(true);
    expect(stat!.startTicks).toMatch(/^\d+$/);
  });

  // A command name may hold spaces and parentheses: the fields are read after its last ')'.
  (linux ? it : it.skip)('reads a process whose command name holds ") (" and spaces, and sees it stopped', async () => {
    // The kernel names a process after its executable's file name: a copy of sleep so named.
    const directory = mkdtempSync(join(tmpdir(), 'turngym-stat-'));
    const odd = join(directory, 'x) (y z');
    copyFileSync('/bin/sleep', odd);
    const child = spawn(odd, ['30']);
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      child.kill('SIGSTOP');
      for (let tries = 0; tries < 100 && readProcessStat(child.pid!)?.state !== 'T'; tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(readProcessStat(child.pid!)).toMatchObject({ pid: child.pid, state: 'T', parent: process.pid });
    } finally {
      child.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('is undefined for a pid that runs nothing', () => {
    expect(readProcessStat(2 ** 22 + 1)).toBeUndefined();
  });
});
