import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const SCRIPTS = join(__dirname, '..', 'scripts');

describe('the Self-AC benchmark scripts', () => {
  // A script that ignores --help starts a probe or a run of many minutes: the timeout stops it and the status fails.
  it.each([
    ['critic-probe.js', ['--steps', '--ceiling', '--monte-carlo', '--save']],
    ['critic-benchmark.js', ['critic --seed', 'calibrate', '--critic-epochs', 'tot']],
  ])('%s prints its usage for --help and runs nothing', (script, mentions) => {
    const run = spawnSync(process.execPath, [join(SCRIPTS, script), '--help'], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    for (const mention of mentions) expect(run.stdout).toContain(mention);
    expect(run.stdout).not.toContain('require(');
  });
});
