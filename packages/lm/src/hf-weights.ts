import { SeededRng } from '@turngym/core';
import { CheckpointError } from './lm-errors';
import type { ModelConfig } from './model-config';
import { elementCount, type NamedTensors } from './named-tensors';

/** The per-layer projections, by HF module name; also the names LoRA `targetModules` take. */
export const PROJECTIONS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type ProjectionName = (typeof PROJECTIONS)[number];

/** HF's module path of a projection in layer `layer`. */
export function projectionPath(layer: number, projection: ProjectionName): string {
  const block =
    projection === 'gate_proj' || projection === 'up_proj' || projection === 'down_proj' ? 'mlp' : 'self_attn';
  return `model.layers.${layer}.${block}.${projection}`;
}

/** [in, out] sizes of a projection (HF stores its weight as [out, in]). */
export function projectionShape(config: ModelConfig, projection: ProjectionName): [number, number] {
  const { hiddenSize: d, intermediateSize: ff, headDim, numHeads, numKvHeads } = config;
  switch (projection) {
    case 'q_proj':
      return [d, numHeads * headDim];
    case 'k_proj':
    case 'v_proj':
      return [d, numKvHeads * headDim];
    case 'o_proj':
      return [numHeads * headDim, d];
    case 'gate_proj':
    case 'up_proj':
      return [d, ff];
    case 'down_proj':
      return [ff, d];
  }
}

/** Every tensor a checkpoint of this config must hold, with its HF shape. */
export function expectedTensorShapes(config: ModelConfig): Map<string, number[]> {
  const shapes = new Map<string, number[]>();
  const { hiddenSize: d, vocabSize } = config;
  shapes.set('model.embed_tokens.weight', [vocabSize, d]);
  for (let layer = 0; layer < config.numLayers; layer++) {
    shapes.set(`model.layers.${layer}.input_layernorm.weight`, [d]);
    shapes.set(`model.layers.${layer}.post_attention_layernorm.weight`, [d]);
    for (const projection of PROJECTIONS) {
      const [input, output] = projectionShape(config, projection);
      const path = projectionPath(layer, projection);
      shapes.set(`${path}.weight`, [output, input]);
      const biased =
        (config.qkvBias && ['q_proj', 'k_proj', 'v_proj'].includes(projection)) ||
        (config.outputBias && projection === 'o_proj');
      if (biased) shapes.set(`${path}.bias`, [output]);
    }
  }
  shapes.set('model.norm.weight', [d]);
  if (!config.tieWordEmbeddings) shapes.set('lm_head.weight', [vocabSize, d]);
  return shapes;
}

/** Decoder tensors transformers also ignores: rotary caches older checkpoints saved, a tied lm_head. */
function isIgnored(name: string, config: ModelConfig): boolean {
  return name.endsWith('.rotary_emb.inv_freq') || (config.tieWordEmbeddings && name === 'lm_head.weight');
}

/**
 * Checks that `tensors` has every tensor of `config` with the right shape, and no decoder tensor (`model.…`,
 * `lm_head.…`) the config has no place for: one would mean config.json describes another model (more layers,
 * biases it lacks) and dropping it would compute something else. The error names the tensor and the file.
 * Rotary caches, a tied lm_head and tensors outside the decoder (a value head) are ignored, as transformers does.
 */
export function checkTensors(config: ModelConfig, tensors: NamedTensors, source = 'model.safetensors'): void {
  const expected = expectedTensorShapes(config);
  for (const name of tensors.keys()) {
    const inDecoder = name.startsWith('model.') || name.startsWith('lm_head.');
    if (inDecoder && !expected.has(name) && !isIgnored(name, config)) {
      throw new CheckpointError(
        `${source}: tensor "${name}" is not part of the model config.json describes ` +
          `(${config.family}, ${config.numLayers} layers${config.qkvBias ? ', q/k/v biases' : ''}); check config.json.`,
      );
    }
  }
  for (const [name, shape] of expected) {
    const tensor = tensors.get(name);
    if (!tensor)
      throw new CheckpointError(`${source}: tensor "${name}" is missing (expected shape [${shape.join(', ')}]).`);
    if (tensor.shape.length !== shape.length || tensor.shape.some((size, axis) => size !== shape[axis])) {
      throw new CheckpointError(
        `${source}: tensor "${name}" has shape [${tensor.shape.join(', ')}], expected [${shape.join(', ')}] from config.json.`,
      );
    }
  }
}

/**
 * Fresh weights, drawn from `seed` with SeededRng so every backend starts from the same numbers:
 * N(0, 0.02) as HF's initializer_range, norms at 1, biases at 0; output projections scaled by
 * 1/sqrt(2·layers) (GPT-2's residual scaling) so deep tiny models start stable.
 */
export function initializeWeights(config: ModelConfig, seed: number, std = 0.02): NamedTensors {
  const rng = new SeededRng(seed);
  const tensors: NamedTensors = new Map();
  const residualScale = 1 / Math.sqrt(2 * config.numLayers);
  for (const [name, shape] of expectedTensorShapes(config)) {
    const data = new Float32Array(elementCount(shape));
    if (name.endsWith('norm.weight')) data.fill(1);
    else if (!name.endsWith('.bias')) {
      const scale = name.endsWith('o_proj.weight') || name.endsWith('down_proj.weight') ? std * residualScale : std;
      for (let i = 0; i < data.length; i++) data[i] = rng.normal() * scale;
    }
    tensors.set(name, { shape, data });
  }
  return tensors;
}
