#!/usr/bin/env node
/**
 * The committed Plan/Act warm start (issue 26, item 4), from the repository root after `npx tsc -b
 * trainers/plan-act benchmarks/learning`:
 *
 *   node trainers/plan-act/scripts/warm-start.js --env turngym/wiki-qa-compact-v1 --seed 201 --out runs/warm/wiki-plan-act/sft
 *   node trainers/plan-act/scripts/warm-start.js --env turngym/wiki-qa-compact-v1 --seed 202   # stage 2, from stage 1
 *
 * Fine-tunes the experiment's base (benchmarks/learning/src/plan-act-experiments.ts) on the wiki expert's
 * train episodes and their Plan/Act decompositions, then copies the checkpoint to
 * benchmarks/learning/models/<experiment>-warm-start/, scores it greedily on the experiment's test seeds
 * (as Plan/Act, and as a single agent) and writes the manifest the warm-start test checks. With
 * `--score-epochs` it also prints the Plan/Act score after each epoch (the learning curve; the scoring time
 * is not counted in the stage's seconds).
 *
 * Flags: --env <id> (the experiment's env), --seed <n> (which stage of the experiment's `warmStart`; default its
 * first), --out <dir> (the fine-tuned checkpoint), --dir <dir> (where the stage's result is copied and scored,
 * and the earlier stages' manifest read; default the committed benchmarks/learning/models/<experiment>-warm-start),
 * --from <dir> (the checkpoint a later stage fine-tunes; default --dir), --score-epochs, --help (this text; runs
 * nothing).
 */
const { createHash } = require('node:crypto');
const { copyFileSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');

// Before anything is loaded: a bare call runs stage 1 and overwrites the committed warm start, so a call for
// the usage must never fall through to it.
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(require('../../../scripts/header-usage').headerUsage(__filename));
  process.exit(0);
}
const { join, relative } = require('node:path');
const { execSync } = require('node:child_process');
const { ChatTurnFormat, evaluatePolicy, installedEnvRegistry, testSplitOptions } = require('@turngym/rl');
const { PLAN_ACT_EXPERIMENTS } = require('../../../benchmarks/learning/dist/plan-act-experiments');
const { planActRoles, trainPlanActWarmStart } = require('../dist');

const ROOT = join(__dirname, '..', '..', '..');
const FILES = ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

async function score(model, experiment, registry, roles) {
  const seeds = Array.from({ length: experiment.rl.evalEpisodes }, (_, i) => i);
  const options = testSplitOptions(registry, experiment.envId, experiment.envOptions);
  const evaluation = await evaluatePolicy({
    policy: { model, format: new ChatTurnFormat(model.tokenizer), ...(roles ? { roles } : {}) },
    makeEnv: async () => registry.make(experiment.envId, { options }),
    envId: experiment.envId,
    seeds,
    options: {
      maxActionTokens: experiment.rl.maxActionTokens,
      maxRolloutTokens: experiment.rl.maxRolloutTokens,
      instructions: experiment.rl.instructions,
      maxBatch: experiment.rl.maxBatch,
      seed: 0,
    },
  });
  const wins = evaluation.trajectories.map((t) => (t.success ? '1' : '0')).join('');
  return {
    mode: 'greedy',
    tasks: seeds.length,
    episodes: seeds.length,
    successRate: evaluation.successRate,
    wins,
    settings: {
      backend: 'wasm',
      split: 'test',
      testSeeds: `0-${seeds.length - 1}`,
      instructions: experiment.rl.instructions,
      maxActionTokens: experiment.rl.maxActionTokens,
      maxRolloutTokens: experiment.rl.maxRolloutTokens,
      maxBatch: experiment.rl.maxBatch,
      roles: roles ? 'plan-act (planner and actor on the base, trainers/plan-act planActRoles)' : 'single agent',
      scoredBy: 'trainers/plan-act/scripts/warm-start.js (evaluatePolicy, greedy, as the trainers evaluate)',
    },
  };
}

async function main() {
  const envId = flag('env', 'turngym/wiki-qa-compact-v1');
  const experiment = PLAN_ACT_EXPERIMENTS.find((candidate) => candidate.envId === envId);
  if (!experiment) throw new Error(`No Plan/Act experiment on ${envId}.`);
  const seed = Number(flag('seed', String(experiment.warmStart[0].seed)));
  const index = experiment.warmStart.findIndex((candidate) => candidate.seed === seed);
  if (index < 0) throw new Error(`No warm-start stage with seed ${seed}.`);
  const stage = experiment.warmStart[index];
  // --dir: write (and read the earlier stages' manifest) elsewhere than the committed warm start, to try a stage
  // without touching it.
  const dir = join(ROOT, flag('dir', join('benchmarks', 'learning', 'models', `${experiment.name}-warm-start`)));
  // A later stage fine-tunes the previous stage's output (by default the committed warm start, which that
  // stage copied there) and keeps the earlier stages' records in the manifest.
  const from = index === 0 ? experiment.base : join(ROOT, flag('from', relative(ROOT, dir)));
  const earlier =
    index === 0 ? [] : JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).stages.slice(0, index);
  if (earlier.length !== index)
    throw new Error(`Stage ${index + 1} needs the manifest of the ${index} before it in ${dir}.`);
  const out = flag('out', `runs/warm/${experiment.name}/sft${index === 0 ? '' : `-${index + 1}`}`);
  const command = `node trainers/plan-act/scripts/warm-start.js --env ${envId} --seed ${seed} --out ${out}${
    index === 0 ? '' : ` --from ${relative(ROOT, from)}`
  }`;
  const registry = installedEnvRegistry();
  const started = Date.now();
  let scoringMs = 0;
  const result = await trainPlanActWarmStart(
    {
      envId,
      envOptions: experiment.envOptions,
      checkpoint: from,
      out,
      backend: 'wasm',
      instructions: experiment.rl.instructions,
      ...stage,
    },
    {
      registry,
      onEpoch: async (epoch, loss, model) => {
        process.stderr.write(
          `epoch ${epoch}: loss ${loss.toFixed(4)} at ${Math.round((Date.now() - started - scoringMs) / 1000)} s\n`,
        );
        // --score-epochs: the learning curve as Plan/Act (greedy, the same test seeds), printed only.
        if (process.argv.includes('--score-epochs')) {
          const scoring = Date.now();
          const scored = await score(model, experiment, registry, planActRoles(experiment.planAct));
          scoringMs += Date.now() - scoring;
          process.stderr.write(`epoch ${epoch}: plan-act greedy ${scored.successRate} (${scored.wins})\n`);
        }
      },
    },
  );
  const seconds = Math.round((Date.now() - started - scoringMs) / 1000);
  process.stderr.write(`trained in ${seconds} s: ${result.episodes} episodes, ${result.dropped} dropped\n`);
  mkdirSync(dir, { recursive: true });
  for (const file of FILES) copyFileSync(join(out, file), join(dir, file));
  const roles = planActRoles(experiment.planAct);
  const testScore = await score(result.model, experiment, registry, roles);
  process.stderr.write(`plan-act greedy: ${testScore.successRate}\n`);
  const singleAgent = await score(result.model, experiment, registry, undefined);
  process.stderr.write(`single-agent greedy: ${singleAgent.successRate}\n`);
  result.model.dispose();
  const files = Object.fromEntries(
    FILES.map((file) => [
      file,
      createHash('sha256')
        .update(readFileSync(join(dir, file)))
        .digest('hex'),
    ]),
  );
  const manifest = {
    schema: 'turngym.warm-start/v1',
    experiment: experiment.name,
    envId,
    envOptions: experiment.envOptions,
    base: relative(ROOT, experiment.base),
    commit: execSync('git rev-parse HEAD', { cwd: ROOT }).toString().trim(),
    date: new Date().toISOString().slice(0, 10),
    commands: [
      ...earlier.map((previous) => previous.command),
      command,
      `cp ${FILES.map((file) => `${out}/${file}`).join(' ')} ${relative(ROOT, dir)}/ (by the same script, which then scores it)`,
    ],
    stages: [...earlier, { command, seconds, finalLoss: result.finalLoss, actionAccuracy: result.actionAccuracy }],
    files,
    testScore,
    sampledScore: undefined,
    documented: {
      successRate: testScore.successRate,
      note: `Plan/Act greedy on the test split; the same checkpoint as a single agent (the GRPO baseline's start) scores ${singleAgent.successRate} (wins ${singleAgent.wins}).`,
    },
  };
  delete manifest.sampledScore;
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(
    `${JSON.stringify({ dir: relative(ROOT, dir), planAct: testScore.successRate, singleAgent: singleAgent.successRate })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
