import { SeededRng } from '@turngym/core';
import { expectedTensorShapes } from '../hf-weights';
import type { ModelConfig } from '../model-config';
import { elementCount, type NamedTensors } from '../named-tensors';

/**
 * Weights large enough that every path matters (biases non-zero, norms away from 1, std 0.3), so a wrong
 * transpose, head order or rotary convention shows up in the logits.
 */
export function randomWeights(config: ModelConfig, seed = 1): NamedTensors {
  const rng = new SeededRng(seed);
  const tensors: NamedTensors = new Map();
  for (const [name, shape] of expectedTensorShapes(config)) {
    const data = new Float32Array(elementCount(shape));
    for (let i = 0; i < data.length; i++) {
      data[i] = name.endsWith('norm.weight')
        ? 1 + 0.3 * rng.normal()
        : name.endsWith('.bias')
          ? 0.2 * rng.normal()
          : 0.3 * rng.normal();
    }
    tensors.set(name, { shape, data });
  }
  return tensors;
}

export function randomTokens(count: number, vocab: number, seed = 2): number[] {
  const rng = new SeededRng(seed);
  return Array.from({ length: count }, () => rng.int(0, vocab - 1));
}

export function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
}
