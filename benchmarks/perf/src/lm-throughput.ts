import { availableParallelism } from 'node:os';
import {
  LanguageModel,
  TINY_CONFIGS,
  Trainer,
  backendInfo,
  isBackendAvailable,
  parameterCount,
  tf,
  tokenCrossEntropyLoss,
  useBackend,
  type ModelConfig,
  type TinyConfigName,
} from '@turngym/lm';

/**
 * @turngym/lm throughput: training tokens/s (forward + backward + Adam, full fine-tuning) and generation
 * tokens/s at batch 1 and 16, for each tiny config on wasm (one thread, then one per core: `wasm ×n`) and cpu;
 * achieved GFLOP/s against a plain matmul measured on the same backend in the same run (goal: training at
 * tiny-8m ≥ 40% of it); and tfjs bytes per parameter during training (weights + Adam moments + the step's
 * peak activations).
 * The cpu backend is ~30× slower than wasm, so it trains on a smaller batch (stated in the table).
 */
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Median GFLOP/s of an n×n×n float32 matmul. */
async function matmulCeiling(size: number, durationMs: number): Promise<number> {
  const a = tf.randomNormal([size, size]);
  const b = tf.randomNormal([size, size]);
  const rates: number[] = [];
  const deadline = performance.now() + durationMs;
  do {
    const start = performance.now();
    const c = tf.matMul(a, b);
    await c.data();
    c.dispose();
    rates.push((2 * size ** 3) / ((performance.now() - start) / 1000) / 1e9);
  } while (performance.now() < deadline || rates.length < 3);
  tf.dispose([a, b]);
  rates.sort((x, y) => x - y);
  return rates[Math.floor(rates.length / 2)] as number;
}

/** Training FLOPs per token: 6·params (matmuls, fwd + bwd) + 12·layers·T·(heads·headDim) for attention. */
function trainingFlopsPerToken(config: ModelConfig, sequenceLength: number): number {
  return 6 * parameterCount(config) + 12 * config.numLayers * sequenceLength * config.numHeads * config.headDim;
}

interface TrainingFigures {
  tokensPerSecond: number;
  gflops: number;
  bytesPerParameter: number;
}

async function training(
  config: ModelConfig,
  batch: number,
  length: number,
  durationMs: number,
): Promise<TrainingFigures> {
  const model = LanguageModel.create(config, { seed: 1 });
  const rows = Array.from({ length: batch }, (_, b) => ({
    tokens: Array.from({ length }, (_, t) => (b * 31 + t * 7) % 256),
  }));
  const trainer = new Trainer(model, { base: true, learningRate: 1e-4 });
  const before = tf.memory().numBytes;
  const profile = await tf.profile(async () => {
    await trainer.step(rows, tokenCrossEntropyLoss); // warm-up; also creates Adam's moments
    return [];
  });
  const persistent = tf.memory().numBytes - before; // Adam's two moments (the weights were counted before)
  const weights = parameterCount(config) * 4;
  const bytesPerParameter = (weights + persistent + (profile.peakBytes - profile.newBytes)) / parameterCount(config);
  let steps = 0;
  const start = performance.now();
  do {
    await trainer.step(rows, tokenCrossEntropyLoss);
    steps += 1;
  } while (performance.now() - start < durationMs);
  const seconds = (performance.now() - start) / 1000;
  trainer.dispose();
  model.dispose();
  const tokensPerSecond = (steps * batch * length) / seconds;
  return {
    tokensPerSecond,
    gflops: (tokensPerSecond * trainingFlopsPerToken(config, length)) / 1e9,
    bytesPerParameter,
  };
}

async function generation(config: ModelConfig, batch: number, maxTokens: number): Promise<number> {
  const model = LanguageModel.create(config, { seed: 2 });
  const requests = Array.from({ length: batch }, (_, b) => ({
    tokens: Array.from({ length: 16 }, (_, t) => (b * 13 + t * 5) % 256),
  }));
  model.generate(requests, { maxTokens: 2, stopTokenIds: [] }); // warm-up
  const start = performance.now();
  const results = model.generate(requests, { maxTokens, stopTokenIds: [], seed: 1 });
  const seconds = (performance.now() - start) / 1000;
  model.dispose();
  return results.reduce((sum, result) => sum + result.tokens.length, 0) / seconds;
}

export async function lmThroughput(options: { durationMs: number }): Promise<string[]> {
  const lines = [
    '| backend | config | params | train batch | train tokens/s | train GFLOP/s | vs matmul ceiling | bytes/param (train) | gen tokens/s b=1 | gen tokens/s b=16 |',
    '|---|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  const ceilings: string[] = [];
  const cores = Math.min(availableParallelism(), 8);
  const variants: { backend: 'wasm' | 'cpu'; threads: number }[] = [
    { backend: 'wasm', threads: 1 },
    ...(cores > 1 ? [{ backend: 'wasm' as const, threads: cores }] : []),
    { backend: 'cpu', threads: 1 },
  ];
  for (const { backend, threads } of variants) {
    if (!isBackendAvailable(backend)) continue;
    await useBackend(backend, { threads });
    const info = backendInfo();
    const label = backend === 'wasm' ? `wasm ×${info.threads}` : backend;
    const fast = backend !== 'cpu';
    const ceilingSize = fast ? 1024 : 384;
    const ceiling = await matmulCeiling(ceilingSize, Math.min(options.durationMs, 2000));
    ceilings.push(`${label}: ${fmt(ceiling, 1)} GFLOP/s (${ceilingSize}³ float32 matmul, median)`);
    // tiny-100m is the GPU's config (the webgpu section): on these backends one step takes minutes.
    for (const name of (Object.keys(TINY_CONFIGS) as TinyConfigName[]).filter((name) => name !== 'tiny-100m')) {
      const config = TINY_CONFIGS[name];
      const [batch, length] = fast ? [8, 128] : [1, 32];
      const train = await training(config, batch, length, options.durationMs);
      const generated = fast ? 32 : 4;
      const single = await generation(config, 1, generated);
      const batched = await generation(config, 16, generated);
      lines.push(
        `| ${label} | ${name} | ${fmt(parameterCount(config) / 1e6, 1)}M | ${batch}×${length} | ${fmt(train.tokensPerSecond)} | ${fmt(train.gflops, 1)} | ` +
          `${fmt((100 * train.gflops) / ceiling)}% | ${fmt(train.bytesPerParameter, 1)} | ${fmt(single, 1)} | ${fmt(batched, 1)} |`,
      );
    }
  }
  return [...lines, '', `Matmul ceilings: ${ceilings.join('; ')}.`];
}
