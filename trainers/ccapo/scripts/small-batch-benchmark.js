#!/usr/bin/env node
/**
 * Issue 25 item 5: CCAPO vs GiGPO vs GRPO at a small batch (the seed's claim: with few rollouts per batch,
 * GiGPO's anchor-state step groups are mostly singletons and its step advantage vanishes, while CCAPO's
 * history store still judges each step), from the committed math warm start, at equal generated-token
 * budgets, on several seeds. From the repository root after `npx tsc -b packages/cli`:
 *
 *   node trainers/ccapo/scripts/small-batch-benchmark.js [--group 8] [--tasks 2] [--seeds 1,2,3] [--budget 50000]
 *     [--only ccapo|gigpo|grpo] [--set key=value …] [--root runs/ccapo-bench]
 *   node trainers/ccapo/scripts/small-batch-benchmark.js --score [--root runs/ccapo-bench]
 *   node trainers/ccapo/scripts/small-batch-benchmark.js --summarize [--root runs/ccapo-bench]
 *   node trainers/ccapo/scripts/small-batch-benchmark.js --help    (this text; runs nothing)
 *
 * The seed's "batch" is the N rollouts sampled for one prompt (seed §5: GiGPO's step groups form among them), so
 * `--group` sets G (rollouts per task, the same for all three) and `--tasks` P (tasks per iteration). The other
 * settings are the math learning experiment's (benchmarks/learning/src/experiments.ts): 200 test tasks, learning rate 5e-4, target KL
 * 0.02, 32 tokens per action, 160 per episode. Each run is one `turngym train` command (printed before it runs)
 * in <root>/math-g<G>-p<P>/<algorithm>-t<budget>-s<seed>; a run directory that exists is resumed (a finished run
 * returns at once). `--summarize` prints the markdown tables for docs/benchmarks/learning.md: each run's last
 * evaluation, GiGPO's mean share of singleton step groups, CCAPO's STDB hit rates; mean ± std over seeds.
 * `--score` scores the warm start and each finished run's final policy task by task on the same greedy test
 * episodes (benchmarks/learning's test scores, after `npx tsc -b benchmarks/learning`; kept in
 * <root>/start-eval.json and <run>/final-eval.json), so the summary can count the test tasks each run gained
 * and lost against the warm start: the trainers' metrics keep the success rate only.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'packages', 'cli', 'dist', 'bin.js');
const WARM_START = 'benchmarks/learning/models/math-warm-start';
const ENV_ID = 'turngym/math-thought-calc-v1';
const ENV_OPTIONS = { difficulties: [1], kinds: ['arithmetic'] };
const RL = {
  instructions: false,
  evalEpisodes: 200,
  evalEvery: 10,
  trajectoriesEvery: 5,
  iterations: 1000,
  maxActionTokens: 32,
  maxRolloutTokens: 160,
  loraRank: 16,
  loraAlpha: 32,
  learningRate: 5e-4,
  minibatchSize: 8,
  targetKl: 0.02,
};
const ALGORITHMS = ['ccapo', 'gigpo', 'grpo'];
const RUN_NAME = /^(ccapo|gigpo|grpo)-t(\d+)-s(\d+)$/;
const SCORES = join(ROOT, 'benchmarks', 'learning', 'dist', 'test-scores.js');

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

function overrides() {
  return Object.fromEntries(
    process.argv
      .flatMap((arg, index) => (arg === '--set' ? [process.argv[index + 1]] : []))
      .map((assignment) => {
        const split = assignment.indexOf('=');
        const raw = assignment.slice(split + 1);
        let value = raw;
        try {
          value = JSON.parse(raw);
        } catch {
          // a bare string
        }
        return [assignment.slice(0, split), value];
      }),
  );
}

function command(algorithm, group, tasks, budget, seed, dir, extra) {
  const args = { ...RL, groupSize: group, promptsPerIteration: tasks, tokenBudget: budget, ...extra };
  return [
    CLI,
    'train',
    algorithm,
    '--env',
    ENV_ID,
    '--options',
    JSON.stringify(ENV_OPTIONS),
    '--checkpoint',
    WARM_START,
    '--run-dir',
    dir,
    '--seed',
    String(seed),
    '--backend',
    'wasm',
    ...Object.entries(args).flatMap(([key, value]) => [
      '--set',
      `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
    ]),
    '--quiet',
    '--json',
  ];
}

function rows(dir) {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** The settings' directories under root (math-g8-p2, …), not the files beside them. */
const settings = (root) =>
  existsSync(root)
    ? readdirSync(root)
        .filter((name) => statSync(join(root, name)).isDirectory())
        .sort()
    : [];

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const std = (values) =>
  values.length > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean(values)) ** 2, 0) / (values.length - 1)) : 0;
const shown = (values, digits = 3) =>
  values.length === 0 ? '—' : `${mean(values).toFixed(digits)} ± ${std(values).toFixed(digits)} (n=${values.length})`;

/** The finished runs under root: [setting, run name, directory, last metrics row with an evaluation]. */
function finishedRuns(root) {
  const found = [];
  for (const setting of settings(root)) {
    for (const run of readdirSync(join(root, setting)).sort()) {
      if (!RUN_NAME.test(run)) continue;
      const dir = join(root, setting, run);
      const last = rows(dir)
        .filter((row) => Number.isFinite(row['eval/success_rate']))
        .at(-1);
      if (last) found.push([setting, run, dir, last]);
    }
  }
  return found;
}

async function score(root) {
  const { cachedScore, finalScoreFile } = require(SCORES);
  const experiment = { envId: ENV_ID, envOptions: ENV_OPTIONS, rl: RL };
  const start = await cachedScore(join(root, 'start-eval.json'), experiment, join(ROOT, WARM_START));
  process.stderr.write(`warm start: ${start.successRate}\n`);
  for (const [, run, dir, last] of finishedRuns(root)) {
    const adapter = join(dir, 'checkpoint', 'adapter');
    const final = await cachedScore(finalScoreFile(dir), experiment, join(ROOT, WARM_START), {
      adapter,
      tag: `iteration ${last.iteration}`,
    });
    // The same greedy episodes as the run's own last evaluation: a different rate means the score is not of
    // the run's final policy.
    const agrees = Math.abs(final.successRate - last['eval/success_rate']) < 1e-9;
    process.stderr.write(
      `${run}: ${final.successRate}${agrees ? '' : ` (the run's own: ${last['eval/success_rate']})`}\n`,
    );
  }
}

function readJson(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

/** Test tasks gained and lost against the warm start (benchmarks/learning's count), where both were scored. */
function flips(start, final) {
  return start && final ? require(SCORES).gainedAndLost(start, final) : undefined;
}

function summarize(root) {
  const start = readJson(join(root, 'start-eval.json'));
  const lines = [];
  for (const setting of settings(root)) {
    const runs = [];
    for (const run of readdirSync(join(root, setting)).sort()) {
      const match = RUN_NAME.exec(run);
      if (!match) continue;
      const metrics = rows(join(root, setting, run));
      const last = metrics.filter((row) => Number.isFinite(row['eval/success_rate'])).at(-1);
      if (!last) continue;
      const average = (name) => {
        const values = metrics.map((row) => row[name]).filter(Number.isFinite);
        return values.length > 0 ? mean(values) : undefined;
      };
      runs.push({
        algorithm: match[1],
        budget: Number(match[2]),
        seed: Number(match[3]),
        success: last['eval/success_rate'],
        iterations: metrics.length,
        tokens: metrics.at(-1).global_step,
        singletons: average('gigpo/singleton_group_share'),
        anchorHits: average('stdb/anchor_hit_rate'),
        edgeHits: average('stdb/edge_hit_rate'),
        lastAnchorHits: metrics.at(-1)['stdb/anchor_hit_rate'],
        trained: metrics.filter((row) => Number.isFinite(row['losses/policy_loss'])).length,
        flips: flips(start, readJson(join(root, setting, run, 'final-eval.json'))),
      });
    }
    if (runs.length === 0) continue;
    lines.push(
      `### ${setting}`,
      '',
      '| run | test success | test tasks gained / lost vs the warm start | iterations (with an update) | generated tokens | GiGPO singleton step groups (mean) | CCAPO STDB anchor / edge hit rate (mean; last) |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...runs.map(
        (run) =>
          `| ${run.algorithm} t${run.budget} s${run.seed} | ${run.success.toFixed(3)} | ${run.flips ? `${run.flips.gained} / ${run.flips.lost}` : ''} | ${run.iterations} (${run.trained}) | ${run.tokens} | ${run.singletons === undefined ? '' : run.singletons.toFixed(3)} | ${run.anchorHits === undefined ? '' : `${run.anchorHits.toFixed(3)} / ${run.edgeHits.toFixed(3)}; ${run.lastAnchorHits.toFixed(3)}`} |`,
      ),
      '',
      '| algorithm | budget | test success | test tasks gained / lost (sum over seeds) | GiGPO singleton share | CCAPO anchor hit rate |',
      '|---|---:|---:|---:|---:|---:|',
    );
    const keys = [...new Set(runs.map((run) => `${run.algorithm} ${run.budget}`))];
    for (const key of keys) {
      const group = runs.filter((run) => `${run.algorithm} ${run.budget}` === key);
      const [algorithm, budget] = key.split(' ');
      const defined = (name) => group.map((run) => run[name]).filter((value) => value !== undefined);
      const scored = group.filter((run) => run.flips);
      lines.push(
        `| ${algorithm} | ${budget} | ${shown(group.map((run) => run.success))} | ${scored.length === 0 ? '' : `${scored.reduce((sum, run) => sum + run.flips.gained, 0)} / ${scored.reduce((sum, run) => sum + run.flips.lost, 0)} (n=${scored.length})`} | ${algorithm === 'gigpo' ? shown(defined('singletons')) : ''} | ${algorithm === 'ccapo' ? shown(defined('anchorHits')) : ''} |`,
      );
    }
    lines.push('');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function main() {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    // The usage is this file's header comment; a bare call would start (or resume) the default runs.
    process.stdout.write(require('../../../scripts/header-usage').headerUsage(__filename));
    return;
  }
  const root = join(ROOT, flag('root', 'runs/ccapo-bench'));
  if (process.argv.includes('--summarize')) return summarize(root);
  if (process.argv.includes('--score')) {
    return score(root).catch((error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exitCode = 1;
    });
  }
  const group = Number(flag('group', '8'));
  const tasks = Number(flag('tasks', '2'));
  if (!Number.isInteger(group) || group < 2 || !Number.isInteger(tasks) || tasks < 1) {
    throw new Error(`--group must be an integer >= 2 and --tasks one >= 1; got ${group} and ${tasks}`);
  }
  const seeds = flag('seeds', '1,2,3').split(',').map(Number);
  const budget = Number(flag('budget', '50000'));
  const only = flag('only');
  const extra = overrides();
  for (const seed of seeds) {
    for (const algorithm of ALGORITHMS) {
      if (only && algorithm !== only) continue;
      const dir = relative(ROOT, join(root, `math-g${group}-p${tasks}`, `${algorithm}-t${budget}-s${seed}`));
      const args = command(algorithm, group, tasks, budget, seed, dir, extra);
      process.stderr.write(
        `$ node ${relative(ROOT, args[0])} ${args
          .slice(1)
          .map((arg) => (/[\s{"]/.test(arg) ? `'${arg}'` : arg))
          .join(' ')}\n`,
      );
      const started = Date.now();
      const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      process.stderr.write(
        `  ${result.status === 0 ? 'done' : `exit ${result.status}`} in ${Math.round((Date.now() - started) / 1000)} s: ${String(result.stdout).trim()}\n`,
      );
    }
  }
}

main();
