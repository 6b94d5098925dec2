import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { makeVariable } from './decoder-parameters';
import { CheckpointError } from './lm-errors';
import type { NamedTensors } from './named-tensors';

/**
 * A scalar value head on the final hidden state, V(s) = h·w + b (Self-AC's critic, ALGORITHMS.md §2).
 * Tensor names follow TRL's AutoModelForCausalLMWithValueHead (`v_head.summary.weight` [1, hidden]).
 */
export class ValueHead {
  readonly weight: tf.Variable;
  readonly bias: tf.Variable;

  constructor(
    readonly hiddenSize: number,
    seed = 0,
  ) {
    const rng = new SeededRng(seed);
    const std = 1 / Math.sqrt(hiddenSize);
    this.weight = makeVariable(
      new Float32Array(hiddenSize).map(() => rng.normal() * std * 0.1),
      [hiddenSize, 1],
    );
    this.bias = makeVariable(new Float32Array(1), [1]);
  }

  /** [rows, hidden] → [rows] */
  apply(hidden: tf.Tensor2D): tf.Tensor1D {
    return tf.reshape(tf.add(tf.matMul(hidden, this.weight), this.bias), [hidden.shape[0]]);
  }

  variables(): tf.Variable[] {
    return [this.weight, this.bias];
  }

  async toTensors(): Promise<NamedTensors> {
    return new Map([
      [
        'v_head.summary.weight',
        { shape: [1, this.hiddenSize], data: Float32Array.from((await this.weight.data()) as Float32Array) },
      ],
      ['v_head.summary.bias', { shape: [1], data: Float32Array.from((await this.bias.data()) as Float32Array) }],
    ]);
  }

  setTensors(tensors: NamedTensors, source = 'value_head.safetensors'): void {
    const weight = tensors.get('v_head.summary.weight');
    const bias = tensors.get('v_head.summary.bias');
    if (!weight) throw new CheckpointError(`${source}: tensor "v_head.summary.weight" is missing.`);
    if (!bias) throw new CheckpointError(`${source}: tensor "v_head.summary.bias" is missing.`);
    if (weight.data.length !== this.hiddenSize || bias.data.length !== 1) {
      throw new CheckpointError(
        `${source}: tensor "v_head.summary.weight" has shape [${weight.shape.join(', ')}], expected [1, ${this.hiddenSize}].`,
      );
    }
    tf.tidy(() => {
      this.weight.assign(tf.tensor2d(weight.data, [this.hiddenSize, 1]));
      this.bias.assign(tf.tensor1d(bias.data));
    });
  }

  dispose(): void {
    this.weight.dispose();
    this.bias.dispose();
  }
}
