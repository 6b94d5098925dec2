#!/usr/bin/env node
/**
 * Issue 26 item 5: Plan/Act (shared parameters, an adapter per role) against single-agent GRPO from the same
 * warm start, at equal generated-token budgets, on several seeds. From the repository root after
 * `npx tsc -b packages/cli benchmarks/learning`:
 *
 *   node trainers/plan-act/scripts/plan-act-benchmark.js [--experiment wiki-plan-act] [--seeds 1,2,3]
 *     [--budget 100000] [--only grpo|plan-act-shared|plan-act-independent] [--set key=value …] [--root runs/plan-act]
 *     [--checkpoint <dir>: default the committed warm start]
 *   node trainers/plan-act/scripts/plan-act-benchmark.js --summarize [--root runs/plan-act]
 *
 * Each run is one `turngym train` command (printed before it runs) in <root>/<experiment>/<variant>-b<budget>-s<seed>;
 * a run directory that exists is resumed by the trainer (a finished run returns at once). `--summarize` reads
 * every run's metrics.jsonl and prints the markdown table for docs/benchmarks/learning.md: the last
 * evaluation's test success rate per run, and the mean and standard deviation over seeds per variant.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { PLAN_ACT_EXPERIMENTS } = require('../../../benchmarks/learning/dist/plan-act-experiments');

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'packages', 'cli', 'dist', 'bin.js');
const VARIANTS = {
  grpo: { algorithm: 'grpo', set: {} },
  'plan-act-shared': { algorithm: 'plan-act', set: { policies: 'shared' } },
  'plan-act-independent': { algorithm: 'plan-act', set: { policies: 'independent' } },
};

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

function flags(name) {
  return process.argv.flatMap((arg, index) => (arg === `--${name}` ? [process.argv[index + 1]] : []));
}

function warmStart(experiment) {
  if (flag('checkpoint')) return join(ROOT, flag('checkpoint'));
  const committed = join(ROOT, 'benchmarks', 'learning', 'models', `${experiment.name}-warm-start`);
  return existsSync(join(committed, 'manifest.json')) ? committed : experiment.base;
}

function command(experiment, variant, budget, seed, dir, overrides) {
  const { algorithm, set } = VARIANTS[variant];
  const own = algorithm === 'plan-act' ? { ...experiment.planAct, ...set } : { ...experiment.grpo, ...set };
  const args = { ...experiment.rl, ...own, tokenBudget: budget, ...overrides };
  const setFlags = Object.entries(args)
    .filter(([key]) => !['backend'].includes(key))
    .flatMap(([key, value]) => ['--set', `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`]);
  return [
    CLI,
    'train',
    algorithm,
    '--env',
    experiment.envId,
    '--options',
    JSON.stringify(experiment.envOptions),
    '--checkpoint',
    relative(ROOT, warmStart(experiment)),
    '--run-dir',
    dir,
    '--seed',
    String(seed),
    '--backend',
    String(experiment.rl.backend ?? 'wasm'),
    ...setFlags,
    '--quiet',
    '--json',
  ];
}

function lastEval(dir) {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return undefined;
  const rows = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const evaluated = rows.filter((row) => Number.isFinite(row['eval/success_rate']));
  const last = evaluated.at(-1);
  return last && { success: last['eval/success_rate'], tokens: rows.at(-1).global_step, iterations: rows.length };
}

function summarize(root) {
  const lines = [];
  for (const experiment of PLAN_ACT_EXPERIMENTS) {
    const dir = join(root, experiment.name);
    if (!existsSync(dir)) continue;
    lines.push(
      `### ${experiment.name}`,
      '',
      '| variant | budget | seed | iterations | generated tokens | test success |',
      '|---|---:|---:|---:|---:|---:|',
    );
    const byVariant = {};
    for (const run of readdirSync(dir).sort()) {
      const match = /^(.*)-b(\d+)-s(\d+)$/.exec(run);
      const result = match && lastEval(join(dir, run));
      if (!result) continue;
      (byVariant[`${match[1]} b${match[2]}`] ??= []).push(result.success);
      lines.push(
        `| ${match[1]} | ${match[2]} | ${match[3]} | ${result.iterations} | ${result.tokens} | ${result.success.toFixed(3)} |`,
      );
    }
    lines.push('', '| variant | seeds | mean test success | std |', '|---|---:|---:|---:|');
    for (const [variant, values] of Object.entries(byVariant)) {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const std =
        values.length > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1)) : 0;
      lines.push(`| ${variant} | ${values.length} | ${mean.toFixed(3)} | ${std.toFixed(3)} |`);
    }
    lines.push('');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function main() {
  const root = join(ROOT, flag('root', 'runs/plan-act'));
  if (process.argv.includes('--summarize')) return summarize(root);
  const experiment = PLAN_ACT_EXPERIMENTS.find((candidate) => candidate.name === flag('experiment', 'wiki-plan-act'));
  if (!experiment) throw new Error(`Unknown experiment; known: ${PLAN_ACT_EXPERIMENTS.map((e) => e.name).join(', ')}`);
  const seeds = flag('seeds') ? flag('seeds').split(',').map(Number) : experiment.seeds;
  const budgets = flag('budget') ? [Number(flag('budget'))] : experiment.budgets;
  const only = flag('only');
  const overrides = Object.fromEntries(
    flags('set').map((assignment) => {
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
  for (const budget of budgets) {
    for (const seed of seeds) {
      for (const variant of Object.keys(VARIANTS)) {
        if (only && variant !== only) continue;
        const dir = relative(ROOT, join(root, experiment.name, `${variant}-b${budget}-s${seed}`));
        const args = command(experiment, variant, budget, seed, dir, overrides);
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
}

main();
