import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', 'scripts', 'rollouts-ab.js');

describe('rollouts-ab.js', () => {
  // Before, --help was ignored and the script ran its default A/B (minutes of rollouts): the timeout stops such a
  // run and the status check fails.
  it('prints its usage for --help and runs nothing', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '--help'], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    for (const mention of ['--iterations', '--only math,wiki,long', '--ab']) expect(run.stdout).toContain(mention);
    expect(run.stdout).not.toMatch(/trees\/chains rollouts per CPU-second/);
  });
});
