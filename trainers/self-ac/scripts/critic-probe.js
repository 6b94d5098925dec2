#!/usr/bin/env node
/**
 * Why does the critic (not) learn? A fixed-data probe (issue 24, item 6), run from the repository root after
 * `npm run build`:
 *
 *   node trainers/self-ac/scripts/critic-probe.js --steps 120 --alpha 0.5 --lr 5e-4 [--lr-end 5e-5] [--ema 0.9] [--rank 16]
 *
 * Samples train episodes (train split) and held-out episodes (test split) once from the committed math warm
 * start (cached under --cache), then takes `--steps` Self-AC updates (`selfAcUpdate`, one minibatch each) on
 * minibatches drawn from the fixed train episodes and prints explained variance on the train and held-out
 * states every `--every` steps. The data never changes, so what moves EV is the critic's optimisation alone
 * (the actor term still moves the adapter when α < 1). Optimisation knobs that leave §2's loss as it is:
 * `--lr-end` decays Adam's step size linearly from `--lr` to it over the steps; `--ema d` also reports the
 * held-out EV of an exponential moving average of the adapter and value head (w̄ ← d·w̄ + (1 − d)·w after each
 * step; Polyak averaging, read with the averaged weights swapped in); `--rank` sets the LoRA rank (alpha 2×rank,
 * every attention and MLP projection as in training); `--value-lr` gives the value head its own step size (a second
 * Adam parameter group, `Trainer.setValueLearningRate`; decayed with `--lr-end` in proportion). `--out` writes the curve as JSON; `--held-out-only` skips step 0
 * and measures train EV only after the last step. `--monte-carlo` (a diagnostic, not §2's loss) replaces the
 * update by plain regression of V(s_k) on the return R_k (mean squared error over the minibatch's states, only
 * the critic's term), to tell the TD(1..5) semi-gradient targets' part in the critic's slow fit from the rest.
 * `--init <dir>` starts from such a directory instead of a fresh adapter and head (Adam's moments start afresh).
 * `--save <dir>` writes the trained adapter (`<dir>/adapter`, PEFT) and value head (`<dir>/value_head.safetensors`),
 * and the held-out (V, R) pairs of the last step as `<dir>/critic-calibration.json` (the report page's file).
 * Nothing here is a test. `--help` prints this text.
 *
 *   node trainers/self-ac/scripts/critic-probe.js --ceiling 8 [--out runs/self-ac/ceiling.json]
 *
 * The ceiling of any critic on the held-out states: each held-out state s_k is rebuilt (the env reset at the
 * episode's seed and stepped through its first k actions, the prefix cut from the episode's own tokens) and
 * continued `--ceiling` M times by the warm start with the rollouts' settings, so the mean return of the
 * continuations, V̂(s_k), estimates V^π(s_k) itself. The EV of V^π against the sampled returns
 * R_k is the most any critic of this policy can reach on this data (the rest is the sampling's own chance);
 * V̂'s extra noise (s²/M per state, unbiased) is taken out of the residual variance. Bootstrap intervals resample
 * the held-out tasks.
 */
// Before anything is loaded: a bare call runs the default probe for minutes, so a call for the usage must not.
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(require('../../../scripts/header-usage').headerUsage(__filename));
  process.exit(0);
}
const { mkdirSync, writeFileSync, existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { loadModel, loadAdapter, loadValueHead, Trainer, tf, saveAdapter, saveValueHead } = require('@turngym/lm');
const {
  ChatTurnFormat,
  collectChains,
  installedEnvRegistry,
  runRollouts,
  validateRolloutOptions,
} = require('@turngym/rl');
const { mixSeed, SeededRng } = require('@turngym/core');
const {
  criticPromptTokens,
  packEpisode,
  explainedVariance,
  selfAcUpdate,
  validateSelfAcUpdateOptions,
} = require('@turngym/trainer-self-ac');
const { evByTurn, byTurnLine } = require('./ev-by-turn');
const { flag, numberFlag, usageError, checkFlags } = require('./script-flags');

const WARM_START = 'benchmarks/learning/models/math-warm-start';
const ENV_ID = 'turngym/math-thought-calc-v1';
const ENV_OPTIONS = { difficulties: [1], kinds: ['arithmetic'] };

checkFlags(['--monte-carlo', '--held-out-only', '--linear-probe', '--baselines']);

async function episodesOf(model, split, tasks, group, seed) {
  const registry = installedEnvRegistry();
  return collectChains({
    policy: { model, format: new ChatTurnFormat(model.tokenizer) },
    makeEnv: () => registry.make(ENV_ID, { options: { ...ENV_OPTIONS, split } }),
    envId: ENV_ID,
    seeds: Array.from({ length: tasks }, (_, i) => i),
    groupSize: group,
    options: { maxActionTokens: 32, maxRolloutTokens: 160, instructions: false, adapter: 'policy', seed },
  });
}

async function main() {
  const cache = flag('cache', 'runs/self-ac/probe-cache.json');
  const steps = numberFlag('steps', '120');
  const every = numberFlag('every', '20');
  const seed = numberFlag('seed', '1');
  const update = {
    alpha: numberFlag('alpha', '0.5'),
    discount: 1,
    minibatchSize: numberFlag('minibatch', '8'),
  };
  // Out of range (--alpha 2, --minibatch 0): refused now, not by the first update after minutes of sampling.
  try {
    validateSelfAcUpdateOptions({ ...update });
  } catch (error) {
    usageError(`${error.message.replace(/\.$/, '')}.`);
  }
  const rank = numberFlag('rank', '16');
  const lr = numberFlag('lr', '5e-4');
  const lrEnd = numberFlag('lr-end', String(lr));
  const valueLr = flag('value-lr') ? numberFlag('value-lr') : null;
  const emaDecay = numberFlag('ema', '0');
  const monteCarlo = process.argv.includes('--monte-carlo');
  // Read before the model loads and the episodes are sampled (minutes), so that a typo fails at once.
  const trainTasks = numberFlag('train-tasks', '64');
  const heldOutTasks = numberFlag('held-out-tasks', '48');
  const continuations = flag('ceiling') !== undefined ? numberFlag('ceiling') : null;
  const model = await loadModel(WARM_START, { backend: 'wasm', seed });
  if (flag('init')) {
    // --init <dir>: go on from a probe's --save (adapter and value head; Adam's moments start afresh).
    loadAdapter(model, join(flag('init'), 'adapter'), 'policy');
    loadValueHead(model, flag('init'));
  } else {
    model.addAdapter('policy', { rank, alpha: 2 * rank, seed });
    model.addValueHead(seed);
  }
  let data;
  if (existsSync(cache)) data = JSON.parse(readFileSync(cache, 'utf8'));
  else {
    const started = Date.now();
    data = {
      train: await episodesOf(model, 'train', trainTasks, 4, 7),
      heldOut: await episodesOf(model, 'test', heldOutTasks, 2, 99),
    };
    mkdirSync(join(cache, '..'), { recursive: true });
    writeFileSync(cache, JSON.stringify(data));
    console.log(`sampled ${data.train.length} + ${data.heldOut.length} episodes in ${(Date.now() - started) / 1000} s`);
  }
  const format = new ChatTurnFormat(model.tokenizer);
  const criticPrompt = criticPromptTokens(model.tokenizer);
  const pack = (trajectories) =>
    trajectories
      .filter((t) => t.stopReason !== 'error' && t.steps.length > 0)
      .map((t) => packEpisode(t, { format, criticPrompt, discount: 1, maxPositions: model.config.maxPositions }))
      .filter((episode) => episode.row.tokens.length <= 1024);
  const train = pack(data.train);
  const heldOut = pack(data.heldOut);
  const returns = (episodes) => episodes.flatMap((e) => e.vectors.aStart.map((_, k) => e.vectors.returns[k]));
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `train ${train.length} episodes (${returns(train).length} states, mean R ${mean(returns(train)).toFixed(3)}), ` +
      `held-out ${heldOut.length} (${returns(heldOut).length} states, mean R ${mean(returns(heldOut)).toFixed(3)})`,
  );
  if (process.argv.includes('--linear-probe')) return linearProbe(model, train, heldOut);
  if (process.argv.includes('--baselines')) return baselines(data, format, criticPrompt, model.config.maxPositions);
  if (continuations !== null) return ceiling(model, data.heldOut, heldOut, continuations);
  const trainer = new Trainer(model, {
    adapter: 'policy',
    learningRate: lr,
    maxGradNorm: 1,
    valueHead: true,
  });
  // The trained variables (adapter + value head) and, with --ema, their running average.
  const trained = [...model.adapter('policy').variables(), ...model.valueHead.variables()];
  const average = emaDecay > 0 ? trained.map((v) => tf.keep(v.clone())) : null;
  const swap = () => {
    // Exchanges the live weights with the averaged ones (twice = back as they were).
    trained.forEach((v, i) => {
      const live = tf.keep(v.clone());
      v.assign(average[i]);
      average[i].dispose();
      average[i] = live;
    });
  };
  const curve = [];
  const measure = async (episodes) => {
    const pairs = [];
    for (let i = 0; i < episodes.length; i += 8) {
      const batch = episodes.slice(i, i + 8);
      const scored = await model.score(
        batch.map((e) => e.row),
        { adapter: 'policy', values: true },
      );
      batch.forEach((e, b) =>
        e.vectors.aStart.forEach((_, k) =>
          pairs.push({ value: scored.values[b][e.vectors.cpEnd[k]], target: e.vectors.returns[k], k }),
        ),
      );
    }
    const ev = explainedVariance(
      pairs.map((p) => p.value),
      pairs.map((p) => p.target),
    );
    const values = pairs.map((p) => p.value);
    const m = mean(values);
    return { ev, meanV: m, stdV: Math.sqrt(mean(values.map((v) => (v - m) ** 2))), pairs };
  };
  const report = async (step, stats) => {
    // --held-out-only: the train EV only after the last step (each measurement is a forward over every episode).
    const trainToo = !process.argv.includes('--held-out-only') || step === steps;
    const [a, b] = [trainToo ? await measure(train.slice(0, 64)) : null, await measure(heldOut)];
    lastHeldOut = b;
    const heldOutByTurn = evByTurn(b.pairs);
    let c = null;
    if (average && step > 0) {
      swap();
      c = await measure(heldOut);
      swap();
    }
    curve.push({
      step,
      trainEv: a?.ev,
      heldOutEv: b.ev,
      heldOutMeanV: b.meanV,
      heldOutStdV: b.stdV,
      heldOutByTurn,
      emaHeldOutEv: c?.ev,
    });
    console.log(
      `step ${step} (${((Date.now() - t0) / 1000).toFixed(0)} s): ${a ? `train EV ${a.ev.toFixed(3)} (V ${a.meanV.toFixed(3)} ± ${a.stdV.toFixed(3)}), ` : ''}held-out EV ${b.ev.toFixed(3)} (V ${b.meanV.toFixed(3)} ± ${b.stdV.toFixed(3)})` +
        (c ? `, EMA held-out EV ${c.ev.toFixed(3)} (V ${c.meanV.toFixed(3)} ± ${c.stdV.toFixed(3)})` : '') +
        (stats ? `, value loss ${stats.valueLoss.toFixed(4)}, policy loss ${stats.policyLoss.toFixed(4)}` : '') +
        `; held-out ${byTurnLine(heldOutByTurn)}`,
    );
    if (flag('out')) writeFileSync(flag('out'), `${JSON.stringify({ argv: process.argv.slice(2), curve }, null, 2)}\n`);
  };
  let lastHeldOut = null;
  const t0 = Date.now();
  // Step 0 is the warm start with a zero adapter and a fresh head (−0.025 on the cached data): --held-out-only skips it.
  if (!process.argv.includes('--held-out-only')) await report(0);
  const started = Date.now();
  let order = [];
  let position = 0;
  let last;
  for (let step = 1; step <= steps; step += 1) {
    if (position + update.minibatchSize > order.length) {
      order = train
        .map((_, i) => i)
        .sort((i, j) => ((i * 7919 + step * 104729) % 997) - ((j * 7919 + step * 104729) % 997));
      position = 0;
    }
    const batch = order.slice(position, position + update.minibatchSize).map((i) => train[i]);
    position += update.minibatchSize;
    // Linear decay of Adam's step size (tfjs's Adam reads learningRate at every step).
    trainer.optimizer.learningRate = lr + ((lrEnd - lr) * (step - 1)) / Math.max(1, steps - 1);
    // --value-lr: the value head's own step size (its parameter group), decayed in proportion.
    if (valueLr) trainer.setValueLearningRate((valueLr * trainer.optimizer.learningRate) / lr);
    last = monteCarlo
      ? await monteCarloStep(trainer, batch)
      : await selfAcUpdate(trainer, batch, { ...update, seed: step });
    if (average)
      tf.tidy(() =>
        trained.forEach((v, i) => {
          const next = tf.keep(tf.add(tf.mul(average[i], emaDecay), tf.mul(v, 1 - emaDecay)));
          average[i].dispose();
          average[i] = next;
        }),
      );
    if (step % every === 0) await report(step, last);
  }
  console.log(`${steps} steps in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const save = flag('save');
  if (save) {
    await saveAdapter(model, 'policy', join(save, 'adapter'));
    await saveValueHead(model, save);
    if (lastHeldOut)
      writeFileSync(
        join(save, 'critic-calibration.json'),
        `${JSON.stringify(
          {
            split: 'test',
            episodes: heldOut.length,
            source: `critic-probe.js ${process.argv.slice(2).join(' ')} (step ${steps}, live weights)`,
            pairs: lastHeldOut.pairs.map((p) => [p.value, p.target]),
            turns: lastHeldOut.pairs.map((p) => p.k),
          },
          null,
          1,
        )}\n`,
      );
    console.log(`saved the adapter and value head under ${save}`);
  }
}

/**
 * One Adam step of plain Monte-Carlo regression (the `--monte-carlo` diagnostic): the mean over the minibatch's
 * states s_0 … s_(n−1) of (V(s_k) − R_k)², V read at each critic prompt's last token of the packed rows.
 */
async function monteCarloStep(trainer, batch) {
  const total = batch.reduce((sum, e) => sum + e.vectors.aStart.length, 0);
  // Passes of at most 4,096 padded tokens (the update's minibatchTokens), each loss weighted by its share of
  // the states, so the summed gradient is the minibatch mean's.
  const parts = [];
  let current = [];
  for (const episode of batch) {
    const longest = Math.max(episode.row.tokens.length, ...current.map((e) => e.row.tokens.length));
    if (current.length > 0 && (current.length + 1) * longest > 4096) {
      parts.push(current);
      current = [];
    }
    current.push(episode);
  }
  parts.push(current);
  const result = await trainer.stepAccumulated(
    parts.map((part) => {
      const targets = [];
      const places = [];
      part.forEach((e, b) =>
        e.vectors.aStart.forEach((_, k) => {
          places.push([b, e.vectors.cpEnd[k]]);
          targets.push(e.vectors.returns[k]);
        }),
      );
      return {
        rows: part.map((e) => e.row),
        loss: (outputs) => {
          const T = outputs.values.shape[1];
          const picked = tf.gather(
            tf.reshape(outputs.values, [-1]),
            tf.tensor1d(
              places.map(([b, t]) => b * T + t),
              'int32',
            ),
          );
          return tf.div(tf.sum(tf.square(tf.sub(picked, tf.tensor1d(targets)))), total);
        },
      };
    }),
  );
  return { valueLoss: result.loss, policyLoss: 0 };
}

/**
 * The keyed-mean predictors of `--baselines` (header): every kept state s_k with its return R_k and what each
 * key reads of it, on the probe's own filter so the held-out states are the critics' 731.
 */
function baselines(data, format, criticPrompt, maxPositions) {
  const statesOf = (trajectories) =>
    trajectories
      .filter((t) => t.stopReason !== 'error' && t.steps.length > 0)
      .map((t) => ({ t, episode: packEpisode(t, { format, criticPrompt, discount: 1, maxPositions }) }))
      .filter(({ episode }) => episode.row.tokens.length <= 1024)
      .flatMap(({ t, episode }) =>
        episode.vectors.aStart.map((_, k) => ({
          k,
          turn: Math.min(k, 3),
          template: t.initialObservation.replace(/\d+/g, 'N'),
          // s_k is the state after k actions: the anchor the env reported after action k − 1.
          anchor: k === 0 ? 'start' : String(t.steps[k - 1].info.anchor ?? 'start'),
          target: episode.vectors.returns[k],
        })),
      );
  const train = statesOf(data.train);
  const heldOut = statesOf(data.heldOut);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const keys = {
    'turn only': (s) => [s.turn],
    'turn + template': (s) => [s.turn, s.template],
    'turn + anchor': (s) => [s.turn, s.anchor],
    'turn + template + anchor': (s) => [s.turn, s.template, s.anchor],
  };
  const byTurn = new Map();
  // Appended in place: copying each list per state made these loops quadratic in the states.
  const push = (map, key, value) => (map.get(key) ?? map.set(key, []).get(key)).push(value);
  for (const s of train) push(byTurn, s.turn, s.target);
  const turnMean = new Map([...byTurn].map(([turn, targets]) => [turn, mean(targets)]));
  const results = {};
  for (const [name, key] of Object.entries(keys)) {
    const groups = new Map();
    for (const s of train) {
      const id = JSON.stringify(key(s));
      push(groups, id, s.target);
    }
    const pairs = heldOut.map((s) => {
      const prior = turnMean.get(s.turn) ?? 0;
      const seen = groups.get(JSON.stringify(key(s))) ?? [];
      // Shrunk toward the turn's mean: a key seen a few times says little.
      return { value: (seen.reduce((a, b) => a + b, 0) + 5 * prior) / (seen.length + 5), target: s.target, k: s.k };
    });
    const ev = explainedVariance(
      pairs.map((p) => p.value),
      pairs.map((p) => p.target),
    );
    results[name] = { keys: groups.size, heldOutEv: ev, heldOutByTurn: evByTurn(pairs) };
    console.log(`${name}: ${groups.size} keys, held-out EV ${ev.toFixed(3)}; ${byTurnLine(evByTurn(pairs))}`);
  }
  if (flag('out')) {
    writeFileSync(
      flag('out'),
      `${JSON.stringify({ argv: process.argv.slice(2), trainStates: train.length, heldOutStates: heldOut.length, results }, null, 2)}\n`,
    );
  }
}

/**
 * The body's features, frozen: the final hidden state at the end of every critic prompt (where V is read) and,
 * for comparison, at the last state token before it (the same state read without the critic prompt), captured
 * by wrapping the value head's `apply`; then a ridge-regression value head fitted in closed form on the
 * train states' returns and scored on the held-out ones. What a perfectly fitted head alone can explain.
 */
async function linearProbe(model, train, heldOut) {
  const head = model.valueHead;
  const original = head.apply.bind(head);
  const collect = async (episodes) => {
    const rows = { cp: [], state: [], y: [], k: [] };
    for (const episode of episodes) {
      let hidden;
      head.apply = (h) => {
        hidden = h.arraySync();
        return original(h);
      };
      await model.score([episode.row], { adapter: 'policy', values: true });
      episode.vectors.aStart.forEach((_, k) => {
        rows.cp.push(hidden[episode.vectors.cpEnd[k]]);
        rows.state.push(hidden[episode.vectors.cpStart[k] - 1]);
        rows.y.push(episode.vectors.returns[k]);
        rows.k.push(k);
      });
    }
    head.apply = original;
    return rows;
  };
  const started = Date.now();
  const [a, b] = [await collect(train), await collect(heldOut)];
  console.log(`features of ${a.y.length} + ${b.y.length} states in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const position of ['cp', 'state']) {
    for (const ridge of [0.1, 1, 10, 100]) {
      const w = ridgeFit(a[position], a.y, ridge);
      const predict = (x) => x.map((row) => row.reduce((sum, v, i) => sum + v * w[i], w[row.length]));
      console.log(
        `linear head on ${position === 'cp' ? 'cp_end (V as read)' : 'the last state token'}, ridge ${ridge}: ` +
          `train EV ${explainedVariance(predict(a[position]), a.y).toFixed(3)}, held-out EV ${explainedVariance(predict(b[position]), b.y).toFixed(3)}`,
      );
    }
  }
}

/**
 * V^π of every held-out state, estimated by M continuations from it (see the header), and what it explains.
 * `trajectories` are the cached records, `episodes` the packed ones kept (the same filter as the probe).
 */
async function ceiling(model, trajectories, episodes, samples) {
  const registry = installedEnvRegistry();
  const policy = { model, format: new ChatTurnFormat(model.tokenizer) };
  const options = validateRolloutOptions({
    maxActionTokens: 32,
    maxRolloutTokens: 160,
    instructions: false,
    adapter: 'policy',
    seed: 5,
  });
  // The probe's own filter (not errored, at least one step, packed into ≤ 1,024 tokens): the same 274 states.
  const format = policy.format;
  const criticPrompt = criticPromptTokens(model.tokenizer);
  const chosen = trajectories.filter(
    (t) =>
      t.stopReason !== 'error' &&
      t.steps.length > 0 &&
      packEpisode(t, { format, criticPrompt, discount: 1, maxPositions: model.config.maxPositions }).row.tokens
        .length <= 1024,
  );
  if (chosen.length !== episodes.length)
    throw new Error(`kept ${chosen.length} episodes, the probe ${episodes.length}`);
  const started = Date.now();
  const states = [];
  for (const t of chosen) {
    let end = 0;
    let segment = 0;
    // Segment 0 is the prompt; state k ends after 1 + 2k segments (prompt, then action/observation pairs).
    for (let k = 0; k < t.steps.length; k += 1) {
      const upTo = 1 + 2 * k;
      while (segment < upTo) end += t.segments[segment++].tokenCount;
      states.push({ trajectory: t, k, tokens: t.tokens.slice(0, end), segments: t.segments.slice(0, upTo), end });
    }
  }
  const results = [];
  for (let i = 0; i < states.length; i += 12) {
    const chunk = states.slice(i, i + 12);
    const starts = [];
    const opened = [];
    for (const [c, state] of chunk.entries()) {
      const t = state.trajectory;
      const env = await registry.make(ENV_ID, { options: { ...ENV_OPTIONS, split: 'test' } });
      opened.push(env);
      await env.reset({ seed: t.seed });
      for (const step of t.steps.slice(0, state.k)) await env.step(step.action);
      const steps = t.steps.slice(0, state.k);
      const prefix = {
        instructions: null,
        initialObservation: t.initialObservation,
        tokens: state.tokens,
        segments: state.segments,
        logprobs: t.logprobs.slice(0, state.end),
        steps,
        reward: steps.reduce((sum, step) => sum + step.reward, 0),
        cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
        pathGenerated: state.segments.filter((x) => x.kind === 'action').reduce((sum, x) => sum + x.tokenCount, 0),
        pathToolCalls: 0,
      };
      for (let m = 0; m < samples; m += 1) {
        starts.push({
          id: `c${i + c}/m${m}`,
          envId: ENV_ID,
          seed: t.seed,
          group: c,
          sampleSeed: mixSeed(mixSeed(5, i + c), m),
          env: await env.fork(),
          prefix,
        });
      }
    }
    const rollouts = await runRollouts(policy, starts, options);
    await Promise.all(opened.map((env) => env.close().catch(() => undefined)));
    chunk.forEach((state, c) => {
      const mine = rollouts.filter((r) => r.group === c);
      const before = state.trajectory.steps.slice(0, state.k).reduce((a, step) => a + step.reward, 0);
      // The return from s_k of each continuation (a rollout's total counts its prefix's rewards too).
      const returns = mine.map((r) => r.totalReward - before);
      const vHat = returns.reduce((a, b) => a + b, 0) / returns.length;
      results.push({
        task: state.trajectory.seed,
        episode: state.trajectory.episodeId,
        k: state.k,
        vHat,
        // V̂'s own sampling variance, unbiased: s² / M with s² over M − 1.
        vHatVariance:
          returns.reduce((a, x) => a + (x - vHat) ** 2, 0) / Math.max(1, returns.length - 1) / returns.length,
        samples: mine.length,
        errors: mine.filter((r) => r.stopReason === 'error').length,
        ret: state.trajectory.totalReward - state.trajectory.steps.slice(0, state.k).reduce((a, s) => a + s.reward, 0),
      });
    });
    console.log(`${results.length} / ${states.length} states (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  const evOf = (rows) => {
    const r = rows.map((x) => x.ret);
    const m = r.reduce((a, b) => a + b, 0) / r.length;
    const varR = r.reduce((a, b) => a + (b - m) ** 2, 0) / r.length;
    const res = rows.map((x) => x.ret - x.vHat);
    const mr = res.reduce((a, b) => a + b, 0) / res.length;
    const varRes = res.reduce((a, b) => a + (b - mr) ** 2, 0) / res.length;
    const noise = rows.reduce((a, x) => a + x.vHatVariance, 0) / rows.length;
    return { raw: 1 - varRes / varR, corrected: 1 - (varRes - noise) / varR };
  };
  const all = evOf(results);
  const tasks = [...new Set(results.map((x) => x.task))];
  const rng = new SeededRng(1);
  const boot = [];
  for (let b = 0; b < 1000; b += 1) {
    const pick = tasks.map(() => tasks[rng.int(0, tasks.length - 1)]);
    boot.push(evOf(pick.flatMap((task) => results.filter((x) => x.task === task))).corrected);
  }
  boot.sort((a, b) => a - b);
  const byTurn = [0, 1, 2].map((k) => {
    const rows = k < 2 ? results.filter((x) => x.k === k) : results.filter((x) => x.k >= 2);
    return { turns: k < 2 ? String(k) : '2+', states: rows.length, ...evOf(rows) };
  });
  const summary = {
    samplesPerState: samples,
    states: results.length,
    episodes: chosen.length,
    tasks: tasks.length,
    meanReturn: results.reduce((a, x) => a + x.ret, 0) / results.length,
    evRaw: all.raw,
    evCorrected: all.corrected,
    bootstrap90: [boot[50], boot[949]],
    byTurn,
    seconds: (Date.now() - started) / 1000,
  };
  console.log(JSON.stringify(summary, null, 2));
  if (flag('out')) writeFileSync(flag('out'), `${JSON.stringify({ summary, results }, null, 2)}\n`);
}

/** Least squares with an L2 penalty (not on the bias), by Gaussian elimination on the normal equations. */
function ridgeFit(x, y, ridge) {
  const d = x[0].length + 1;
  const A = Array.from({ length: d }, () => new Float64Array(d + 1));
  x.forEach((row, n) => {
    const z = [...row, 1];
    for (let i = 0; i < d; i += 1) {
      for (let j = 0; j < d; j += 1) A[i][j] += z[i] * z[j];
      A[i][d] += z[i] * y[n];
    }
  });
  for (let i = 0; i < d - 1; i += 1) A[i][i] += ridge;
  for (let c = 0; c < d; c += 1) {
    let pivot = c;
    for (let r = c + 1; r < d; r += 1) if (Math.abs(A[r][c]) > Math.abs(A[pivot][c])) pivot = r;
    [A[c], A[pivot]] = [A[pivot], A[c]];
    for (let r = 0; r < d; r += 1) {
      if (r === c || A[c][c] === 0) continue;
      const f = A[r][c] / A[c][c];
      for (let j = c; j <= d; j += 1) A[r][j] -= f * A[c][j];
    }
  }
  return Array.from({ length: d }, (_, i) => (A[i][i] === 0 ? 0 : A[i][d] / A[i][i]));
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
