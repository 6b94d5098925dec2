import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

  // Before: `--steps 1o0` ran as NaN steps (none) after minutes of sampling, `--out` given last and
  // `--minibatch 0` failed only after them, `--seeds 1,x` trained seed 1 and then a seed NaN. Refused at once now.
  it.each([
    ['critic-probe.js', ['--steps', '1o0'], '--steps takes a number (got "1o0")'],
    ['critic-probe.js', ['--lr', 'fast'], '--lr takes a number (got "fast")'],
    ['critic-probe.js', ['--ceiling', '8', '--out'], '--out needs a value'],
    ['critic-probe.js', ['--save', '--steps', '40'], '--save needs a value'],
    [
      'critic-probe.js',
      ['--minibatch', '0'],
      'Invalid options for Self-AC update: options.minibatchSize must be >= 1 (got 0)',
    ],
    ['critic-benchmark.js', ['learning', '--seeds', '1,x'], '--seeds takes seeds separated by commas (got "x")'],
    ['critic-benchmark.js', ['critic', '--iterations', 'four'], '--iterations takes a number (got "four")'],
    ['critic-benchmark.js', ['tot', '--critic', '--tasks', '2'], '--critic needs a value'],
  ])('%s %j is refused before anything runs', (script, args, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'self-ac-scripts-'));
    try {
      // Where the old code would have written (a probe's episode cache, a run), so a test run leaves nothing behind.
      const where = script === 'critic-probe.js' ? ['--cache', join(dir, 'cache.json')] : ['--out', join(dir, 'out')];
      const [first, ...rest] = args;
      const argv = script === 'critic-probe.js' ? [...where, ...args] : [first!, ...where, ...rest];
      const run = spawnSync(process.execPath, [join(SCRIPTS, script), ...argv], { encoding: 'utf8', timeout: 30_000 });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 2, stderr: `${message}. See --help.\n` });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
