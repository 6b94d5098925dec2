#!/usr/bin/env node
/**
 * Issue 26 item 5: Plan/Act (shared parameters, an adapter per role) against single-agent GRPO from the same
 * warm start, at equal generated-token budgets, on several seeds. From the repository root after
 * `npx tsc -b packages/cli benchmarks/learning trainers/plan-act`:
 *
 *   node trainers/plan-act/scripts/plan-act-benchmark.js [--experiment wiki-plan-act] [--seeds 1,2,3]
 *     [--budget 100000] [--only grpo|plan-act-shared|plan-act-independent] [--set key=value …] [--root runs/plan-act]
 *     [--checkpoint <dir>: default the committed warm start]
 *   node trainers/plan-act/scripts/plan-act-benchmark.js --score [--experiment …] [--tasks 200] [--root …]
 *     [--checkpoint <dir>]
 *   node trainers/plan-act/scripts/plan-act-benchmark.js --summarize [--tasks 200] [--root runs/plan-act] [--json <file>]
 *   node trainers/plan-act/scripts/plan-act-benchmark.js --help    (this text; runs nothing)
 *
 * Each run is one `turngym train` command (printed before it runs) in <root>/<experiment>/<variant>-b<budget>-s<seed>;
 * a run directory that exists is resumed by the trainer (a finished run returns at once; tokenBudget may grow
 * on resume, so a copy of a finished run's directory under a larger budget's name extends it). Beside each
 * run's metrics the script writes bench.json: the run's wall time and the load average sampled every 30 s
 * while it ran (the cores are shared).
 * `--score` scores greedily, task by task, on test seeds 0 … tasks − 1 (the trainers' own evaluation, at the
 * experiment's rollout caps): the warm start once as Plan/Act and once as a single agent (each variant's
 * iteration 0: a run's adapters start with B = 0; kept in <root>/<experiment>/start-eval-<plan-act|single>-<tasks>.json)
 * and each finished run's final policy, its checkpoint's adapters on the warm start (<run>/final-eval-<tasks>.json;
 * a score older than the run's checkpoint is redone). The trainers' metrics keep a success rate only; these
 * scores give the test tasks each run gained and lost against its start.
 * `--summarize` prints the markdown tables for docs/benchmarks/learning.md: per run its iterations, generated
 * tokens, the trainer's own last evaluation, the `--score` test success with tasks gained / lost against the
 * start, the mean cache hit rate, wall time and load; per variant the mean ± std over seeds, the gained / lost
 * sums and their exact two-sided sign test; `--json` also writes those figures and each policy's task-by-task wins.
 */
if (process.argv.includes('--help')) {
  process.stdout.write(require('../../../scripts/header-usage').headerUsage(__filename));
  process.exit(0);
}
const { spawn } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { loadavg } = require('node:os');
const { join, relative, resolve } = require('node:path');
const { PLAN_ACT_EXPERIMENTS } = require('../../../benchmarks/learning/dist/plan-act-experiments');
// The learning table's exact sign test (unit-tested there), so both tables read the same p.
const { signTestP } = require('../../../benchmarks/learning/dist/test-scores');
// One command builder for every learning-benchmark run, so runs that share a baseline differ in the algorithm alone.
const { trainCommand } = require('../../../benchmarks/learning/dist/train-command');

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'packages', 'cli', 'dist', 'bin.js');
const VARIANTS = {
  grpo: { algorithm: 'grpo', set: {} },
  'plan-act-shared': { algorithm: 'plan-act', set: { policies: 'shared' } },
  'plan-act-independent': { algorithm: 'plan-act', set: { policies: 'independent' } },
};
const RUN_NAME = /^(grpo|plan-act-shared|plan-act-independent)-b(\d+)-s(\d+)$/;
/** Seconds between load-average samples while a run trains. */
const LOAD_EVERY_S = 30;

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

/** A command-line mistake: one line naming the flag and exit 2, before any run is started. */
function usageError(message) {
  process.stderr.write(`error: ${message} (--help for the usage)\n`);
  process.exit(2);
}

/** A whole-number flag: `--budget 50k` became NaN, and each run trained with no budget under a `bNaN` name. */
function integerFlag(name, fallback) {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) usageError(`--${name} must be a whole number (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

/** `--seeds 1,2,3`: whole numbers only (`1,x` trained a seed NaN, an empty value seed 0). */
function seedsFlag(fallback) {
  const raw = flag('seeds');
  if (raw === undefined) return fallback;
  const seeds = raw.split(',');
  if (seeds.some((seed) => !/^\d+$/.test(seed.trim())))
    usageError(`--seeds must be whole numbers separated by commas (got ${JSON.stringify(raw)})`);
  return seeds.map(Number);
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
  return trainCommand({
    cli: CLI,
    algorithm,
    envId: experiment.envId,
    envOptions: experiment.envOptions,
    checkpoint: relative(ROOT, warmStart(experiment)),
    runDir: dir,
    seed,
    args: { ...experiment.rl, ...own, tokenBudget: budget, ...overrides },
  });
}

function readRows(dir) {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

function readJson(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const std = (values) =>
  values.length > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean(values)) ** 2, 0) / (values.length - 1)) : 0;

/** One run's figures from its metrics, its bench.json and its final score (`undefined` before its first evaluation). */
function runFigures(dir, tasks, starts) {
  const rows = readRows(dir);
  const evaluated = rows.filter((row) => Number.isFinite(row['eval/success_rate']));
  if (evaluated.length === 0) return undefined;
  const bench = readJson(join(dir, 'bench.json'));
  const final = readJson(join(dir, `final-eval-${tasks}.json`));
  const hits = rows.map((row) => row['cache/hit_rate']).filter(Number.isFinite);
  const figures = {
    iterations: rows.length,
    updates: rows.filter((row) => Number.isFinite(row['losses/policy_loss'])).length,
    tokens: rows.at(-1).global_step,
    trainerEval: evaluated.at(-1)['eval/success_rate'],
    trainSuccess: mean(rows.map((row) => row['charts/success_rate'])),
    hitRate: hits.length > 0 ? mean(hits) : undefined,
    wall: bench?.wallSeconds,
    load: bench?.load?.length ? mean(bench.load) : undefined,
  };
  if (final) {
    const start = starts[final.roles];
    figures.success = final.successRate;
    figures.wins = final.wins;
    if (start) Object.assign(figures, gainedAndLost(start.wins, final.wins), { start: start.successRate });
  }
  return figures;
}

function gainedAndLost(start, end) {
  let gained = 0;
  let lost = 0;
  for (let task = 0; task < Math.min(start.length, end.length); task++) {
    if (start[task] === '0' && end[task] === '1') gained++;
    if (start[task] === '1' && end[task] === '0') lost++;
  }
  return { gained, lost };
}

const fixed = (value, digits = 3) => (value === undefined ? '—' : value.toFixed(digits));

function summarize(root, tasks) {
  const lines = [];
  const results = {};
  for (const experiment of PLAN_ACT_EXPERIMENTS) {
    const dir = join(root, experiment.name);
    if (!existsSync(dir)) continue;
    const starts = {
      'plan-act': readJson(join(dir, `start-eval-plan-act-${tasks}.json`)),
      single: readJson(join(dir, `start-eval-single-${tasks}.json`)),
    };
    lines.push(`### ${experiment.name}`, '');
    const runs = {};
    results[experiment.name] = { tasks, starts, runs };
    for (const [roles, start] of Object.entries(starts)) {
      if (start) lines.push(`- warm start as ${roles}: ${start.successRate.toFixed(3)} on test tasks 0–${tasks - 1}`);
    }
    lines.push(
      '',
      `| variant | budget | seed | iterations (with an update) | generated tokens | test success, tasks 0–${tasks - 1} | gained / lost vs the start | trainer's eval (its evalEpisodes) | sampled training success | cache hit rate | wall (s) | load |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    const byVariant = {};
    for (const run of readdirSync(dir).sort()) {
      const match = RUN_NAME.exec(run);
      const figures = match && runFigures(join(dir, run), tasks, starts);
      if (!figures) continue;
      (byVariant[`${match[1]} | ${match[2]}`] ??= []).push(figures);
      runs[run] = figures;
      lines.push(
        `| ${match[1]} | ${match[2]} | ${match[3]} | ${figures.iterations} (${figures.updates}) | ${figures.tokens} | ${fixed(figures.success)} | ${figures.gained ?? '—'} / ${figures.lost ?? '—'} | ${fixed(figures.trainerEval)} | ${fixed(figures.trainSuccess)} | ${fixed(figures.hitRate, 2)} | ${fixed(figures.wall, 0)} | ${fixed(figures.load, 1)} |`,
      );
    }
    lines.push(
      '',
      `| variant | budget | seeds | test success, mean ± std | gained / lost (sum over seeds) | sign test p | iterations | generated tokens | cache hit rate | wall (s) | load |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const [variant, runs] of Object.entries(byVariant)) {
      const of = (key) => runs.map((run) => run[key]).filter((value) => value !== undefined);
      const success = of('success');
      const sum = (key) => (of(key).length ? of(key).reduce((a, b) => a + b, 0) : '—');
      const avg = (key, digits) => (of(key).length ? mean(of(key)).toFixed(digits) : '—');
      // The mean is over the scored runs only, so the seeds column says how many those are while some are owed.
      const seeds = success.length === runs.length ? `${runs.length}` : `${success.length} of ${runs.length} scored`;
      const p = of('gained').length ? signTestP(sum('gained'), sum('lost')) : undefined;
      lines.push(
        `| ${variant} | ${seeds} | ${success.length ? `${mean(success).toFixed(3)} ± ${std(success).toFixed(3)}` : '—'} | ${sum('gained')} / ${sum('lost')} | ${p === undefined ? '—' : p < 0.01 ? p.toPrecision(1) : p.toFixed(2)} | ${avg('iterations', 1)} | ${avg('tokens', 0)} | ${avg('hitRate', 2)} | ${avg('wall', 0)} | ${avg('load', 1)} |`,
      );
    }
    lines.push('');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  // --json: the same figures with each policy's task-by-task wins, small enough to commit beside the doc.
  if (flag('json')) writeFileSync(resolve(ROOT, flag('json')), `${JSON.stringify(results, null, 2)}\n`);
}

/** Greedy, task by task, as the trainers evaluate: the warm start with a run's adapters (none: iteration 0). */
async function scorePolicy(experiment, { roles, adapters, seed }, tasks) {
  const { loadAdapter, loadModel } = require('@turngym/lm');
  const { ChatTurnFormat, evaluatePolicy, installedEnvRegistry, testSplitOptions } = require('@turngym/rl');
  const { planActRoles } = require('../dist');
  const registry = installedEnvRegistry();
  const options = testSplitOptions(registry, experiment.envId, experiment.envOptions);
  const model = await loadModel(warmStart(experiment), { backend: 'wasm' });
  try {
    for (const [name, dir] of Object.entries(adapters)) loadAdapter(model, dir, name);
    const caps = experiment.planAct;
    const policy = {
      model,
      format: new ChatTurnFormat(model.tokenizer),
      ...(roles === 'plan-act' ? { roles: planActRoles(caps, adapters.planner ? { planner: 'planner' } : {}) } : {}),
    };
    const started = Date.now();
    const evaluation = await evaluatePolicy({
      policy,
      makeEnv: async () => registry.make(experiment.envId, { options }),
      envId: experiment.envId,
      seeds: Array.from({ length: tasks }, (_, task) => task),
      options: {
        maxActionTokens: experiment.rl.maxActionTokens,
        maxRolloutTokens: experiment.rl.maxRolloutTokens,
        instructions: experiment.rl.instructions,
        maxBatch: experiment.rl.maxBatch,
        ...(adapters.policy ? { adapter: 'policy' } : {}),
        seed,
      },
    });
    return {
      roles,
      adapters: Object.fromEntries(Object.entries(adapters).map(([name, dir]) => [name, relative(ROOT, dir)])),
      tasks,
      successRate: evaluation.successRate,
      meanReturn: evaluation.meanReturn,
      wins: evaluation.trajectories.map((trajectory) => (trajectory.success ? '1' : '0')).join(''),
      seconds: Math.round((Date.now() - started) / 1000),
      load: loadavg()[0],
      scoredBy: 'trainers/plan-act/scripts/plan-act-benchmark.js --score (evaluatePolicy, greedy, test split)',
    };
  } finally {
    model.dispose();
  }
}

async function score(root, experiment, tasks) {
  const dir = join(root, experiment.name);
  for (const roles of ['plan-act', 'single']) {
    const file = join(dir, `start-eval-${roles}-${tasks}.json`);
    if (existsSync(file)) continue;
    const result = await scorePolicy(experiment, { roles, adapters: {}, seed: 0 }, tasks);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stderr.write(`start as ${roles}: ${result.successRate} (${result.seconds} s)\n`);
  }
  for (const run of existsSync(dir) ? readdirSync(dir).sort() : []) {
    const match = RUN_NAME.exec(run);
    const checkpoint = join(dir, run, 'checkpoint');
    const manifest = match && readJson(join(checkpoint, 'checkpoint.json'));
    // Only a finished run: its last metrics row holds the trainer's closing evaluation.
    if (!manifest || !Number.isFinite(readRows(join(dir, run)).at(-1)?.['eval/success_rate'])) continue;
    const file = join(dir, run, `final-eval-${tasks}.json`);
    if (existsSync(file) && statSync(file).mtimeMs > statSync(join(checkpoint, 'checkpoint.json')).mtimeMs) continue;
    const adapters = { policy: join(checkpoint, 'adapter') };
    if (manifest.trainers?.planner) adapters.planner = join(checkpoint, 'trainers', 'planner', 'adapter');
    const roles = match[1] === 'grpo' ? 'single' : 'plan-act';
    const result = await scorePolicy(experiment, { roles, adapters, seed: Number(match[3]) }, tasks);
    writeFileSync(file, `${JSON.stringify({ ...result, iteration: manifest.iteration }, null, 2)}\n`);
    process.stderr.write(`${run}: ${result.successRate} (${result.seconds} s)\n`);
  }
}

/** Runs one `turngym train` command, sampling the load average while it runs; resolves with its exit status. */
function train(args, dir) {
  return new Promise((settle) => {
    const started = Date.now();
    const load = [loadavg()[0]];
    const timer = setInterval(() => load.push(loadavg()[0]), LOAD_EVERY_S * 1000);
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('close', (status) => {
      clearInterval(timer);
      const wallSeconds = Math.round((Date.now() - started) / 1000);
      // A resumed run adds its time to the earlier attempts' (bench.json keeps each attempt).
      const benchFile = join(ROOT, dir, 'bench.json');
      const earlier = readJson(benchFile) ?? { wallSeconds: 0, load: [], attempts: [] };
      if (existsSync(join(ROOT, dir))) {
        writeFileSync(
          benchFile,
          `${JSON.stringify(
            {
              wallSeconds: earlier.wallSeconds + wallSeconds,
              load: [...earlier.load, ...load],
              attempts: [...earlier.attempts, { status, wallSeconds, loadEveryS: LOAD_EVERY_S }],
            },
            null,
            2,
          )}\n`,
        );
      }
      settle({ status, stdout, wallSeconds });
    });
  });
}

async function main() {
  const root = resolve(ROOT, flag('root', 'runs/plan-act'));
  const tasks = integerFlag('tasks', 200);
  if (process.argv.includes('--summarize')) return summarize(root, tasks);
  const experiment = PLAN_ACT_EXPERIMENTS.find((candidate) => candidate.name === flag('experiment', 'wiki-plan-act'));
  if (!experiment) throw new Error(`Unknown experiment; known: ${PLAN_ACT_EXPERIMENTS.map((e) => e.name).join(', ')}`);
  if (process.argv.includes('--score')) return score(root, experiment, tasks);
  const seeds = seedsFlag(experiment.seeds);
  const budget = integerFlag('budget', undefined);
  const budgets = budget === undefined ? experiment.budgets : [budget];
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
        const result = await train(args, dir);
        process.stderr.write(
          `  ${result.status === 0 ? 'done' : `exit ${result.status}`} in ${result.wallSeconds} s: ${result.stdout.trim()}\n`,
        );
      }
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
