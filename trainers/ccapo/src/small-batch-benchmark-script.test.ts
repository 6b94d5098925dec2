import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', 'scripts', 'small-batch-benchmark.js');

/**
 * The wiki GRPO baseline's command, as plan-act-benchmark.js ran it for runs/plan-act-wiki (the first line of its
 * log, seed and run directory left open): CCAPO's and GiGPO's must differ from it in the algorithm alone.
 */
const GRPO_BASELINE = (runDir: string, seed: number) =>
  `$ node packages/cli/dist/bin.js train grpo --env turngym/wiki-qa-compact-v1 --options '{"questionTypes":["bridge"],"minHops":2,"maxHops":2,"articles":20000}' --checkpoint benchmarks/learning/models/wiki-plan-act-warm-start --run-dir ${runDir} --seed ${seed} --backend wasm --set instructions=false --set evalEpisodes=50 --set evalEvery=1000 --set trajectoriesEvery=5 --set promptsPerIteration=8 --set maxActionTokens=48 --set maxRolloutTokens=256 --set loraRank=16 --set loraAlpha=32 --set learningRate=0.001 --set minibatchSize=64 --set targetKl=0.02 --set maxBatch=16 --set groupSize=8 --set iterations=200 --set tokenBudget=100000 --quiet --json`;

function script(args: string[]) {
  // A script that ignores --help or --dry-run starts a training run: the timeout stops it, and the status fails.
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 30_000 });
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value)}\n`);
}

describe('scripts/small-batch-benchmark.js', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'small-batch-benchmark-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('prints its usage for --help and runs nothing (a bare call would start the math runs)', () => {
    const run = script(['--help', '--root', scratch]);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    for (const flag of ['--env wiki', '--dry-run', '--grpo-root', '--test-tasks', '--score', '--summarize']) {
      expect(run.stdout).toContain(flag);
    }
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('--env wiki runs CCAPO and GiGPO with the GRPO baseline settings, the algorithm alone differing', () => {
    const run = script(['--env', 'wiki', '--dry-run', '--seeds', '2', '--root', 'runs/ccapo-wiki']);
    expect(run.status).toBe(0);
    const commands = run.stderr.trim().split('\n');
    const dir = (algorithm: string) => `runs/ccapo-wiki/wiki-bridge-g8-p8/${algorithm}-t100000-s2`;
    expect(commands).toEqual(
      ['ccapo', 'gigpo'].map((algorithm) =>
        GRPO_BASELINE(dir(algorithm), 2).replace('train grpo', `train ${algorithm}`),
      ),
    );
  });

  it('--env wiki refuses GRPO (its runs are the Plan/Act benchmark’s) and a batch other than the baseline’s', () => {
    expect(script(['--env', 'wiki', '--dry-run', '--only', 'grpo', '--root', scratch]).status).not.toBe(0);
    expect(script(['--env', 'wiki', '--dry-run', '--group', '4', '--root', scratch]).status).not.toBe(0);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('refuses a budget or seeds that are not integers before printing or running anything, in one line', () => {
    // `--budget 50k` was NaN: every run was started with tokenBudget=null, trained 0 iterations, said "done".
    for (const args of [
      ['--budget', '50k'],
      ['--budget', '0'],
      ['--seeds', '1,x'],
      ['--seeds', ''],
      ['--env', 'wiki', '--budget', '100k'],
    ]) {
      const run = script([...args, '--dry-run', '--only', 'ccapo', '--root', scratch]);
      expect({ args, status: run.status }).toEqual({ args, status: 2 });
      expect(run.stderr).toMatch(new RegExp(`^error: ${args.at(-2)} must be .*; got ${args.at(-1)} \\(--help`));
      expect(run.stderr).not.toContain('    at ');
    }
    const fine = script(['--budget', '20000', '--seeds', '4,5', '--dry-run', '--only', 'gigpo', '--root', scratch]);
    expect(fine.status).toBe(0);
    expect(fine.stderr).toContain('gigpo-t20000-s5');
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('--summarize reads the wiki GRPO runs from --grpo-root and counts gains and losses against one start', () => {
    const setting = join(scratch, 'ours', 'wiki-bridge-g8-p8');
    const grpoRoot = join(scratch, 'plan-act', 'wiki-plan-act');
    const addRun = (dir: string, wins: string, extra: Record<string, number>) => {
      mkdirSync(dir, { recursive: true });
      const row = (iteration: number, more: Record<string, number>) =>
        JSON.stringify({ iteration, global_step: 50_000 * (iteration + 1), ...extra, ...more });
      writeFileSync(
        join(dir, 'metrics.jsonl'),
        `${row(0, { 'losses/policy_loss': 0.1 })}\n${row(1, { 'eval/success_rate': 0.5 })}\n`,
      );
      writeJson(join(dir, 'final-eval-4.json'), { successRate: [...wins].filter((w) => w === '1').length / 4, wins });
    };
    mkdirSync(setting, { recursive: true });
    writeJson(join(setting, 'start-eval-4.json'), { successRate: 0.25, wins: '0001' });
    // CCAPO against 0001: gains tasks 0 and 1. GRPO (the plan-act script's run): gains task 2, loses task 3.
    addRun(join(setting, 'ccapo-t100000-s1'), '1101', { 'stdb/anchor_hit_rate': 0.5, 'stdb/edge_hit_rate': 0.25 });
    addRun(join(grpoRoot, 'grpo-b100000-s1'), '0010', {});
    // Not a GRPO run of the baseline: left out.
    addRun(join(grpoRoot, 'plan-act-shared-b100000-s1'), '1111', {});
    const run = script(['--summarize', '--root', join(scratch, 'ours'), '--grpo-root', grpoRoot, '--test-tasks', '4']);
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain('| ccapo t100000 s1 | 0.500 | 0.750 | 2 / 0 | 2 (1) | 100000 |  | 0.500 / 0.250; 0.500 |');
    expect(lines).toContain('| grpo t100000 s1 | 0.500 | 0.250 | 1 / 1 | 2 (1) | 100000 |  |  |');
    expect(lines.filter((line) => line.startsWith('| plan-act'))).toEqual([]);
    expect(lines).toContain('| grpo | 100000 | 0.500 ± 0.000 (n=1) | 0.250 ± 0.000 (n=1) | 1 / 1 (n=1) |  |  |');
  });
});
