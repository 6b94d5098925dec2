import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', 'scripts', 'plan-act-benchmark.js');

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value)}\n`);
}

describe('scripts/plan-act-benchmark.js', () => {
  it('prints its usage for --help and runs nothing (a bare call would start the wiki runs)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'plan-act-benchmark-'));
    try {
      // A script that ignores --help starts a training run: the timeout stops it, and the test fails on the status.
      const run = spawnSync(process.execPath, [SCRIPT, '--help', '--root', scratch], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      for (const flag of ['--experiment', '--seeds', '--budget', '--only', '--score', '--tasks', '--summarize']) {
        expect(run.stdout).toContain(flag);
      }
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it.each([
    [['--budget', '50k'], '--budget must be a whole number (got "50k")'],
    [['--budget', '--seeds', '1'], '--budget must be a whole number (got "--seeds")'],
    [['--seeds', '1,x'], '--seeds must be whole numbers separated by commas (got "1,x")'],
    [['--tasks', 'all'], '--tasks must be a whole number (got "all")'],
  ])('refuses %j with one line and exit 2 before any run starts', (args, message) => {
    // `--budget 50k` ran every seed with a NaN budget (no budget at all) in a directory named bNaN.
    const scratch = mkdtempSync(join(tmpdir(), 'plan-act-benchmark-'));
    try {
      const run = spawnSync(process.execPath, [SCRIPT, '--root', scratch, ...args], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({
        status: 2,
        stderr: `error: ${message} (--help for the usage)\n`,
      });
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('--summarize counts the test tasks each run gained and lost against its own start (Plan/Act or single agent)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'plan-act-benchmark-'));
    try {
      const dir = join(scratch, 'math-plan-act');
      const row = (iteration: number, extra: Record<string, number> = {}) =>
        JSON.stringify({ iteration, global_step: 1000 * (iteration + 1), 'charts/success_rate': 0.25, ...extra });
      const addRun = (name: string, wins: string, hitRate?: number) => {
        mkdirSync(join(dir, name), { recursive: true });
        const cache = hitRate === undefined ? {} : { 'cache/hit_rate': hitRate };
        writeFileSync(
          join(dir, name, 'metrics.jsonl'),
          `${row(0, { 'losses/policy_loss': 0.1, ...cache })}\n${row(1, { 'eval/success_rate': 0.5, ...cache })}\n`,
        );
        writeJson(join(dir, name, 'final-eval-4.json'), {
          roles: name === 'grpo-b2000-s1' ? 'single' : 'plan-act',
          successRate: [...wins].filter((win) => win === '1').length / wins.length,
          wins,
        });
        writeJson(join(dir, name, 'bench.json'), { wallSeconds: 100, load: [2, 4], attempts: [] });
      };
      mkdirSync(dir, { recursive: true });
      writeJson(join(dir, 'start-eval-plan-act-4.json'), { successRate: 0.5, wins: '1100' });
      writeJson(join(dir, 'start-eval-single-4.json'), { successRate: 0.25, wins: '0001' });
      // GRPO against the single-agent start 0001: gains tasks 0 and 1, keeps 3. Plan/Act against 1100: loses
      // task 1, gains task 2 (against the single-agent start it would be 2 gained, 1 lost).
      addRun('grpo-b2000-s1', '1101');
      addRun('plan-act-shared-b2000-s1', '1010', 0.8);
      // A second seed that finished but is not scored yet: its row shows no score, and the mean is seed 1's alone.
      addRun('plan-act-shared-b2000-s2', '1010', 0.8);
      rmSync(join(dir, 'plan-act-shared-b2000-s2', 'final-eval-4.json'));
      const run = spawnSync(process.execPath, [SCRIPT, '--summarize', '--root', scratch, '--tasks', '4'], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(0);
      const rows = run.stdout.split('\n');
      expect(rows.find((line) => line.startsWith('| grpo | 2000 | 1 |'))).toBe(
        '| grpo | 2000 | 1 | 2 (1) | 2000 | 0.750 | 2 / 0 | 0.500 | 0.250 | — | 100 | 3.0 |',
      );
      expect(rows.find((line) => line.startsWith('| plan-act-shared | 2000 | 1 |'))).toBe(
        '| plan-act-shared | 2000 | 1 | 2 (1) | 2000 | 0.500 | 1 / 1 | 0.500 | 0.250 | 0.80 | 100 | 3.0 |',
      );
      expect(rows).toContain('| grpo | 2000 | 1 | 0.750 ± 0.000 | 2 / 0 | 0.50 | 2.0 | 2000 | — | 100 | 3.0 |');
      expect(rows).toContain(
        '| plan-act-shared | 2000 | 1 of 2 scored | 0.500 ± 0.000 | 1 / 1 | 1.00 | 2.0 | 2000 | 0.80 | 100 | 3.0 |',
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
