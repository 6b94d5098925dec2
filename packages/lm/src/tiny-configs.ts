import { BYTE_VOCAB_SIZE } from './byte-tokenizer';
import type { ModelConfig } from './model-config';

function tiny(
  hiddenSize: number,
  numLayers: number,
  numHeads: number,
  numKvHeads: number,
  intermediateSize: number,
): ModelConfig {
  return {
    family: 'qwen2',
    vocabSize: BYTE_VOCAB_SIZE,
    hiddenSize,
    intermediateSize,
    numLayers,
    numHeads,
    numKvHeads,
    headDim: hiddenSize / numHeads,
    maxPositions: 1024,
    ropeTheta: 10000,
    ropeScaling: null,
    rmsNormEps: 1e-6,
    tieWordEmbeddings: true,
    qkvBias: true,
    outputBias: false,
    bosTokenId: null,
    eosTokenIds: [258, 256],
  };
}

/**
 * Built-in configs, with the byte tokenizer (vocabulary 264): Qwen2-shaped (q/k/v biases, grouped-query
 * attention, tied embeddings), head dim 32–64. tiny-1m ≈ 1.0M parameters, tiny-8m ≈ 7.9M, tiny-30m ≈ 29.6M
 * train on a CPU; tiny-100m ≈ 104M (GPT-2-small-sized: hidden 768, 12 layers) is for a GPU, through the
 * webgpu backend — on wasm one step of 8×128 tokens is ~640 GFLOP, half a minute or more.
 */
export const TINY_CONFIGS = {
  'tiny-1m': tiny(128, 5, 4, 2, 384),
  'tiny-8m': tiny(256, 10, 4, 2, 768),
  'tiny-30m': tiny(512, 10, 8, 4, 1408),
  'tiny-100m': tiny(768, 12, 12, 4, 3072),
} as const satisfies Record<string, ModelConfig>;

export type TinyConfigName = keyof typeof TINY_CONFIGS;

/** A test-sized config: any fields over a very small base (2 layers, hidden 32). */
export function testConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return { ...tiny(32, 2, 4, 2, 64), ...overrides };
}
