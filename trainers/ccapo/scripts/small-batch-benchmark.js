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
 *
 * Wiki bridge questions (`--env wiki`; the math path above is the default and unchanged):
 *
 *   node trainers/ccapo/scripts/small-batch-benchmark.js --env wiki [--seeds 1,2,3] [--budget 100000]
 *     [--only ccapo|gigpo] [--set key=value …] [--root runs/ccapo-wiki] [--dry-run]
 *   node trainers/ccapo/scripts/small-batch-benchmark.js --env wiki --score [--test-tasks 200] [--root runs/ccapo-wiki]
 *   node trainers/ccapo/scripts/small-batch-benchmark.js --summarize [--test-tasks 200] [--root runs/ccapo-wiki]
 *     [--grpo-root runs/plan-act-wiki/wiki-plan-act]
 *
 * CCAPO and GiGPO run with exactly the settings of the Plan/Act benchmark's single-agent GRPO runs
 * (trainers/plan-act/scripts/plan-act-benchmark.js, experiment `wiki-plan-act` of
 * benchmarks/learning/src/plan-act-experiments.ts, run with `--set evalEvery=1000 --set evalEpisodes=50`):
 * env turngym/wiki-qa-compact-v1 {"questionTypes":["bridge"],"minHops":2,"maxHops":2,"articles":20000}, the
 * committed warm start benchmarks/learning/models/wiki-plan-act-warm-start, the experiment's `rl` arguments
 * (G = groupSize 8 rollouts for each of P = promptsPerIteration 8 tasks, so `--group` and `--tasks` are
 * refused), a 100k generated-token budget, evaluation at the end only on 50 test tasks. Only the algorithm and its own
 * options (their defaults) differ, so those GRPO runs are the GRPO baseline: this script runs no GRPO on wiki
 * (`--only grpo` is refused), and `--summarize` reads GRPO's runs `grpo-b<budget>-s<seed>` from `--grpo-root`.
 * Runs go to <root>/wiki-bridge-g8-p8/<algorithm>-t<budget>-s<seed> (resumed like the math runs). `--dry-run`
 * prints the commands and runs nothing. `--score` scores greedily, task by task, on test seeds
 * 0 … test-tasks − 1 (the plan-act script's `--tasks`; benchmarks/learning's test scores): the warm start
 * (<root>/wiki-bridge-g8-p8/start-eval-<n>.json) and each finished CCAPO/GiGPO run (<run>/final-eval-<n>.json,
 * the file name the plan-act script gives GRPO's, which `--summarize` reads from the GRPO runs: score those with
 * `plan-act-benchmark.js --score --tasks <n> --root runs/plan-act-wiki`; this script never writes there).
 */
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative, resolve } = require('node:path');

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

// Wiki bridge questions: the Plan/Act experiment's setting, whose single-agent GRPO runs are the baseline.
const PLAN_ACT_EXPERIMENTS = join(ROOT, 'benchmarks', 'learning', 'dist', 'plan-act-experiments.js');
const TRAIN_COMMAND = join(ROOT, 'benchmarks', 'learning', 'dist', 'train-command.js');
const WIKI_EXPERIMENT = 'wiki-plan-act';
const WIKI_WARM_START = 'benchmarks/learning/models/wiki-plan-act-warm-start';
/** The `--set`s the GRPO baseline ran with (runs/plan-act-wiki): one evaluation, at the end, on 50 test tasks. */
const WIKI_SETS = { evalEvery: 1000, evalEpisodes: 50 };
const WIKI_SETTING = 'wiki-bridge-g8-p8';
const WIKI_ALGORITHMS = ['ccapo', 'gigpo'];
const GRPO_RUN = /^grpo-b(\d+)-s(\d+)$/;

function wikiExperiment() {
  const experiment = require(PLAN_ACT_EXPERIMENTS).PLAN_ACT_EXPERIMENTS.find(
    (candidate) => candidate.name === WIKI_EXPERIMENT,
  );
  if (!experiment) throw new Error(`benchmarks/learning has no experiment ${WIKI_EXPERIMENT}`);
  return experiment;
}

/**
 * The wiki command, built by the same builder as plan-act-benchmark.js's GRPO one (benchmarks/learning's
 * train-command: the experiment's `rl`, the budget, the `--set`s, in that order), so the two differ in the
 * algorithm alone.
 */
function wikiCommand(algorithm, budget, seed, dir, extra) {
  const experiment = wikiExperiment();
  return require(TRAIN_COMMAND).trainCommand({
    cli: CLI,
    algorithm,
    envId: experiment.envId,
    envOptions: experiment.envOptions,
    checkpoint: WIKI_WARM_START,
    runDir: dir,
    seed,
    args: { ...experiment.rl, tokenBudget: budget, ...WIKI_SETS, ...extra },
  });
}

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

/** The wiki runs' test scores on test seeds 0 … tasks − 1 (the GRPO baseline's are the plan-act script's). */
async function scoreWiki(root, tasks, grpoRoot) {
  const { cachedScore } = require(SCORES);
  const experiment = wikiExperiment();
  // cachedScore scores `rl.evalEpisodes` test tasks at the experiment's rollout caps.
  const scored = {
    envId: experiment.envId,
    envOptions: experiment.envOptions,
    rl: { ...experiment.rl, evalEpisodes: tasks },
  };
  const warm = join(ROOT, WIKI_WARM_START);
  const dir = join(root, WIKI_SETTING);
  mkdirSync(dir, { recursive: true });
  const start = await cachedScore(join(dir, `start-eval-${tasks}.json`), scored, warm);
  process.stderr.write(`warm start: ${start.successRate}\n`);
  // The plan-act script scores the same start as a single agent: the GRPO runs' gains and losses are counted
  // against this script's start, so the two must be the same episodes.
  const theirs = readJson(join(grpoRoot, `start-eval-single-${tasks}.json`));
  if (theirs && theirs.wins !== start.wins)
    process.stderr.write(`the GRPO root's start-eval-single-${tasks}.json differs\n`);
  for (const [, run, runDir, last] of finishedRuns(root).filter(([setting]) => setting === WIKI_SETTING)) {
    const final = await cachedScore(join(runDir, `final-eval-${tasks}.json`), scored, warm, {
      adapter: join(runDir, 'checkpoint', 'adapter'),
      tag: `iteration ${last.iteration}`,
    });
    // Test seeds 0 … evalEpisodes − 1 are the run's own last evaluation's greedy episodes.
    const { evalEpisodes } = readJson(join(runDir, 'run.json')).args;
    const own = [...final.wins.slice(0, evalEpisodes)].filter((win) => win === '1').length / evalEpisodes;
    const agrees = tasks < evalEpisodes || Math.abs(own - last['eval/success_rate']) < 1e-9;
    process.stderr.write(
      `${run}: ${final.successRate}${agrees ? '' : ` (its first ${evalEpisodes}: ${own}; the run's own: ${last['eval/success_rate']})`}\n`,
    );
  }
  for (const run of existsSync(grpoRoot) ? readdirSync(grpoRoot).filter((name) => GRPO_RUN.test(name)) : []) {
    if (!existsSync(join(grpoRoot, run, `final-eval-${tasks}.json`))) {
      process.stderr.write(
        `${run}: not scored (plan-act-benchmark.js --score --tasks ${tasks} --root ${relative(ROOT, join(grpoRoot, '..'))})\n`,
      );
    }
  }
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

/** A setting's runs: [algorithm, budget, seed, directory]; a wiki setting's GRPO runs are the plan-act script's. */
function settingRuns(root, setting, grpoRoot) {
  const runs = [];
  for (const run of readdirSync(join(root, setting)).sort()) {
    const match = RUN_NAME.exec(run);
    if (match) runs.push([match[1], Number(match[2]), Number(match[3]), join(root, setting, run)]);
  }
  if (setting === WIKI_SETTING && existsSync(grpoRoot)) {
    for (const run of readdirSync(grpoRoot).sort()) {
      const match = GRPO_RUN.exec(run);
      if (match) runs.push(['grpo', Number(match[1]), Number(match[2]), join(grpoRoot, run)]);
    }
  }
  return runs;
}

function summarize(root, tasks, grpoRoot) {
  const lines = [];
  for (const setting of settings(root)) {
    const wiki = setting === WIKI_SETTING;
    // Math: the start and the final policies scored on the experiment's 200 test tasks; wiki: on `tasks`.
    const start = readJson(wiki ? join(root, setting, `start-eval-${tasks}.json`) : join(root, 'start-eval.json'));
    const finalFile = wiki ? `final-eval-${tasks}.json` : 'final-eval.json';
    const runs = [];
    for (const [algorithm, budget, seed, dir] of settingRuns(root, setting, grpoRoot)) {
      const metrics = rows(dir);
      const last = metrics.filter((row) => Number.isFinite(row['eval/success_rate'])).at(-1);
      if (!last) continue;
      const average = (name) => {
        const values = metrics.map((row) => row[name]).filter(Number.isFinite);
        return values.length > 0 ? mean(values) : undefined;
      };
      const final = readJson(join(dir, finalFile));
      runs.push({
        algorithm,
        budget,
        seed,
        success: last['eval/success_rate'],
        scored: final?.successRate,
        iterations: metrics.length,
        tokens: metrics.at(-1).global_step,
        singletons: average('gigpo/singleton_group_share'),
        anchorHits: average('stdb/anchor_hit_rate'),
        edgeHits: average('stdb/edge_hit_rate'),
        lastAnchorHits: metrics.at(-1)['stdb/anchor_hit_rate'],
        trained: metrics.filter((row) => Number.isFinite(row['losses/policy_loss'])).length,
        flips: flips(start, final),
      });
    }
    if (runs.length === 0) continue;
    // Wiki: the trainers evaluate on 50 test tasks, `--score` on `tasks`; both are shown.
    const scoredHead = wiki ? ` test success, tasks 0–${tasks - 1} |` : '';
    const scoredRule = wiki ? '---:|' : '';
    const scoredCell = (run) => (wiki ? ` ${run.scored === undefined ? '—' : run.scored.toFixed(3)} |` : '');
    lines.push(`### ${setting}`, '');
    if (wiki) {
      lines.push(
        `GRPO: the Plan/Act benchmark's single-agent runs in ${relative(ROOT, grpoRoot)}; test success: the trainer's own last evaluation (its evalEpisodes test tasks, 50 in the baseline).`,
        '',
      );
    }
    lines.push(
      `| run | test success |${scoredHead} test tasks gained / lost vs the warm start | iterations (with an update) | generated tokens | GiGPO singleton step groups (mean) | CCAPO STDB anchor / edge hit rate (mean; last) |`,
      `|---|---:|${scoredRule}---:|---:|---:|---:|---:|`,
      ...runs.map(
        (run) =>
          `| ${run.algorithm} t${run.budget} s${run.seed} | ${run.success.toFixed(3)} |${scoredCell(run)} ${run.flips ? `${run.flips.gained} / ${run.flips.lost}` : ''} | ${run.iterations} (${run.trained}) | ${run.tokens} | ${run.singletons === undefined ? '' : run.singletons.toFixed(3)} | ${run.anchorHits === undefined ? '' : `${run.anchorHits.toFixed(3)} / ${run.edgeHits.toFixed(3)}; ${run.lastAnchorHits.toFixed(3)}`} |`,
      ),
      '',
      `| algorithm | budget | test success |${scoredHead} test tasks gained / lost (sum over seeds) | GiGPO singleton share | CCAPO anchor hit rate |`,
      `|---|---:|---:|${scoredRule}---:|---:|---:|`,
    );
    const keys = [...new Set(runs.map((run) => `${run.algorithm} ${run.budget}`))];
    for (const key of keys) {
      const group = runs.filter((run) => `${run.algorithm} ${run.budget}` === key);
      const [algorithm, budget] = key.split(' ');
      const defined = (name) => group.map((run) => run[name]).filter((value) => value !== undefined);
      const scored = group.filter((run) => run.flips);
      lines.push(
        `| ${algorithm} | ${budget} | ${shown(group.map((run) => run.success))} |${wiki ? ` ${shown(defined('scored'))} |` : ''} ${scored.length === 0 ? '' : `${scored.reduce((sum, run) => sum + run.flips.gained, 0)} / ${scored.reduce((sum, run) => sum + run.flips.lost, 0)} (n=${scored.length})`} | ${algorithm === 'gigpo' ? shown(defined('singletons')) : ''} | ${algorithm === 'ccapo' ? shown(defined('anchorHits')) : ''} |`,
      );
    }
    lines.push('');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Prints a command as the log shows it (quoted where the shell would need it). */
function printed(args) {
  return `$ node ${relative(ROOT, args[0])} ${args
    .slice(1)
    .map((arg) => (/[\s{"]/.test(arg) ? `'${arg}'` : arg))
    .join(' ')}`;
}

/** A mistake in the command line: said in one line, with no stack trace. */
class UsageError extends Error {}

function main() {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    // The usage is this file's header comment; a bare call would start (or resume) the default runs.
    process.stdout.write(require('../../../scripts/header-usage').headerUsage(__filename));
    return;
  }
  const env = flag('env', 'math');
  if (!['math', 'wiki'].includes(env)) throw new UsageError(`--env must be math or wiki; got ${env}`);
  const wiki = env === 'wiki';
  const root = resolve(ROOT, flag('root', wiki ? 'runs/ccapo-wiki' : 'runs/ccapo-bench'));
  const testTasks = Number(flag('test-tasks', '200'));
  if (!Number.isInteger(testTasks) || testTasks < 1)
    throw new UsageError(`--test-tasks must be an integer >= 1; got ${testTasks}`);
  const grpoRoot = resolve(ROOT, flag('grpo-root', 'runs/plan-act-wiki/wiki-plan-act'));
  if (process.argv.includes('--summarize')) return summarize(root, testTasks, grpoRoot);
  if (process.argv.includes('--score')) {
    return (wiki ? scoreWiki(root, testTasks, grpoRoot) : score(root)).catch((error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exitCode = 1;
    });
  }
  if (wiki && (flag('group') !== undefined || flag('tasks') !== undefined)) {
    throw new UsageError("--group and --tasks are the wiki GRPO baseline's (G = 8, P = 8) with --env wiki");
  }
  const group = Number(flag('group', '8'));
  const tasks = Number(flag('tasks', '2'));
  if (!Number.isInteger(group) || group < 2 || !Number.isInteger(tasks) || tasks < 1) {
    throw new UsageError(`--group must be an integer >= 2 and --tasks one >= 1; got ${group} and ${tasks}`);
  }
  // Checked before anything runs: `--budget 50k` was NaN, which went to the trainer as tokenBudget=null and
  // each run ended at once after 0 iterations, reported "done" in a directory named t<NaN>.
  const seedsText = flag('seeds', '1,2,3');
  const seeds = String(seedsText)
    .split(',')
    .map((seed) => (seed.trim() === '' ? Number.NaN : Number(seed)));
  if (seeds.some((seed) => !Number.isInteger(seed) || seed < 0)) {
    throw new UsageError(`--seeds must be integers >= 0 separated by commas; got ${seedsText}`);
  }
  const budgetText = flag('budget', wiki ? '100000' : '50000');
  const budget = Number(budgetText);
  if (!Number.isInteger(budget) || budget < 1) {
    throw new UsageError(`--budget must be an integer >= 1 (generated tokens); got ${budgetText}`);
  }
  const only = flag('only');
  const algorithms = wiki ? WIKI_ALGORITHMS : ALGORITHMS;
  if (only && !algorithms.includes(only)) {
    throw new UsageError(
      wiki
        ? `--only must be ccapo or gigpo with --env wiki (GRPO's runs are plan-act-benchmark.js's); got ${only}`
        : `--only must be one of ${ALGORITHMS.join(', ')}; got ${only}`,
    );
  }
  const extra = overrides();
  for (const seed of seeds) {
    for (const algorithm of algorithms) {
      if (only && algorithm !== only) continue;
      const setting = wiki ? WIKI_SETTING : `math-g${group}-p${tasks}`;
      const dir = relative(ROOT, join(root, setting, `${algorithm}-t${budget}-s${seed}`));
      const args = wiki
        ? wikiCommand(algorithm, budget, seed, dir, extra)
        : command(algorithm, group, tasks, budget, seed, dir, extra);
      process.stderr.write(`${printed(args)}\n`);
      if (process.argv.includes('--dry-run')) continue;
      const started = Date.now();
      const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      process.stderr.write(
        `  ${result.status === 0 ? 'done' : `exit ${result.status}`} in ${Math.round((Date.now() - started) / 1000)} s: ${String(result.stdout).trim()}\n`,
      );
    }
  }
}

try {
  main();
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`error: ${error.message} (--help for the usage)\n`);
  process.exitCode = 2;
}
