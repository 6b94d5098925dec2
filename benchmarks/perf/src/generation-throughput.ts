import { LanguageModel, TINY_CONFIGS, tf, useBackend, useFusedDecoder, type TinyConfigName } from '@turngym/lm';

/** Sampled generation at one batch size on one backend: what a GRPO rollout's lockstep batch costs. */
export interface GenerationThroughput {
  readonly backend: 'webgpu' | 'wasm';
  /** `fused`: generation's fused decoder and its kernels (the default); `ops`: `runDecoder`'s tfjs ops. */
  readonly decoder: 'fused' | 'ops';
  readonly rows: number;
  readonly promptTokens: number;
  readonly newTokens: number;
  /** Wall seconds of one timed call (after one untimed call of the same shapes, which compiles the shaders). */
  readonly seconds: number;
  readonly tokensPerSecond: number;
  /** Seconds per decoding step of the whole batch: flat in `rows` while a step is bound by dispatches. */
  readonly msPerStep: number;
  /**
   * Kernels a decoding step runs, `Reshape` not counted (on webgpu it moves no data): what a GPU step costs
   * while it is bound by dispatches. The same for every batch size.
   */
  readonly kernelsPerStep: number;
}

/** Kernels (Reshape aside) a decoding step of `generate` runs: a run of `tokens` less a run of 1, per step. */
async function kernelsPerStep(model: LanguageModel, prompt: number[], tokens: number): Promise<number> {
  const count = async (maxTokens: number): Promise<number> => {
    const info = await tf.profile(() => {
      model.generate([{ tokens: prompt, seed: 0 }], { maxTokens, temperature: 1, stopTokenIds: [] });
    });
    return info.kernels.filter((kernel) => kernel.name !== 'Reshape').length;
  };
  return ((await count(tokens)) - (await count(1))) / (tokens - 1);
}

/**
 * Times `generate` of a fresh `config` for each batch size, `promptTokens` of prompt and `newTokens` sampled
 * per row (no stop token, so every row runs to the end), on each backend. On a GPU a decoding step is a chain
 * of small kernels and one read back of the sampled tokens, so its time should hardly grow with the batch;
 * where it does, that is where a wider GRPO batch stops paying. `opsOn` also times the backends it names
 * with the fused decoder off (the baseline of its kernels, in the same run).
 */
export async function generationThroughput(options: {
  config: TinyConfigName;
  batches: readonly number[];
  backends: readonly ('webgpu' | 'wasm')[];
  opsOn?: readonly ('webgpu' | 'wasm')[];
  promptTokens?: number;
  newTokens?: number;
  log?: (line: string) => void;
}): Promise<GenerationThroughput[]> {
  const promptTokens = options.promptTokens ?? 64;
  const newTokens = options.newTokens ?? 32;
  const results: GenerationThroughput[] = [];
  const model = LanguageModel.create(TINY_CONFIGS[options.config], { seed: 1 });
  try {
    const runs = options.backends.flatMap((backend) => [
      { backend, decoder: 'fused' as const },
      ...(options.opsOn?.includes(backend) ? [{ backend, decoder: 'ops' as const }] : []),
    ]);
    for (const { backend, decoder } of runs) {
      await useBackend(backend);
      const previous = useFusedDecoder(decoder === 'fused');
      try {
        const perStep = await kernelsPerStep(
          model,
          Array.from({ length: promptTokens }, (_, t) => 32 + ((t * 13) % 90)),
          Math.max(2, Math.min(newTokens, 9)),
        );
        for (const rows of options.batches) {
          const requests = Array.from({ length: rows }, (_, row) => ({
            tokens: Array.from({ length: promptTokens }, (_, t) => 32 + ((row * 7 + t * 13) % 90)),
            seed: row,
          }));
          const run = () => model.generate(requests, { maxTokens: newTokens, temperature: 1, stopTokenIds: [] });
          run();
          const start = performance.now();
          run();
          const seconds = (performance.now() - start) / 1000;
          const result = {
            backend,
            decoder,
            rows,
            promptTokens,
            newTokens,
            seconds,
            tokensPerSecond: (rows * newTokens) / seconds,
            msPerStep: (seconds * 1000) / newTokens,
            kernelsPerStep: perStep,
          };
          results.push(result);
          options.log?.(
            `generation ${options.config} on ${backend} (${decoder} decoder), ${rows} rows × ${newTokens} tokens after ${promptTokens}: ` +
              `${result.tokensPerSecond.toFixed(0)} tokens/s, ${result.msPerStep.toFixed(1)} ms per step, ${perStep.toFixed(0)} kernels a step`,
          );
        }
      } finally {
        useFusedDecoder(previous);
      }
    }
  } finally {
    model.dispose();
  }
  return results;
}

/**
 * Markdown rows of `generationThroughput` per batch size: webgpu's fused decoder against its tfjs ops (the
 * baseline, same run) and against wasm's fused decoder, with the kernels a step runs.
 */
export function generationTable(results: readonly GenerationThroughput[]): string[] {
  const find = (backend: 'webgpu' | 'wasm', decoder: 'fused' | 'ops', rows: number) =>
    results.find((result) => result.backend === backend && result.decoder === decoder && result.rows === rows);
  const cell = (result: GenerationThroughput | undefined) =>
    result
      ? `${result.tokensPerSecond.toFixed(0)} | ${result.msPerStep.toFixed(1)} | ${result.kernelsPerStep.toFixed(0)}`
      : '— | — | —';
  const ratio = (a: GenerationThroughput | undefined, b: GenerationThroughput | undefined) =>
    a && b ? `${(a.tokensPerSecond / b.tokensPerSecond).toFixed(2)}×` : '—';
  const first = results[0];
  return [
    `Sampled generation, ${first ? `${first.newTokens} tokens after ${first.promptTokens}` : ''} (tokens/s, ms per decoding step, kernels a step without Reshape):`,
    '',
    '| rows | webgpu fused tokens/s | ms/step | kernels | webgpu ops tokens/s | ms/step | kernels | fused / ops | wasm fused tokens/s | ms/step | kernels | webgpu fused / wasm |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...[...new Set(results.map((result) => result.rows))].map((rows) => {
      const [fused, ops, wasm] = [
        find('webgpu', 'fused', rows),
        find('webgpu', 'ops', rows),
        find('wasm', 'fused', rows),
      ];
      return `| ${rows} | ${cell(fused)} | ${cell(ops)} | ${ratio(fused, ops)} | ${cell(wasm)} | ${ratio(fused, wasm)} |`;
    }),
  ];
}
