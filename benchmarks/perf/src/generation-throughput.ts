import { LanguageModel, TINY_CONFIGS, useBackend, type TinyConfigName } from '@turngym/lm';

/** Sampled generation at one batch size on one backend: what a GRPO rollout's lockstep batch costs. */
export interface GenerationThroughput {
  readonly backend: 'webgpu' | 'wasm';
  readonly rows: number;
  readonly promptTokens: number;
  readonly newTokens: number;
  /** Wall seconds of one timed call (after one untimed call of the same shapes, which compiles the shaders). */
  readonly seconds: number;
  readonly tokensPerSecond: number;
  /** Seconds per decoding step of the whole batch: flat in `rows` while a step is bound by dispatches. */
  readonly msPerStep: number;
}

/**
 * Times `generate` of a fresh `config` for each batch size, `promptTokens` of prompt and `newTokens` sampled
 * per row (no stop token, so every row runs to the end), on each backend. On a GPU a decoding step is a chain
 * of small kernels and one read back of the sampled tokens, so its time should hardly grow with the batch;
 * where it does, that is where a wider GRPO batch stops paying.
 */
export async function generationThroughput(options: {
  config: TinyConfigName;
  batches: readonly number[];
  backends: readonly ('webgpu' | 'wasm')[];
  promptTokens?: number;
  newTokens?: number;
  log?: (line: string) => void;
}): Promise<GenerationThroughput[]> {
  const promptTokens = options.promptTokens ?? 64;
  const newTokens = options.newTokens ?? 32;
  const results: GenerationThroughput[] = [];
  const model = LanguageModel.create(TINY_CONFIGS[options.config], { seed: 1 });
  try {
    for (const backend of options.backends) {
      await useBackend(backend);
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
          rows,
          promptTokens,
          newTokens,
          seconds,
          tokensPerSecond: (rows * newTokens) / seconds,
          msPerStep: (seconds * 1000) / newTokens,
        };
        results.push(result);
        options.log?.(
          `generation ${options.config} on ${backend}, ${rows} rows × ${newTokens} tokens after ${promptTokens}: ` +
            `${result.tokensPerSecond.toFixed(0)} tokens/s, ${result.msPerStep.toFixed(1)} ms per step`,
        );
      }
    }
  } finally {
    model.dispose();
  }
  return results;
}
