import { TINY_CONFIGS, webGpuAdapter, type TinyConfigName } from '@turngym/lm';
import { generationTable, generationThroughput } from './generation-throughput';
import { webGpuTables, webGpuThroughput } from './webgpu-throughput';

/** A comma-separated list of built-in config names from the environment, checked. */
function configList(name: string, fallback: string): TinyConfigName[] {
  const names = (process.env[name]?.trim() || fallback).split(',').filter((config) => config !== '');
  const unknown = names.filter((config) => !(config in TINY_CONFIGS));
  if (unknown.length > 0) {
    throw new RangeError(
      `${name}: ${unknown.join(', ')} is not a built-in config (${Object.keys(TINY_CONFIGS).join(', ')})`,
    );
  }
  return names as TinyConfigName[];
}

/**
 * `--only webgpu` (issue 30 item 4): the webgpu backend against wasm in the same run. Configs from
 * TURNGYM_BENCH_WEBGPU_CONFIGS (default tiny-1m,tiny-8m), one-step configs from TURNGYM_BENCH_WEBGPU_ONE_STEP
 * (default tiny-100m; `none` for none), batch from TURNGYM_BENCH_WEBGPU_BATCH (default 8x128). Without an
 * adapter it says why and measures nothing.
 */
export const webGpuSection = {
  name: 'webgpu',
  slow: true,
  title:
    'webgpu backend (Dawn) vs wasm, same run: float32 matmul GFLOP/s and full fine-tuning tokens/s per config (issue 30; on a CPU-only machine the adapter is software)',
  async run(durationMs: number): Promise<string[]> {
    const adapter = await webGpuAdapter();
    if (typeof adapter === 'string') return [`No webgpu adapter, so nothing measured: ${adapter}.`];
    const oneStepText = process.env.TURNGYM_BENCH_WEBGPU_ONE_STEP?.trim();
    const oneStep = oneStepText === 'none' ? [] : configList('TURNGYM_BENCH_WEBGPU_ONE_STEP', 'tiny-100m');
    const [batch, length] = (process.env.TURNGYM_BENCH_WEBGPU_BATCH?.trim() || '8x128').split('x').map(Number);
    const result = await webGpuThroughput({
      durationMs,
      configs: [...configList('TURNGYM_BENCH_WEBGPU_CONFIGS', 'tiny-1m,tiny-8m'), ...oneStep],
      oneStep,
      matmulSizes: adapter.software ? [256, 512] : [1024, 2048, 4096],
      batch: batch as number,
      length: length as number,
    });
    // Generation of tiny-1m, the GRPO rollouts' policy: the fused decoder's kernels against tfjs's ops.
    const generation = await generationThroughput({
      config: 'tiny-1m',
      batches: adapter.software ? [16, 64] : [64, 256, 1024],
      backends: ['webgpu', 'wasm'],
      opsOn: ['webgpu'],
      newTokens: adapter.software ? 16 : 32,
    });
    return [
      ...webGpuTables(result),
      '',
      'Training is full fine-tuning (forward + backward + Adam) on fresh weights; GFLOP/s counts 6·params + attention',
      'per token. A one-step config runs one step of one row on webgpu alone, shader compiles included.',
      '',
      ...generationTable(generation),
      '',
      'Fused: generation on `FusedWeights` with the RMSNorm, SwiGLU and cached-attention kernels (wasm loops, WGSL on',
      'webgpu); ops: the same model through `runDecoder`, tfjs ops only. One timed call after one that compiles.',
    ];
  },
};
