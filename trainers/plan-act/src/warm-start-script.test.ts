import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', 'scripts', 'warm-start.js');

describe('scripts/warm-start.js', () => {
  it('prints its usage for --help and runs nothing (a bare call would train stage 1 and overwrite --dir)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'plan-act-warm-start-'));
    try {
      const dir = join(scratch, 'ws');
      const out = join(scratch, 'sft');
      // A script that ignores --help starts training: the timeout stops it, and the test fails on the status.
      const run = spawnSync(process.execPath, [SCRIPT, '--help', '--dir', dir, '--out', out], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      for (const flag of ['--env', '--seed', '--out', '--dir', '--from', '--score-epochs', '--help']) {
        expect(run.stdout).toContain(flag);
      }
      expect(run.stdout).not.toContain('require(');
      expect(existsSync(dir) || existsSync(out) ? readdirSync(scratch) : []).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
