#!/usr/bin/env node
// AlphaZero on turngym/seller-commander-v1 (simulated roles): the learning stages and the test-split results
// of trainers/alphazero/README.md and docs/benchmarks/learning.md. Build first: `npx tsc -b trainers/alphazero`.
//
//   node trainers/alphazero/scripts/seller-benchmark.js train --stage one-product|train-split --seed 1
//     [--simulations 50] [--iterations 40] [--episodes 32] [--eval-episodes 41] [--objective alphazero|mcts-dpo]
//     [--run-dir runs/alphazero/<stage>-s<seed>] [--args '{"updatesPerIteration":128}' (any other trainer argument)]
//   node trainers/alphazero/scripts/seller-benchmark.js grpo --seed 1 [--iterations 40] [--groups 4] [--group-size 8]
//     [--run-dir runs/alphazero/grpo-commander-<episodes>-s<seed>] [--args '{"learningRate":0.001}']
//     [--warm-start expert] (behaviour cloning of the seller's scripted expert on the train split first)
//     (the GRPO commander: AlphaZero's network with no search; 40 × 4 × 8 = AlphaZero's 1,280 self-play episodes)
//   node trainers/alphazero/scripts/seller-benchmark.js evaluate --runs dir1,dir2,dir3 [--simulations 50]
//     [--grpo-runs dirA,dirB,dirC] [--label name] [--episodes 164] [--baselines true] [--write file.md]
'use strict';
const { writeFileSync } = require('node:fs');
const { cpus } = require('node:os');
const { RandomAgent, runEpisode, summarize, wilsonInterval95 } = require('@turngym/core');
const { SellerEnv, SellerExpert, MctsAgent } = require('@turngym/env-seller');
const { useBackend } = require('@turngym/lm');
const {
  trainAlphaZero,
  loadTrainedNetwork,
  AlphaZeroSearch,
  AlphaZeroMctsAgent,
  PolicyHeadAgent,
  TranscriptRecorder,
  trainGrpoCommander,
  loadGrpoCommander,
  spreadTaskIds,
} = require('../dist/index.js');

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

const percent = (value) => `${(100 * value).toFixed(1)}%`;
const std = (values) => {
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / Math.max(values.length - 1, 1));
};

/** The train tasks of the product with the most personas in the train split. */
function oneProductTasks() {
  const env = new SellerEnv({ split: 'train' });
  const byProduct = new Map();
  env.tasks.forEach((task, id) => byProduct.set(task.product.id, [...(byProduct.get(task.product.id) ?? []), id]));
  const [product, ids] = [...byProduct].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))[0];
  return { product, ids };
}

async function train() {
  const stage = flag('stage', 'train-split');
  const seed = Number(flag('seed', 1));
  const simulations = Number(flag('simulations', 50));
  const objective = flag('objective', 'alphazero');
  const runDir = flag(
    'run-dir',
    `runs/alphazero/${stage}${objective === 'alphazero' ? '' : `-${objective}`}-n${simulations}-s${seed}`,
  );
  const evalEpisodes = Number(flag('eval-episodes', 41));
  const args = {
    envId: 'turngym/seller-commander-v1',
    runDir,
    seed,
    simulations,
    objective,
    iterations: Number(flag('iterations', 40)),
    episodesPerIteration: Number(flag('episodes', 32)),
    evalEvery: Number(flag('eval-every', 10)),
    evalEpisodes,
    ...JSON.parse(flag('args', '{}')),
  };
  if (stage === 'one-product') {
    const { product, ids } = oneProductTasks();
    process.stderr.write(`one product: ${product}, ${ids.length} personas (train tasks ${ids.join(',')})\n`);
    // Evaluated on the same persona × product tasks with other buyer noise (seed 100000 + task id).
    Object.assign(args, {
      trainTasks: ids,
      testEnvOptions: { split: 'train' },
      evalTasks: ids,
      evalEpisodes: ids.length,
    });
  } else {
    // Spread over the test split: 41 of 164 is every 4th task, over the products; 164 is every task once.
    args.evalTasks = spreadTaskIds(evalEpisodes, 164);
  }
  const started = Date.now();
  const rows = [];
  const result = await trainAlphaZero(args, { onIteration: (row) => rows.push(row) });
  result.net.dispose();
  const evals = rows.filter((row) => row['eval/success_rate'] !== undefined);
  process.stdout.write(
    [
      `stage ${stage}, seed ${seed}, ${simulations} simulations, ${objective}: ${Math.round((Date.now() - started) / 1000)} s`,
      '| iteration | self-play success | policy head | AlphaZero MCTS |',
      '|---:|---:|---:|---:|',
      ...evals.map(
        (row) =>
          `| ${row.iteration + 1} | ${percent(row['charts/success_rate'])} | ${percent(row['eval/success_rate'])} | ${percent(row['eval/mcts_success_rate'])} |`,
      ),
      '',
    ].join('\n'),
  );
}

/**
 * Behaviour cloning of the seller's scripted expert (the GRPO commander's optional warm start): its moves on every
 * train task (seed 100000 + task id), cross-entropy to the expert's move, `steps` Adam steps of 64 states.
 */
function expertWarmStart(seed, steps) {
  return async (net, encoder) => {
    const { SeededRng } = require('@turngym/core');
    const trainEnv = new SellerEnv({ split: 'train' });
    const train = new TranscriptRecorder(trainEnv);
    const samples = [];
    const expert = new SellerExpert();
    for (let taskId = 0; taskId < trainEnv.tasks.length; taskId++) {
      const cloning = {
        name: 'cloning',
        start: (episode) => expert.start(episode),
        async act(observation, info) {
          const action = await expert.act(observation, info);
          const legal = encoder.legal(info);
          const policy = legal.map((_, index) => (index === action ? 1 : 0));
          samples.push({ features: encoder.encode(train.transcript, info), legal, policy });
          return action;
        },
      };
      const outcome = await runEpisode(train, cloning, 100_000 + taskId, { taskId });
      for (let i = samples.length - outcome.turns; i < samples.length; i++) samples[i].return = outcome.totalReward;
    }
    const rng = new SeededRng(seed);
    for (let step = 0; step < steps; step++) {
      const batch = Array.from({ length: 64 }, () => samples[rng.int(0, samples.length - 1)]);
      net.train(
        {
          features: batch.map((sample) => sample.features),
          legal: batch.map((sample) => sample.legal),
          policy: batch.map((sample) => sample.policy),
          returns: batch.map((sample) => sample.return),
        },
        0,
      );
    }
    const { PolicyHeadAgent: Head } = require('../dist/index.js');
    const check = await play(
      new TranscriptRecorder(new SellerEnv({ split: 'test' })),
      () => new Head(net, encoder),
      [...Array(41).keys()].map((i) => (i * 4) % 164),
    );
    process.stderr.write(
      `warm start: ${samples.length} expert moves on ${trainEnv.tasks.length} train tasks, ${steps} steps; greedy ` +
        `${percent(check.filter((o) => o.success).length / check.length)} on the 41 evaluation tasks\n`,
    );
  };
}

async function grpo() {
  const seed = Number(flag('seed', 1));
  const iterations = Number(flag('iterations', 40));
  const groups = Number(flag('groups', 4));
  const groupSize = Number(flag('group-size', 8));
  const episodes = iterations * groups * groupSize;
  const warm = flag('warm-start');
  const runDir = flag('run-dir', `runs/alphazero/grpo-commander${warm ? `-${warm}` : ''}-e${episodes}-s${seed}`);
  const evalEpisodes = Number(flag('eval-episodes', 41));
  const started = Date.now();
  const rows = [];
  const result = await trainGrpoCommander(
    {
      envId: 'turngym/seller-commander-v1',
      runDir,
      seed,
      iterations,
      groupsPerIteration: groups,
      groupSize,
      evalEvery: Number(flag('eval-every', 10)),
      evalEpisodes,
      evalTasks: spreadTaskIds(evalEpisodes, 164),
      ...JSON.parse(flag('args', '{}')),
    },
    {
      onIteration: (row) => rows.push(row),
      ...(warm === 'expert' ? { warmStart: expertWarmStart(seed, Number(flag('warm-steps', 400))) } : {}),
    },
  );
  result.net.dispose();
  process.stdout.write(
    [
      `GRPO commander${warm ? ` (${warm} warm start)` : ''}, seed ${seed}, ${result.episodes} episodes, ${result.envSteps} env steps: ${Math.round((Date.now() - started) / 1000)} s`,
      '| iteration | train success | tied groups | greedy policy (41 test tasks) |',
      '|---:|---:|---:|---:|',
      ...rows
        .filter((row) => row['eval/success_rate'] !== undefined)
        .map(
          (row) =>
            `| ${row.iteration + 1} | ${percent(row['charts/success_rate'])} | ${percent(row['grpo/tied_groups'])} | ${percent(row['eval/success_rate'])} |`,
        ),
      '',
    ].join('\n'),
  );
}

/** One agent on every test task: success per task id. */
async function play(env, agentFor, taskIds) {
  const outcomes = [];
  for (const taskId of taskIds) outcomes.push(await runEpisode(env, agentFor(taskId), 100_000 + taskId, { taskId }));
  return outcomes;
}

function sequenceAgent(sequence) {
  let next = 0;
  return {
    name: 'fixed-sequence',
    async start() {
      next = 0;
    },
    async act() {
      return sequence[Math.min(next++, sequence.length - 1)];
    },
  };
}

async function evaluate() {
  const runs = flag('runs', '').split(',').filter(Boolean);
  const simulations = Number(flag('simulations', 50));
  const baselines = flag('baselines', 'true') === 'true';
  const started = Date.now();
  await useBackend('cpu'); // the networks were trained on it
  const test = new SellerEnv({ split: 'test' });
  const recorder = new TranscriptRecorder(test);
  const taskIds = Array.from({ length: Math.min(Number(flag('episodes', 164)), test.tasks.length) }, (_, i) => i);
  const productOf = (taskId) => test.tasks[taskId].product.id;
  const rows = [];
  const perProduct = new Map(); // policy → product → successes
  const record = (policy, detail, outcomesBySeed) => {
    const all = outcomesBySeed.flat();
    const summary = summarize(all);
    const rates = outcomesBySeed.map((outcomes) => summarize(outcomes).successRate);
    const products = new Map();
    outcomesBySeed.forEach((outcomes) =>
      outcomes.forEach((outcome, index) => {
        const product = productOf(taskIds[index]);
        products.set(product, [...(products.get(product) ?? []), outcome.success ? 1 : 0]);
      }),
    );
    const productRates = [...products.values()].map((values) => values.reduce((a, b) => a + b, 0) / values.length);
    perProduct.set(policy, productRates);
    const interval = wilsonInterval95(all.filter((o) => o.success).length, all.length);
    rows.push(
      `| ${policy} | ${percent(summary.successRate)} (${percent(interval.low)}–${percent(interval.high)}) | ${
        rates.length > 1 ? `${rates.map(percent).join(', ')} (sd ${percent(std(rates))})` : '—'
      } | ${percent(Math.min(...productRates))} / ${percent(productRates.sort((a, b) => a - b)[Math.floor(productRates.length / 2)])} / ${percent(Math.max(...productRates))} (sd ${percent(std(productRates))}) | ${summary.meanTurns.toFixed(1)} | ${all.length} | ${detail} |`,
    );
    process.stderr.write(`${policy}: ${percent(summary.successRate)}\n`);
  };
  const seeds = [];
  const policies = [];
  const searches = [];
  for (const runDir of runs) {
    const { net, encoder, args } = await loadTrainedNetwork(runDir, test.spec);
    seeds.push(args.seed);
    policies.push(await play(recorder, () => new PolicyHeadAgent(net, encoder), taskIds));
    const search = (taskId) =>
      new AlphaZeroSearch(net, encoder, {
        simulations,
        cBase: args.cBase,
        cInit: args.cInit,
        dirichletAlpha: args.dirichletAlpha,
        dirichletWeight: 0,
        temperature: 0,
        seed: args.seed * 100_000 + taskId,
      });
    searches.push(await play(recorder, (taskId) => new AlphaZeroMctsAgent(recorder, search(taskId)), taskIds));
  }
  const grpoRuns = flag('grpo-runs', '').split(',').filter(Boolean);
  if (grpoRuns.length > 0) {
    const greedy = [];
    for (const runDir of grpoRuns) {
      const { net, encoder } = await loadGrpoCommander(runDir, test.spec);
      greedy.push(await play(recorder, () => new PolicyHeadAgent(net, encoder), taskIds));
    }
    record(
      flag('label', 'GRPO commander'),
      'the same network as the policy head, trained by GRPO with no search; greedy',
      greedy,
    );
  }
  if (runs.length > 0) {
    record('AlphaZero: MCTS', `PUCT through fork(), ${simulations} simulations a move, no noise`, searches);
    record('AlphaZero: raw policy head', 'the legal meta-action with the largest prior; no search', policies);
  }
  if (baselines) {
    const seedsOrOne = seeds.length > 0 ? seeds : [1];
    record(
      'random',
      'a legal meta-action uniformly',
      await Promise.all(
        seedsOrOne.map(async (seed) => play(test, (taskId) => new RandomAgent(seed + taskId), taskIds)),
      ),
    );
    // The seller README's best fixed sequence (coordinate ascent on 150 train tasks):
    // introduce → ask-scenario → empathize → answer-doubts → empathize → ask-doubts → answer-doubts → press.
    record('best fixed sequence', "the seller README's line", [
      await play(test, () => sequenceAgent([1, 6, 4, 2, 4, 8, 2, 7]), taskIds),
    ]);
    record('scripted expert', 'reads the dialogue only', [await play(test, () => new SellerExpert(), taskIds)]);
    const uct = [];
    for (const seed of seedsOrOne)
      uct.push(await play(test, (taskId) => new MctsAgent(test, { simulations, seed: seed + taskId }), taskIds));
    record('UCT, random rollouts', `the seller's MctsAgent, ${simulations} simulations a move`, uct);
  }
  const text = [
    `Measured by \`node trainers/alphazero/scripts/seller-benchmark.js evaluate --runs ${runs.join(',')}${grpoRuns.length > 0 ? ` --grpo-runs ${grpoRuns.join(',')}` : ''} --simulations ${simulations} --episodes ${taskIds.length}\``,
    `(${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${Math.round((Date.now() - started) / 1000)} s; seeds ${seeds.join(', ') || '—'}).`,
    '',
    '| policy | success, all seeds (95% CI) | per seed (sd) | per product min / median / max (sd) | mean turns | episodes | how |',
    '|---|---:|---|---|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
  process.stdout.write(text);
  const target = flag('write');
  if (target) writeFileSync(target, text);
}

const command = process.argv[2];
(command === 'train'
  ? train()
  : command === 'grpo'
    ? grpo()
    : command === 'evaluate'
      ? evaluate()
      : Promise.reject(new Error('expected train, grpo or evaluate'))
).catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
