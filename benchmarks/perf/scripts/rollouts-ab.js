#!/usr/bin/env node
/**
 * Rollouts only (no updates) of the rollouts section's cases, chains (G = 4) against trees (M = 2, N = 2,
 * L = 1) on tiny-1m, wasm, one thread: CPU time of each method on the same prompts and sampling seeds, and a
 * digest of every rollout's tokens (equal digests = the same tokens were sampled). With --ab, each iteration
 * also runs "before" on the same seeds: every decode step copying the whole KV cache into a new buffer and
 * every fork or prefix view of a cache copying it (the generation code before issue 32's fourth round: the
 * in-place append and shared forks), so before and after come from one process under the same load; their
 * digests must be equal (the same bytes are computed). The third round's A/B (node completion, fused weights
 * kept, float32 attention) is in git history (`git show a5a2ce8:benchmarks/perf/scripts/rollouts-ab.js`).
 *
 *   node benchmarks/perf/scripts/rollouts-ab.js [--iterations 2] [--only math,wiki,long] [--ab]
 *
 *   node benchmarks/perf/scripts/rollouts-ab.js --help    (this text; runs nothing)
 *
 * Needs a build (`npx tsc -b benchmarks/perf`).
 */
if (process.argv.includes('--help')) {
  process.stdout.write(require('../../../scripts/header-usage').headerUsage(__filename));
  process.exit(0);
}
const crypto = require('node:crypto');
const os = require('node:os');
const { mixSeed, SeededRng } = require('@turngym/core');
const { loadModel } = require('@turngym/lm');
const { ChatTurnFormat, collectChains, collectTrees, installedEnvRegistry } = require('@turngym/rl');

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const iterations = Number(flag('--iterations', '2'));
const only = flag('--only', 'math,wiki,long').split(',');
const distFile = (pkg, file) => require(require.resolve(pkg).replace(/index\.js$/, file));
const ab = args.includes('--ab');

/**
 * Issue 32's fourth round on (the build as it is) or off (the code before it), for --ab: decode steps append to
 * a preallocated KV cache in place (off: each copies the whole cache), forks and prefix views share their
 * cache's memory (off: each copies it).
 */
function useThisRound(on) {
  distFile('@turngym/lm', 'internal/wasm-cached-attention.js').useInPlaceAppend(on);
  distFile('@turngym/lm', 'kv-cache.js').useSharedForks(on);
}

const MATH = { difficulties: [1], kinds: ['arithmetic'] };
const CASES = [
  { label: 'math', envId: 'turngym/math-thought-v1', envOptions: MATH, promptSeed: 1 },
  {
    label: 'wiki',
    envId: 'turngym/wiki-qa-compact-v1',
    envOptions: { questionTypes: ['bridge', 'comparison'], minHops: 2, maxHops: 3 },
    promptSeed: 2,
  },
  { label: 'long', envId: 'turngym/math-thought-v1', envOptions: MATH, promptSeed: 3, caps: { maxRolloutTokens: 128 } },
];

const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function main() {
  const registry = installedEnvRegistry();
  const model = await loadModel('tiny-1m', { backend: 'wasm', seed: 1 });
  model.addAdapter('policy', { rank: 16, alpha: 32, seed: 1 });
  const policy = { model, format: new ChatTurnFormat(model.tokenizer) };
  for (const envCase of CASES.filter((c) => only.includes(c.label))) {
    const makeEnv = () => registry.make(envCase.envId, { options: envCase.envOptions });
    const options = (iteration) => ({
      maxActionTokens: 16,
      maxRolloutTokens: 64,
      maxObservationTokens: 24,
      ...envCase.caps,
      instructions: false,
      adapter: 'policy',
      temperature: 1,
      topP: 1,
      seed: mixSeed(1, iteration),
    });
    const run = async (method, seeds, iteration) => {
      const started = process.cpuUsage();
      const trajectories =
        method === 'chains'
          ? await collectChains({
              policy,
              makeEnv,
              envId: envCase.envId,
              seeds,
              groupSize: 4,
              options: options(iteration),
            })
          : (
              await collectTrees({
                policy,
                makeEnv,
                envId: envCase.envId,
                seeds,
                shape: { trees: 2, branches: 2, rounds: 1 },
                options: options(iteration),
              })
            ).trajectories;
      const ms = cpuMs(started);
      const hash = crypto.createHash('sha1');
      for (const trajectory of trajectories) hash.update(JSON.stringify(trajectory.tokens));
      return { ms, rollouts: trajectories.length, digest: hash.digest('hex').slice(0, 8) };
    };
    // Warm-up at the measured size (wasm's heap grows to the largest batch once).
    const warmUp = Array.from({ length: 8 }, (_, i) => 1 + i);
    for (const method of ['chains', 'trees']) await run(method, warmUp, -1);
    const rng = new SeededRng(mixSeed(9, envCase.promptSeed));
    const modes = ab ? ['after', 'before'] : ['after'];
    const tally = Object.fromEntries(modes.map((mode) => [mode, { chains: 0, trees: 0, digests: [] }]));
    const load = os.loadavg()[0];
    for (let iteration = 0; iteration < iterations; iteration++) {
      const seeds = Array.from({ length: 8 }, () => rng.int(0, 2 ** 31 - 1));
      // Orders alternate across iterations: which mode and which method goes first.
      for (const mode of iteration % 2 === 0 ? modes : [...modes].reverse()) {
        if (ab) useThisRound(mode === 'after');
        for (const method of iteration % 2 === 0 ? ['chains', 'trees'] : ['trees', 'chains']) {
          const result = await run(method, seeds, iteration);
          tally[mode][method] += result.ms;
          tally[mode].digests.push(`${method[0]}${iteration}:${result.digest}`);
        }
      }
    }
    if (ab) useThisRound(true);
    for (const mode of modes) {
      const { chains, trees, digests } = tally[mode];
      // 48 tree rollouts against 32 chains per iteration.
      const ratio = (48 / trees / (32 / chains)).toFixed(3);
      console.log(
        `${envCase.label} ${mode}: CPU s chains ${(chains / 1000).toFixed(2)} trees ${(trees / 1000).toFixed(2)}, ` +
          `trees/chains rollouts per CPU-second ${ratio}; load ${load.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}; ` +
          `digests ${[...digests].sort().join(' ')}`,
      );
    }
  }
  model.dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
