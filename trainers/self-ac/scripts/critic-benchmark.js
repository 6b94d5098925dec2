#!/usr/bin/env node
/**
 * Self-AC benchmark scripts (issue 24, items 7–8), run from the repository root after `npm run build`:
 *
 *   node trainers/self-ac/scripts/critic-benchmark.js critic --seed 1 --iterations 40 [--critic-epochs 2] [--critic-warmup 1]
 *       [--critic-clone 1] [--value-lr 5e-3] [--max-packed 1024] [--alpha 0.5] [--td-horizons 5] --out runs/self-ac/critic-1
 *     trains Self-AC from the committed math warm start, then measures the critic on held-out episodes:
 *     episodes sampled (temperature 1, the trained adapter) on the test split, V(s_k) from one packed forward
 *     per episode, explained variance 1 − Var(R − V)/Var(R) over every state s_0 … s_(n−1), and a calibration
 *     table and SVG plot (predicted V in ten bins vs the mean return R of the states in each bin).
 *
 *     The held-out (V, R) pairs also go to <out>/run/critic-calibration.json, which `turngym report` plots.
 *
 *   node trainers/self-ac/scripts/critic-benchmark.js calibrate --run runs/self-ac/learning/self-ac-1 [--held-out 64]
 *     the same held-out measurement of a finished run's critic (its checkpoint), into <run>/critic-calibration.json.
 *
 *   node trainers/self-ac/scripts/critic-benchmark.js learning --seeds 1,2,3 --budget 50000 --out runs/self-ac/learning [--algorithms self-ac]
 *     Self-AC and GRPO from the same warm start, each run stopping at the same generated-token budget, with the
 *     math experiment's RL settings (benchmarks/learning/src/experiments.ts); prints test success per seed and
 *     mean ± std over every run in <out>/learning.json (seeds may be run one invocation at a time).
 *
 *   node trainers/self-ac/scripts/critic-benchmark.js gains --out runs/self-ac/learning
 *     scores each finished run of <out>/learning.json again, greedy on the same 200 test tasks, and counts the
 *     test tasks it solves that the warm start did not (gained) and the other way round (lost), against the
 *     warm start's task-by-task wins in its manifest; the rescored success must equal the run's own.
 *
 *   node trainers/self-ac/scripts/critic-benchmark.js react --seed 1 --iterations 2 --prompts 2 --group 4 --eval-episodes 10
 *     ReAct-SelfAC: Self-AC on `turngym/wiki-qa-compact-v1` bridge questions (2 hops: the answer is a value on
 *     the second page, reached through a link of the first, and not named in the question) from the committed
 *     wiki warm start, with the wiki experiment's RL settings (benchmarks/learning/src/experiments.ts); prints the
 *     start's and the run's greedy test success, the critic's batch explained variance and episodes left out for
 *     packing longer than maxPackedTokens. The warm start was trained on comparison questions only.
 *
 *   node trainers/self-ac/scripts/critic-benchmark.js react-score --root runs/self-ac-wiki [--tasks 200]
 *     the finished ReAct-SelfAC wiki runs (<root>/self-ac-b<budget>-s<seed>: learning.md's command, GRPO's settings
 *     in runs/plan-act-wiki) scored greedily, task by task, on test tasks 0 … tasks − 1 against the single-agent
 *     warm start, beside GRPO's runs (`--grpo-root`, scored by plan-act-benchmark.js --score); mean ± std, test
 *     tasks gained / lost and a sign test, into <root>/react-scores.md.
 *
 *   node trainers/self-ac/scripts/critic-benchmark.js tot --run runs/self-ac/critic-1/run --tasks 50 --branches 4 --beam 2
 *     ToT-SelfAC (`totSearch`) with a Self-AC run's adapter and value head against plain sampling at equal
 *     generated tokens on the test split: per task, the search's chosen line, then as many sampled episodes as
 *     fit in the tokens the search spent (at least one); success of the search, of the first sample, and of the
 *     majority answer of the samples (self-consistency, the usual verifier-free baseline). Also, on the same
 *     tasks: the same search with the critic switched off (V ≡ 0, so every choice falls to the tie-break, the
 *     likelier factor: what the critic itself adds), the sample whose answered-from state the critic values
 *     highest (best-of-N by V), and whether any sample succeeded (an oracle's ceiling, not a method).
 *     `--from` skips the first test tasks (to extend a run). `--critic <dir>` takes the critic from a
 *     `critic-probe.js --save` directory instead, and the warm start (no adapter) acts for the search and the samples.
 *
 * Everything is written under --out (JSON + Markdown); nothing here is a test.
 */
const { mkdirSync, writeFileSync, existsSync, readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const { ChatTurnFormat, collectChains, installedEnvRegistry } = require('@turngym/rl');
const { trainSelfAc, criticPromptTokens, packEpisode, explainedVariance } = require('@turngym/trainer-self-ac');
const { evByTurn, byTurnLine } = require('./ev-by-turn');
const { flag, numberFlag, usageError, checkFlags } = require('./script-flags');

const WARM_START = 'benchmarks/learning/models/math-warm-start';
const ENV_ID = 'turngym/math-thought-calc-v1';
const ENV_OPTIONS = { difficulties: [1], kinds: ['arithmetic'] };
/** The math experiment's RL settings (experiments.ts), less its 400 iterations and 200 test episodes. */
const RL = {
  backend: 'wasm',
  instructions: false,
  promptsPerIteration: 16,
  maxActionTokens: 32,
  maxRolloutTokens: 160,
  loraRank: 16,
  loraAlpha: 32,
  learningRate: 5e-4,
  minibatchSize: 8,
  evalEpisodes: 200,
  evalEvery: 10,
  trajectoriesEvery: 10,
  quiet: true,
};

async function critic() {
  const seed = numberFlag('seed', '1');
  const out = flag('out', `runs/self-ac/critic-${seed}`);
  const heldOut = numberFlag('held-out', '64');
  const runDir = join(out, 'run');
  // Every flag read (a typo refused) before the output directory is made.
  const args = {
    ...RL,
    envId: ENV_ID,
    envOptions: ENV_OPTIONS,
    checkpoint: WARM_START,
    runDir,
    seed,
    iterations: numberFlag('iterations', '40'),
    groupSize: numberFlag('group', '8'),
    promptsPerIteration: numberFlag('prompts', String(RL.promptsPerIteration)),
    evalEpisodes: numberFlag('eval-episodes', '200'),
    criticEpochs: numberFlag('critic-epochs', '0'),
    criticWarmupIterations: numberFlag('critic-warmup', '0'),
    criticCloneCoefficient: numberFlag('critic-clone', '0'),
    ...(flag('value-lr') !== undefined ? { valueLearningRate: numberFlag('value-lr') } : {}),
    ...(flag('max-packed') !== undefined ? { maxPackedTokens: numberFlag('max-packed') } : {}),
    ...(flag('alpha') !== undefined ? { alpha: numberFlag('alpha') } : {}),
    ...(flag('td-horizons') !== undefined ? { tdHorizons: numberFlag('td-horizons') } : {}),
  };
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const result = await trainSelfAc(args, {});
  const model = result.model;
  const trainSeconds = (Date.now() - started) / 1000;
  const { pairs, ev, rows, scoredEpisodes, episodes } = await heldOutCritic(model, heldOut);
  writeCalibration(runDir, pairs, scoredEpisodes.length, `critic-benchmark.js ${process.argv.slice(2).join(' ')}`);
  const summary = {
    seed,
    trainSeconds,
    iterations: result.iterations,
    generatedTokens: result.generatedTokens,
    testSuccessRate: Number.isFinite(result.testSuccessRate) ? result.testSuccessRate : null,
    heldOutEpisodes: scoredEpisodes.length,
    heldOutLeftOut: episodes.length - scoredEpisodes.length,
    heldOutStates: pairs.length,
    explainedVariance: ev,
    byTurn: evByTurn(pairs),
    calibration: rows,
  };
  writeFileSync(join(out, 'critic.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(out, 'calibration.svg'), calibrationSvg(rows, ev));
  console.log(
    [
      `Self-AC critic, seed ${seed}: ${result.iterations} iterations, ${result.generatedTokens} generated tokens, ` +
        `${trainSeconds.toFixed(0)} s; held-out: ${scoredEpisodes.length} episodes (${episodes.length - scoredEpisodes.length} left out: packed > 1024 tokens), ${pairs.length} states; explained variance ${ev.toFixed(3)}.`,
      byTurnLine(summary.byTurn),
      '',
      '| predicted V | states | mean V | mean return R |',
      '|---|---:|---:|---:|',
      ...rows.map((r) => `| ${r.range} | ${r.states} | ${r.meanV.toFixed(3)} | ${r.meanReturn.toFixed(3)} |`),
    ].join('\n'),
  );
  model.dispose();
}

/**
 * The critic on held-out episodes: test-split tasks (seeds 0 … heldOut − 1), 2 episodes each sampled as in
 * training (temperature 1, the trained adapter), never trained on; V(s_k) from one packed forward per episode
 * against the return R_k of every state s_0 … s_(n−1); explained variance and ten equal-width bins of V.
 */
async function heldOutCritic(model, heldOut) {
  const registry = installedEnvRegistry();
  const format = new ChatTurnFormat(model.tokenizer);
  const trajectories = await collectChains({
    policy: { model, format },
    makeEnv: () => registry.make(ENV_ID, { options: { ...ENV_OPTIONS, split: 'test' } }),
    envId: ENV_ID,
    seeds: Array.from({ length: heldOut }, (_, i) => i),
    groupSize: 2,
    options: {
      maxActionTokens: RL.maxActionTokens,
      maxRolloutTokens: RL.maxRolloutTokens,
      instructions: false,
      adapter: 'policy',
      seed: 99,
    },
  });
  const criticPrompt = criticPromptTokens(model.tokenizer);
  const episodes = trajectories
    .filter((t) => t.stopReason !== 'error' && t.steps.length > 0)
    .map((t) => packEpisode(t, { format, criticPrompt, discount: 1, maxPositions: model.config.maxPositions }));
  // One episode per scoring pass, and none longer than the trainer's maxPackedTokens: attention memory.
  const scoredEpisodes = episodes.filter((episode) => episode.row.tokens.length <= 1024);
  const pairs = [];
  for (const episode of scoredEpisodes) {
    const scored = await model.score([episode.row], { adapter: 'policy', values: true });
    episode.vectors.aStart.forEach((_, k) =>
      pairs.push({ value: scored.values[0][episode.vectors.cpEnd[k]], target: episode.vectors.returns[k], k }),
    );
  }
  const ev = explainedVariance(
    pairs.map((p) => p.value),
    pairs.map((p) => p.target),
  );
  const bins = Array.from({ length: 10 }, () => ({ n: 0, value: 0, target: 0 }));
  for (const p of pairs) {
    const bin = bins[Math.min(9, Math.max(0, Math.floor(p.value * 10)))];
    bin.n += 1;
    bin.value += p.value;
    bin.target += p.target;
  }
  const rows = bins
    .map((bin, i) => ({ range: `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`, ...bin }))
    .filter((bin) => bin.n > 0)
    .map((bin) => ({ range: bin.range, states: bin.n, meanV: bin.value / bin.n, meanReturn: bin.target / bin.n }));
  return { pairs, ev, rows, scoredEpisodes, episodes };
}

/**
 * The run directory's critic-calibration.json (the report page's calibration plot): [V, R] per held-out state,
 * and beside them each state's turn k (s_k), which the page ignores.
 */
function writeCalibration(runDir, pairs, episodes, source) {
  const file = {
    split: 'test',
    episodes,
    source,
    pairs: pairs.map((p) => [p.value, p.target]),
    turns: pairs.map((p) => p.k),
  };
  writeFileSync(join(runDir, 'critic-calibration.json'), `${JSON.stringify(file)}\n`);
}

/**
 * `calibrate --run <Self-AC run dir> [--held-out 64]`: the critic of a finished run (its checkpoint's adapter and
 * value head), measured as `critic` does after training, written to the run's critic-calibration.json.
 */
async function calibrate() {
  const { loadModel, loadAdapter, loadValueHead } = require('@turngym/lm');
  const runDir = flag('run', 'runs/self-ac/learning/self-ac-1');
  const model = await loadModel(WARM_START, { backend: 'wasm' });
  loadAdapter(model, join(runDir, 'checkpoint', 'adapter'), 'policy');
  loadValueHead(model, join(runDir, 'checkpoint'));
  const { pairs, ev, rows, scoredEpisodes, episodes } = await heldOutCritic(model, numberFlag('held-out', '64'));
  writeCalibration(runDir, pairs, scoredEpisodes.length, `critic-benchmark.js ${process.argv.slice(2).join(' ')}`);
  console.log(
    [
      `${runDir}: held-out ${scoredEpisodes.length} episodes (${episodes.length - scoredEpisodes.length} left out), ${pairs.length} states; explained variance ${ev.toFixed(3)}.`,
      byTurnLine(evByTurn(pairs)),
      '| predicted V | states | mean V | mean return R |',
      '|---|---:|---:|---:|',
      ...rows.map((r) => `| ${r.range} | ${r.states} | ${r.meanV.toFixed(3)} | ${r.meanReturn.toFixed(3)} |`),
    ].join('\n'),
  );
  model.dispose();
}

/** Predicted V against the mean return of its bin: the diagonal is a calibrated critic. */
function calibrationSvg(rows, ev) {
  const size = 240;
  const pad = 30;
  const x = (v) => pad + v * (size - 2 * pad);
  const y = (v) => size - pad - v * (size - 2 * pad);
  const dots = rows
    .map(
      (r) =>
        `<circle cx="${x(Math.min(1, Math.max(0, r.meanV))).toFixed(1)}" cy="${y(Math.min(1, Math.max(0, r.meanReturn))).toFixed(1)}" r="${(2 + Math.sqrt(r.states) / 2).toFixed(1)}" fill="#2b6cb0"/>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" font-family="sans-serif" font-size="10">
<rect width="${size}" height="${size}" fill="white"/>
<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#aaa" stroke-dasharray="3"/>
<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(0)}" stroke="black"/><line x1="${x(0)}" y1="${y(0)}" x2="${x(0)}" y2="${y(1)}" stroke="black"/>
<text x="${size / 2}" y="${size - 6}" text-anchor="middle">predicted V(s_k)</text>
<text x="10" y="${size / 2}" transform="rotate(-90 10 ${size / 2})" text-anchor="middle">mean return R_k</text>
<text x="${pad + 4}" y="${pad - 8}">explained variance ${Number.isFinite(ev) ? ev.toFixed(3) : 'n/a'}</text>
${dots}
</svg>
`;
}

async function learning() {
  const { trainGrpo } = require('@turngym/trainer-grpo');
  const seeds = flag('seeds', '1,2,3')
    .split(',')
    .map((text) =>
      /^\s*\d+\s*$/.test(text)
        ? Number(text)
        : usageError(`--seeds takes seeds separated by commas (got ${JSON.stringify(text)}).`),
    );
  const budget = numberFlag('budget', '50000');
  const out = flag('out', 'runs/self-ac/learning');
  // GRPO's runs in docs/benchmarks/learning.md (the math table) used these settings: `--algorithms self-ac`
  // runs Self-AC alone and compares against those.
  const algorithms = String(flag('algorithms', 'self-ac,grpo')).split(',');
  mkdirSync(out, { recursive: true });
  // Runs of earlier invocations (one seed at a time) stay in learning.json; a rerun replaces its own entry.
  const file = join(out, 'learning.json');
  const results = existsSync(file)
    ? JSON.parse(readFileSync(file, 'utf8')).filter(
        (r) => !(algorithms.includes(r.algorithm) && seeds.includes(r.seed) && r.budget === budget),
      )
    : [];
  for (const algorithm of algorithms) {
    for (const seed of seeds) {
      const runDir = join(out, `${algorithm}-${seed}`);
      const args = {
        ...RL,
        envId: ENV_ID,
        envOptions: ENV_OPTIONS,
        checkpoint: WARM_START,
        runDir,
        seed,
        iterations: 400,
        tokenBudget: budget,
        groupSize: 8,
      };
      const started = Date.now();
      const result = algorithm === 'grpo' ? await trainGrpo({ ...args, targetKl: 0.02 }) : await trainSelfAc(args);
      result.model.dispose();
      results.push({
        algorithm,
        seed,
        budget,
        seconds: (Date.now() - started) / 1000,
        iterations: result.iterations,
        generatedTokens: result.generatedTokens,
        testSuccessRate: Number.isFinite(result.testSuccessRate) ? result.testSuccessRate : null,
      });
      writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
      console.log(JSON.stringify(results.at(-1)));
    }
  }
  const start = JSON.parse(readFileSync(join(WARM_START, 'manifest.json'), 'utf8')).testScore.successRate;
  const line = (algorithm) => {
    const rates = results.filter((r) => r.algorithm === algorithm && r.budget === budget).map((r) => r.testSuccessRate);
    if (rates.length === 0) return `| ${algorithm} | ${budget} | (not run here) | |`;
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    const std = Math.sqrt(rates.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, rates.length - 1));
    return `| ${algorithm} | ${budget} | ${rates.map((r) => r.toFixed(3)).join(', ')} | ${mean.toFixed(3)} ± ${std.toFixed(3)} |`;
  };
  console.log(
    [
      `warm start: ${start}`,
      '',
      '| algorithm | budget | test success per seed | mean ± std |',
      '|---|---:|---|---:|',
      line('self-ac'),
      line('grpo'),
    ].join('\n'),
  );
}

async function gains() {
  const { loadModel, loadAdapter } = require('@turngym/lm');
  const { evaluatePolicy } = require('@turngym/rl');
  const { gainedAndLost } = require(
    join(__dirname, '..', '..', '..', 'benchmarks', 'learning', 'dist', 'test-scores.js'),
  );
  const out = flag('out', 'runs/self-ac/learning');
  const file = join(out, 'learning.json');
  const results = JSON.parse(readFileSync(file, 'utf8'));
  const start = JSON.parse(readFileSync(join(WARM_START, 'manifest.json'), 'utf8')).testScore;
  const registry = installedEnvRegistry();
  for (const result of results) {
    if (result.wins) continue;
    const model = await loadModel(WARM_START, { backend: 'wasm' });
    loadAdapter(model, join(out, `${result.algorithm}-${result.seed}`, 'checkpoint', 'adapter'), 'policy');
    const evaluation = await evaluatePolicy({
      policy: { model, format: new ChatTurnFormat(model.tokenizer) },
      makeEnv: () => registry.make(ENV_ID, { options: { ...ENV_OPTIONS, split: 'test' } }),
      envId: ENV_ID,
      seeds: Array.from({ length: RL.evalEpisodes }, (_, seed) => seed),
      options: {
        maxActionTokens: RL.maxActionTokens,
        maxRolloutTokens: RL.maxRolloutTokens,
        instructions: false,
        adapter: 'policy',
      },
    });
    model.dispose();
    result.wins = evaluation.trajectories.map((t) => (t.success ? '1' : '0')).join('');
    result.rescoredSuccessRate = evaluation.successRate;
    // benchmarks/learning's count, as the learning table makes it.
    Object.assign(result, gainedAndLost(start, { wins: result.wins }));
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(
      `${result.algorithm} seed ${result.seed}: ${evaluation.successRate.toFixed(3)} (the run's own ${result.testSuccessRate}), gained ${result.gained} / lost ${result.lost}`,
    );
  }
}

async function react() {
  const { loadModel } = require('@turngym/lm');
  const { evaluatePolicy } = require('@turngym/rl');
  const seed = numberFlag('seed', '1');
  const out = flag('out', `runs/self-ac/react-${seed}`);
  const envId = 'turngym/wiki-qa-compact-v1';
  const envOptions = { questionTypes: ['bridge'], minHops: 2, maxHops: 2, articles: 20000 };
  const warmStart = 'benchmarks/learning/models/wiki-warm-start';
  // The wiki experiment's RL settings (experiments.ts) less its iterations; Self-AC's groupSize as GRPO's.
  const rl = {
    backend: 'wasm',
    instructions: false,
    maxActionTokens: 48,
    maxRolloutTokens: 192,
    loraRank: 16,
    loraAlpha: 32,
    learningRate: 1e-3,
    minibatchSize: 64,
    maxBatch: 16,
    quiet: true,
  };
  const evalEpisodes = numberFlag('eval-episodes', '100');
  mkdirSync(out, { recursive: true });
  const registry = installedEnvRegistry();
  const makeEnv = () => registry.make(envId, { options: { ...envOptions, split: 'test' } });
  const started = Date.now();
  const model = await loadModel(warmStart, { backend: 'wasm' });
  const start = await evaluatePolicy({
    policy: { model, format: new ChatTurnFormat(model.tokenizer) },
    makeEnv,
    envId,
    seeds: Array.from({ length: evalEpisodes }, (_, i) => i),
    options: {
      maxActionTokens: rl.maxActionTokens,
      maxRolloutTokens: rl.maxRolloutTokens,
      instructions: false,
      maxBatch: 16,
    },
  });
  model.dispose();
  const result = await trainSelfAc({
    ...rl,
    envId,
    envOptions,
    checkpoint: warmStart,
    runDir: join(out, 'run'),
    seed,
    iterations: numberFlag('iterations', '2'),
    promptsPerIteration: numberFlag('prompts', '8'),
    groupSize: numberFlag('group', '8'),
    evalEpisodes,
    evalEvery: 1000,
    trajectoriesEvery: 1,
    criticEpochs: numberFlag('critic-epochs', '0'),
  });
  result.model.dispose();
  const metrics = readFileSync(join(out, 'run', 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const summary = {
    seed,
    envId,
    envOptions,
    seconds: (Date.now() - started) / 1000,
    startSuccessRate: start.successRate,
    iterations: result.iterations,
    generatedTokens: result.generatedTokens,
    testSuccessRate: Number.isFinite(result.testSuccessRate) ? result.testSuccessRate : null,
    perIteration: metrics.map((m) => ({
      iteration: m.iteration,
      trainSuccess: m['charts/success_rate'],
      turns: m['charts/episode_turns'],
      explainedVariance: m['losses/explained_variance'] ?? null,
      tooLong: m['perf/episodes_too_long'],
    })),
  };
  writeFileSync(join(out, 'react.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify(summary, null, 2));
}

async function tot() {
  const { loadModel, loadAdapter, loadValueHead } = require('@turngym/lm');
  const { totSearch, criticValues } = require('@turngym/trainer-self-ac');
  const runDir = flag('run', 'runs/self-ac/critic-1/run');
  const tasks = numberFlag('tasks', '50');
  const from = numberFlag('from', '0');
  const out = flag('out', 'runs/self-ac/tot');
  const search = {
    branches: numberFlag('branches', '4'),
    beam: numberFlag('beam', '2'),
    maxTurns: 8,
    maxActionTokens: RL.maxActionTokens,
    maxSearchTokens: numberFlag('search-tokens', '1024'),
    instructions: false,
    seed: 1,
  };
  mkdirSync(out, { recursive: true });
  const model = await loadModel(WARM_START, { backend: 'wasm' });
  // --critic <dir>: a critic trained apart (critic-probe.js --save) reads the states through its own adapter,
  // while the warm start (no adapter) acts; otherwise the run's one adapter does both, as Self-AC deploys.
  const criticDir = flag('critic');
  if (criticDir) {
    loadAdapter(model, join(criticDir, 'adapter'), 'critic');
    loadValueHead(model, criticDir);
    search.adapter = null;
  } else {
    loadAdapter(model, join(runDir, 'checkpoint', 'adapter'), 'policy');
    loadValueHead(model, join(runDir, 'checkpoint'));
  }
  const actor = criticDir ? null : 'policy';
  const registry = installedEnvRegistry();
  const makeEnv = () => registry.make(ENV_ID, { options: { ...ENV_OPTIONS, split: 'test' } });
  const rows = [];
  const critic = criticValues(model, criticDir ? 'critic' : 'policy');
  // The critic off: every candidate scores 0, so the search keeps and answers by the tie-break alone.
  const noCritic = async (states) => states.map(() => 0);
  for (let task = from; task < from + tasks; task += 1) {
    const result = await totSearch(model, await makeEnv(), task, search, critic);
    const control = await totSearch(model, await makeEnv(), task, search, noCritic);
    const perEpisode = RL.maxRolloutTokens / 3;
    const samples = await collectChains({
      policy: { model, format: new ChatTurnFormat(model.tokenizer) },
      makeEnv,
      envId: ENV_ID,
      seeds: [task],
      groupSize: Math.max(1, Math.round(result.generatedTokens / perEpisode)),
      options: {
        maxActionTokens: RL.maxActionTokens,
        maxRolloutTokens: RL.maxRolloutTokens,
        instructions: false,
        adapter: actor,
        seed: 1,
      },
    });
    const answers = new Map();
    for (const t of samples) {
      const answer = t.steps.at(-1)?.action.trim() ?? '';
      const entry = answers.get(answer) ?? { votes: 0, success: t.success };
      entry.votes += 1;
      answers.set(answer, entry);
    }
    const majority = [...answers.values()].sort((a, b) => b.votes - a.votes)[0];
    // Best-of-N by V: each sample scored, as the search scores a finished line, by V of the state it answered from.
    const answeredFrom = samples.map((t) => {
      const kept = t.segments.slice(0, -1).reduce((sum, segment) => sum + segment.tokenCount, 0);
      return t.segments.at(-1)?.kind === 'action' ? t.tokens.slice(0, kept) : t.tokens;
    });
    const values = await critic(answeredFrom);
    const best = values.reduce((top, v, i) => (v > values[top] ? i : top), 0);
    rows.push({
      task,
      tot: result.best.success,
      totTokens: result.generatedTokens,
      noCritic: control.best.success,
      noCriticTokens: control.generatedTokens,
      bestOfNByV: samples[best].success,
      any: samples.some((t) => t.success),
      samples: samples.length,
      sampleTokens: samples.reduce((sum, t) => sum + t.generatedTokens, 0),
      first: samples[0].success,
      majority: majority?.success === true,
    });
    writeFileSync(
      join(out, 'tot.json'),
      `${JSON.stringify({ search, run: criticDir ? null : runDir, critic: criticDir ?? null, rows }, null, 2)}\n`,
    );
  }
  const rate = (key) => rows.filter((r) => r[key]).length / rows.length;
  const tokens = (key) => rows.reduce((sum, r) => sum + r[key], 0);
  console.log(
    `ToT-SelfAC (k = ${search.branches}, b = ${search.beam}) on ${rows.length} test tasks: ${rate('tot').toFixed(3)} ` +
      `(${tokens('totTokens')} tokens); plain sampling, first episode ${rate('first').toFixed(3)}, majority of ` +
      `${(rows.reduce((sum, r) => sum + r.samples, 0) / rows.length).toFixed(1)} ${rate('majority').toFixed(3)} (${tokens('sampleTokens')} tokens), ` +
      `best of them by V ${rate('bestOfNByV').toFixed(3)}, any of them ${rate('any').toFixed(3)}; the search with the critic off ` +
      `${rate('noCritic').toFixed(3)} (${tokens('noCriticTokens')} tokens).`,
  );
  model.dispose();
}

/**
 * `react-score --root runs/self-ac-wiki [--tasks 200] [--grpo-root runs/plan-act-wiki/wiki-plan-act]`: the finished
 * ReAct-SelfAC wiki runs (<root>/self-ac-b<budget>-s<seed>, learning.md's command) scored greedily, task by task,
 * on test seeds 0 … tasks − 1 with the wiki-plan-act experiment's rollout caps (benchmarks/learning's test scores,
 * as the CCAPO script scores its wiki runs), against the single-agent warm start, beside the GRPO runs of the
 * Plan/Act benchmark (their final-eval-<tasks>.json, written by `plan-act-benchmark.js --score`). Scores are cached
 * in each run directory; the table goes to <root>/react-scores.md.
 */
async function reactScore() {
  const learningDist = join(__dirname, '..', '..', '..', 'benchmarks', 'learning', 'dist');
  const { cachedScore, gainedAndLost, signTestP } = require(join(learningDist, 'test-scores.js'));
  const { mean, sampleStd } = require('@turngym/core');
  const experiment = require(join(learningDist, 'plan-act-experiments.js')).PLAN_ACT_EXPERIMENTS.find(
    (candidate) => candidate.name === 'wiki-plan-act',
  );
  const root = flag('root', 'runs/self-ac-wiki');
  const tasks = numberFlag('tasks', '200');
  const grpoRoot = flag('grpo-root', 'runs/plan-act-wiki/wiki-plan-act');
  const warm = 'benchmarks/learning/models/wiki-plan-act-warm-start';
  const scored = {
    envId: experiment.envId,
    envOptions: experiment.envOptions,
    rl: { ...experiment.rl, evalEpisodes: tasks },
  };
  const start = await cachedScore(join(root, `start-eval-${tasks}.json`), scored, warm);
  const theirs = existsSync(join(grpoRoot, `start-eval-single-${tasks}.json`))
    ? JSON.parse(readFileSync(join(grpoRoot, `start-eval-single-${tasks}.json`), 'utf8'))
    : undefined;
  if (theirs && theirs.wins !== start.wins)
    throw new Error(`the warm start's ${tasks} greedy episodes differ from ${grpoRoot}'s`);
  const lastRow = (dir) => {
    const lines = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n');
    return JSON.parse(lines[lines.length - 1]);
  };
  const rows = [];
  const collect = async (algorithm, dir, pattern, score) => {
    for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
      const match = pattern.exec(name);
      if (!match) continue;
      const runDir = join(dir, name);
      if (!existsSync(join(runDir, 'metrics.jsonl'))) continue; // not started: nothing to score
      const last = lastRow(runDir);
      // A run is finished once it has evaluated at its end (evalEvery 1000: the last iteration only).
      if (last['eval/success_rate'] === undefined) continue;
      const final = await score(runDir, last);
      if (!final) continue;
      rows.push({
        algorithm,
        seed: Number(match[2]),
        iterations: last.iteration + 1,
        tokens: last['budget/generated_tokens'],
        own: last['eval/success_rate'],
        success: final.successRate,
        ...gainedAndLost(start, final),
        ev: last['losses/explained_variance'],
      });
    }
  };
  await collect('self-ac', root, /^self-ac-b(\d+)-s(\d+)$/, (runDir, last) =>
    cachedScore(join(runDir, `final-eval-${tasks}.json`), scored, warm, {
      adapter: join(runDir, 'checkpoint', 'adapter'),
      tag: `iteration ${last.iteration}`,
    }),
  );
  await collect('grpo', grpoRoot, /^grpo-b(\d+)-s(\d+)$/, (runDir) => {
    const file = join(runDir, `final-eval-${tasks}.json`);
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  });
  const meanStd = (xs) => `${mean(xs).toFixed(3)} ± ${sampleStd(xs).toFixed(3)}`;
  const table = [
    `Wiki bridge questions, greedy on test tasks 0–${tasks - 1}; warm start ${start.successRate.toFixed(3)}.`,
    '',
    `| run | trainer's eval, tasks 0–49 | test success, tasks 0–${tasks - 1} | gained / lost vs the warm start | iterations | generated tokens | batch EV, last iteration |`,
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.algorithm}, seed ${r.seed} | ${r.own.toFixed(3)} | ${r.success.toFixed(3)} | ${r.gained} / ${r.lost} | ${r.iterations} | ${r.tokens} | ${r.ev === undefined ? '' : r.ev.toFixed(2)} |`,
    ),
    '',
    `| algorithm | seeds | test success, mean ± std (start ${start.successRate.toFixed(3)}) | gained / lost, sum over seeds | sign test p |`,
    '|---|---:|---:|---:|---:|',
    ...['self-ac', 'grpo'].flatMap((algorithm) => {
      const mine = rows.filter((r) => r.algorithm === algorithm);
      if (mine.length === 0) return [];
      const gained = mine.reduce((a, r) => a + r.gained, 0);
      const lost = mine.reduce((a, r) => a + r.lost, 0);
      return [
        `| ${algorithm} | ${mine.length} | ${meanStd(mine.map((r) => r.success))} | ${gained} / ${lost} | ${signTestP(gained, lost).toFixed(4)} |`,
      ];
    }),
  ].join('\n');
  writeFileSync(join(root, 'react-scores.md'), `${table}\n`);
  console.log(table);
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(require('../../../scripts/header-usage').headerUsage(__filename));
  process.exit(0);
}
checkFlags([]);
const mode = process.argv[2];
const modes = { critic, calibrate, learning, gains, react, 'react-score': reactScore, tot };
const run = Object.hasOwn(modes, mode) ? modes[mode] : null;
if (!run || !existsSync(WARM_START)) {
  process.stderr.write(
    'usage (from the repository root): critic-benchmark.js critic|calibrate|learning|gains|react|react-score|tot [flags]\n',
  );
  process.exit(2);
}
run().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
