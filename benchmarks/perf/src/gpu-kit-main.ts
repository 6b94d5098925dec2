/**
 * The GPU kit's one script (scripts/gpu-kit/build.js bundles it with esbuild; docs/gpu.md has the commands).
 * A GPU machine need not have Node or this repository: the kit carries Node, Dawn (`dawn.node`), this
 * bundle and the Vulkan loader, and `run.sh` points the loader and Dawn at them. It prints what the machine
 * offers (the adapter Dawn finds, or why none), the webgpu-vs-wasm benchmark of the perf `webgpu` section,
 * and a short training run on webgpu; `--json <file>` also writes the figures.
 *
 * Flags: --configs a,b (default tiny-1m,tiny-8m,tiny-30m,tiny-100m), --one-step a,b (default none),
 * --webgpu-only a,b (of --configs, measured at the full batch on webgpu alone: no wasm figure), --batch
 * 8x128, --duration <ms per measurement> (default 3000), --matmul 1024,2048,4096, --train-config tiny-8m,
 * --train-steps 30 (0 = none), --generate 64,256,1024 (rows; default none: sampled generation's tokens/s per
 * batch size, tiny-1m, on webgpu and wasm, and on webgpu with the fused decoder off), --json <file>.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ByteTokenizer,
  LanguageModel,
  TINY_CONFIGS,
  Trainer,
  backendInfo,
  tokenCrossEntropyLoss,
  useBackend,
  vulkanDriverFiles,
  webGpuAdapter,
  type TinyConfigName,
} from '@turngym/lm';
import { generationTable, generationThroughput } from './generation-throughput';
import { webGpuTables, webGpuThroughput, type WebGpuThroughput } from './webgpu-throughput';

function flag(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

function configs(text: string): TinyConfigName[] {
  const names = text.split(',').filter((name) => name !== '' && name !== 'none');
  for (const name of names) {
    if (!(name in TINY_CONFIGS))
      throw new RangeError(`${name} is not a built-in config (${Object.keys(TINY_CONFIGS).join(', ')})`);
  }
  return names as TinyConfigName[];
}

const TEXT =
  'the cat sat on the mat. the dog sat on the log. a bird sang in the tree while the sun rose over the hill. ';

/** Trains a fresh config on a repeated text on webgpu: the loss must fall, and tokens/s says how fast. */
async function shortTrainingRun(name: TinyConfigName, steps: number, batch: number, length: number) {
  await useBackend('webgpu');
  const tokenizer = new ByteTokenizer();
  const tokens = tokenizer.encode(TEXT.repeat(Math.ceil((batch * 8 + length) / TEXT.length) + 1));
  const rows = Array.from({ length: batch }, (_, b) => ({ tokens: tokens.slice(b * 8, b * 8 + length) }));
  const model = LanguageModel.create(TINY_CONFIGS[name], { seed: 1 });
  const trainer = new Trainer(model, { base: true, learningRate: 1e-3 });
  const losses: number[] = [];
  const start = performance.now();
  for (let step = 0; step < steps; step++) losses.push((await trainer.step(rows, tokenCrossEntropyLoss)).loss);
  const seconds = (performance.now() - start) / 1000;
  trainer.dispose();
  model.dispose();
  return { config: name, steps, batch, length, losses, tokensPerSecond: (steps * batch * length) / seconds };
}

async function main(): Promise<void> {
  // The kit's run.sh sets these; set here too so `node kit.js` beside dawn.node works alone.
  process.env.TURNGYM_DAWN_NODE ??= join(__dirname, 'dawn.node');
  process.env.TURNGYM_WEBGPU_BUNDLED = '1';
  const [batch, length] = flag('batch', '8x128').split('x').map(Number) as [number, number];
  const adapter = await webGpuAdapter();
  const out: Record<string, unknown> = {
    node: process.version,
    vulkanDrivers: vulkanDriverFiles(),
    ldLibraryPath: process.env.LD_LIBRARY_PATH ?? '',
    adapter,
  };
  console.log(`node ${process.version}; Vulkan drivers: ${vulkanDriverFiles().join(', ') || 'none'}`);
  if (typeof adapter === 'string') {
    console.log(`No webgpu adapter: ${adapter}`);
    if (flag('json', '') !== '') writeFileSync(flag('json', ''), `${JSON.stringify(out, null, 2)}\n`);
    process.exit(1);
  }
  console.log(`Adapter: ${JSON.stringify(adapter)}`);
  const oneStep = configs(flag('one-step', 'none'));
  const webgpuOnly = configs(flag('webgpu-only', 'none'));
  const benchmark: WebGpuThroughput = await webGpuThroughput({
    durationMs: Number(flag('duration', '3000')),
    configs: [...configs(flag('configs', 'tiny-1m,tiny-8m,tiny-30m,tiny-100m')), ...oneStep],
    oneStep,
    webgpuOnly,
    matmulSizes: flag('matmul', adapter.software ? '256,512' : '1024,2048,4096')
      .split(',')
      .map(Number),
    batch,
    length,
    log: (line) => console.log(line),
  });
  out.benchmark = benchmark;
  console.log(['', ...webGpuTables(benchmark), ''].join('\n'));
  const generateRows = flag('generate', 'none')
    .split(',')
    .filter((text) => text !== 'none')
    .map(Number);
  if (generateRows.length > 0) {
    const generation = await generationThroughput({
      config: 'tiny-1m',
      batches: generateRows,
      backends: ['webgpu', 'wasm'],
      opsOn: ['webgpu'],
      log: (line) => console.log(line),
    });
    out.generation = generation;
    console.log(['', ...generationTable(generation), ''].join('\n'));
  }
  const trainSteps = Number(flag('train-steps', '30'));
  if (trainSteps > 0) {
    const run = await shortTrainingRun(configs(flag('train-config', 'tiny-8m'))[0]!, trainSteps, batch, length);
    out.training = run;
    console.log(
      `Short training run, ${run.config} on webgpu (${backendInfo().adapter?.device ?? ''}), ${run.batch}×${run.length} tokens, ${run.steps} Adam steps: ` +
        `loss ${run.losses[0]!.toFixed(3)} → ${run.losses.at(-1)!.toFixed(3)}, ${run.tokensPerSecond.toFixed(1)} tokens/s`,
    );
  }
  if (flag('json', '') !== '') writeFileSync(flag('json', ''), `${JSON.stringify(out, null, 2)}\n`);
  // tfjs-wasm's thread pool (TURNGYM_LM_THREADS > 1) keeps no process alive, but Dawn's instance may.
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
