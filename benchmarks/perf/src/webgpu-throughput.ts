import {
  LanguageModel,
  TINY_CONFIGS,
  Trainer,
  backendInfo,
  parameterCount,
  tf,
  tokenCrossEntropyLoss,
  useBackend,
  type ModelConfig,
  type TinyConfigName,
  type WebGpuAdapterInfo,
} from '@turngym/lm';

/**
 * The webgpu backend against wasm, measured in the same run (issue 30 item 4): a float32 matmul's GFLOP/s
 * at a few sizes, and full fine-tuning's tokens/s (forward + backward + Adam) per built-in config. On a
 * CPU-only machine the adapter is Mesa's llvmpipe (a software rasteriser): the figures then say what the
 * GPU path costs where there is no GPU, not what a GPU gives; the GPU kit (scripts/gpu-kit) runs the same
 * code on a GPU machine.
 */
export interface WebGpuThroughputOptions {
  /** Per measurement (the matmul's, each config's training). */
  readonly durationMs: number;
  readonly configs: readonly TinyConfigName[];
  readonly matmulSizes: readonly number[];
  readonly batch: number;
  readonly length: number;
  /**
   * Configs that run one step of one row only, on webgpu alone (the largest: a step of `batch` rows takes
   * minutes on the software adapter, and longer on wasm). Its time includes the shader compiles.
   */
  readonly oneStep?: readonly TinyConfigName[];
  /**
   * Configs measured on webgpu alone, at the full batch: wasm is not tried (a 104M config's wasm step runs for
   * more than ten minutes before it fails out of its 4 GB heap, device time a GPU kit run cannot spare).
   */
  readonly webgpuOnly?: readonly TinyConfigName[];
  /** Called with a line per figure as it is measured, so a run cut short still shows what it reached. */
  readonly log?: (line: string) => void;
}

export interface MatmulRow {
  readonly size: number;
  readonly wasm: number;
  readonly webgpu: number;
}

export interface TrainingRow {
  readonly config: TinyConfigName;
  readonly parameters: number;
  readonly batch: number;
  readonly length: number;
  /** Tokens/s; null where the config was not run on wasm (`webgpuOnly`, one-step) or failed there (`wasmError`). */
  readonly wasm: number | null;
  /**
   * Why wasm has no figure, where it failed: a 100M config's full fine-tuning outgrows wasm's 4 GB heap (on an
   * H200 machine XNNPACK could not allocate its fully-connected operator).
   */
  readonly wasmError?: string;
  readonly webgpu: number;
  /** Training FLOPs per second on webgpu (6·params + attention per token). */
  readonly webgpuGflops: number;
  readonly steps: number;
  readonly webgpuLoss: number;
}

export interface WebGpuThroughput {
  readonly adapter: WebGpuAdapterInfo;
  readonly wasmThreads: number | null;
  readonly matmul: MatmulRow[];
  readonly training: TrainingRow[];
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** GFLOP/s of an n×n×n float32 matmul: products queued back to back, read once (a GPU runs them in order). */
export async function matmulGflops(size: number, durationMs: number): Promise<number> {
  const a = tf.randomNormal([size, size], 0, 1, 'float32', 1);
  const b = tf.randomNormal([size, size], 0, 1, 'float32', 2);
  const run = async (count: number): Promise<number> => {
    const start = performance.now();
    let last: tf.Tensor | null = null;
    for (let i = 0; i < count; i++) {
      last?.dispose();
      last = tf.matMul(a, b);
    }
    await last!.data();
    last!.dispose();
    return (performance.now() - start) / 1000;
  };
  await run(1); // compiles the shader / warms the kernel
  const once = await run(1);
  // Enough products per timing that a read-back and the queue's start-up are a small part of it.
  const count = Math.max(1, Math.min(64, Math.round(0.25 / Math.max(once, 1e-4))));
  const rates: number[] = [];
  const deadline = performance.now() + durationMs;
  do {
    const seconds = await run(count);
    rates.push((count * 2 * size ** 3) / seconds / 1e9);
  } while (performance.now() < deadline && rates.length < 20);
  tf.dispose([a, b]);
  rates.sort((x, y) => x - y);
  return rates[Math.floor(rates.length / 2)] as number;
}

/** Training FLOPs per token: 6·params (matmuls, fwd + bwd) + 12·layers·T·(heads·headDim) for attention. */
export function trainingFlopsPerToken(config: ModelConfig, length: number): number {
  return 6 * parameterCount(config) + 12 * config.numLayers * length * config.numHeads * config.headDim;
}

/** Rows of a fixed text-like token pattern (deterministic; what is learned does not matter here). */
function batchRows(batch: number, length: number): { tokens: number[] }[] {
  return Array.from({ length: batch }, (_, b) => ({
    tokens: Array.from({ length }, (_, t) => (b * 31 + t * 7) % 256),
  }));
}

/** Tokens/s of full fine-tuning; `minSteps` timed steps at least, after one untimed (compiles, makes Adam's moments). */
export async function trainingTokensPerSecond(
  config: ModelConfig,
  batch: number,
  length: number,
  durationMs: number,
  minSteps = 2,
): Promise<{ tokensPerSecond: number; steps: number; loss: number }> {
  const model = LanguageModel.create(config, { seed: 1 });
  const rows = batchRows(batch, length);
  const trainer = new Trainer(model, { base: true, learningRate: 1e-4 });
  try {
    await trainer.step(rows, tokenCrossEntropyLoss);
    let steps = 0;
    let loss = NaN;
    const start = performance.now();
    do {
      loss = (await trainer.step(rows, tokenCrossEntropyLoss)).loss;
      steps += 1;
    } while (performance.now() - start < durationMs || steps < minSteps);
    const seconds = (performance.now() - start) / 1000;
    return { tokensPerSecond: (steps * batch * length) / seconds, steps, loss };
  } finally {
    trainer.dispose();
    model.dispose();
  }
}

/** One step with no warm-up before it (the one-step configs): its tokens/s includes the shader compiles. */
async function oneStep(
  config: ModelConfig,
  batch: number,
  length: number,
): Promise<{ tokensPerSecond: number; loss: number }> {
  const model = LanguageModel.create(config, { seed: 1 });
  const trainer = new Trainer(model, { base: true, learningRate: 1e-4 });
  try {
    const start = performance.now();
    const { loss } = await trainer.step(batchRows(batch, length), tokenCrossEntropyLoss);
    return { tokensPerSecond: (batch * length) / ((performance.now() - start) / 1000), loss };
  } finally {
    trainer.dispose();
    model.dispose();
  }
}

/** Measures wasm, then webgpu, in this process; the wasm backend runs on TURNGYM_LM_THREADS threads (default 1). */
export async function webGpuThroughput(options: WebGpuThroughputOptions): Promise<WebGpuThroughput> {
  await useBackend('wasm');
  const wasmThreads = backendInfo().threads;
  const wasmMatmul = new Map<number, number>();
  for (const size of options.matmulSizes) wasmMatmul.set(size, await matmulGflops(size, options.durationMs));
  const oneStepConfigs = new Set(options.oneStep ?? []);
  const webgpuOnly = new Set(options.webgpuOnly ?? []);
  const log = options.log ?? ((): void => undefined);
  for (const [size, gflops] of wasmMatmul) log(`wasm matmul ${size}³: ${fmt(gflops, 1)} GFLOP/s`);
  const wasmTraining = new Map<TinyConfigName, number | Error>();
  for (const name of options.configs) {
    if (oneStepConfigs.has(name) || webgpuOnly.has(name)) continue;
    // One config failing on wasm (out of memory) must not cost the webgpu figures that follow.
    try {
      const figures = await trainingTokensPerSecond(
        TINY_CONFIGS[name],
        options.batch,
        options.length,
        options.durationMs,
      );
      wasmTraining.set(name, figures.tokensPerSecond);
      log(`wasm ${name}: ${fmt(figures.tokensPerSecond, 1)} tokens/s`);
    } catch (error) {
      wasmTraining.set(name, error as Error);
      log(`wasm ${name}: failed (${(error as Error).message})`);
    }
  }

  await useBackend('webgpu');
  const adapter = backendInfo().adapter!;
  const matmul: MatmulRow[] = [];
  for (const size of options.matmulSizes) {
    matmul.push({ size, wasm: wasmMatmul.get(size)!, webgpu: await matmulGflops(size, options.durationMs) });
    log(`webgpu matmul ${size}³: ${fmt(matmul.at(-1)!.webgpu, 1)} GFLOP/s`);
  }
  const training: TrainingRow[] = [];
  for (const name of options.configs) {
    const config = TINY_CONFIGS[name];
    const batch = oneStepConfigs.has(name) ? 1 : options.batch;
    const figures = oneStepConfigs.has(name)
      ? { ...(await oneStep(config, batch, options.length)), steps: 1 }
      : await trainingTokensPerSecond(config, batch, options.length, options.durationMs);
    log(`webgpu ${name}: ${fmt(figures.tokensPerSecond, 1)} tokens/s`);
    const wasm = wasmTraining.get(name);
    training.push({
      config: name,
      parameters: parameterCount(config),
      batch,
      length: options.length,
      wasm: typeof wasm === 'number' ? wasm : null,
      ...(wasm instanceof Error ? { wasmError: wasm.message } : {}),
      webgpu: figures.tokensPerSecond,
      webgpuGflops: (figures.tokensPerSecond * trainingFlopsPerToken(config, options.length)) / 1e9,
      steps: figures.steps,
      webgpuLoss: figures.loss,
    });
  }
  return { adapter, wasmThreads, matmul, training };
}

/** The figures as markdown: the adapter, the matmul table, the training table. */
export function webGpuTables(result: WebGpuThroughput): string[] {
  const { adapter } = result;
  const ceiling = Math.max(...result.matmul.map((row) => row.webgpu));
  return [
    `Adapter: ${adapter.description || adapter.device || adapter.vendor} (Dawn ${adapter.backend}, ${adapter.featureLevel} feature level${adapter.software ? ', **software**' : ''}); wasm on ${result.wasmThreads ?? '?'} thread(s).`,
    '',
    '| float32 matmul | wasm GFLOP/s | webgpu GFLOP/s | webgpu / wasm |',
    '|---|---:|---:|---:|',
    ...result.matmul.map(
      (row) => `| ${row.size}³ | ${fmt(row.wasm, 1)} | ${fmt(row.webgpu, 1)} | ${fmt(row.webgpu / row.wasm, 2)}× |`,
    ),
    '',
    '| config | params | batch | wasm tokens/s | webgpu tokens/s | webgpu / wasm | webgpu train GFLOP/s | vs webgpu matmul best | steps timed |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
    ...result.training.map(
      (row) =>
        `| ${row.config} | ${fmt(row.parameters / 1e6, 1)}M | ${row.batch}×${row.length} | ${row.wasm === null ? (row.wasmError ? '— (failed)' : '—') : fmt(row.wasm, 1)} | ${fmt(row.webgpu, 1)} | ${row.wasm === null ? '—' : `${fmt(row.webgpu / row.wasm, 2)}×`} | ${fmt(row.webgpuGflops, 2)} | ${fmt((100 * row.webgpuGflops) / ceiling)}% | ${row.steps === 1 ? '1 (with compiles)' : row.steps} |`,
    ),
    ...result.training.filter((row) => row.wasmError).map((row) => `\nwasm failed on ${row.config}: ${row.wasmError}`),
  ];
}
