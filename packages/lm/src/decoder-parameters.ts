import * as tf from '@tensorflow/tfjs';
import { checkTensors, PROJECTIONS, projectionPath, type ProjectionName } from './hf-weights';
import type { ModelConfig } from './model-config';
import type { NamedTensor, NamedTensors } from './named-tensors';

export interface LayerParameters {
  readonly inputNorm: tf.Variable;
  readonly postNorm: tf.Variable;
  /** Projection weights as [in, out] (HF's transpose), so the forward pass never transposes them. */
  readonly projections: Record<ProjectionName, tf.Variable>;
  readonly biases: Partial<Record<ProjectionName, tf.Variable>>;
}

function transposed(tensor: NamedTensor): { shape: [number, number]; data: Float32Array } {
  const [rows, cols] = tensor.shape as [number, number];
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = tensor.data[r * cols + c] as number;
  return { shape: [cols, rows], data: out };
}

/** A variable from raw values, without leaking the initial tensor (tfjs variables share its data). */
export function makeVariable(data: Float32Array, shape: number[], trainable = true): tf.Variable {
  const initial = tf.tensor(data, shape, 'float32');
  const variable = tf.variable(initial, trainable);
  initial.dispose();
  return variable;
}

/**
 * The base model's weights as tfjs variables. Built from HF tensors (checked against the config first, so
 * a bad checkpoint fails with the tensor's name) and written back to HF tensors for saving.
 */
export class DecoderParameters {
  private constructor(
    readonly embed: tf.Variable,
    readonly layers: readonly LayerParameters[],
    readonly finalNorm: tf.Variable,
    /** [hidden, vocab]; null when tied to the embedding. */
    readonly lmHead: tf.Variable | null,
  ) {}

  static fromTensors(
    config: ModelConfig,
    tensors: NamedTensors,
    options: { trainable?: boolean; source?: string } = {},
  ): DecoderParameters {
    checkTensors(config, tensors, options.source);
    const trainable = options.trainable ?? true;
    const get = (name: string): NamedTensor => tensors.get(name) as NamedTensor;
    const variable = (name: string, transpose = false): tf.Variable => {
      const tensor = transpose ? transposed(get(name)) : get(name);
      return makeVariable(tensor.data, [...tensor.shape], trainable);
    };
    const layers: LayerParameters[] = [];
    for (let layer = 0; layer < config.numLayers; layer++) {
      const projections = {} as Record<ProjectionName, tf.Variable>;
      const biases: Partial<Record<ProjectionName, tf.Variable>> = {};
      for (const projection of PROJECTIONS) {
        const path = projectionPath(layer, projection);
        projections[projection] = variable(`${path}.weight`, true);
        if (tensors.has(`${path}.bias`)) biases[projection] = variable(`${path}.bias`);
      }
      layers.push({
        inputNorm: variable(`model.layers.${layer}.input_layernorm.weight`),
        postNorm: variable(`model.layers.${layer}.post_attention_layernorm.weight`),
        projections,
        biases,
      });
    }
    return new DecoderParameters(
      variable('model.embed_tokens.weight'),
      layers,
      variable('model.norm.weight'),
      config.tieWordEmbeddings ? null : variable('lm_head.weight', true),
    );
  }

  /** Back to HF names and layout. */
  async toTensors(): Promise<NamedTensors> {
    const out: NamedTensors = new Map();
    const put = async (name: string, variable: tf.Variable, transpose = false): Promise<void> => {
      const tensor = { shape: variable.shape, data: (await variable.data()) as Float32Array };
      out.set(
        name,
        transpose ? transposed(tensor) : { shape: [...tensor.shape], data: Float32Array.from(tensor.data) },
      );
    };
    await put('model.embed_tokens.weight', this.embed);
    for (const [layer, parameters] of this.layers.entries()) {
      await put(`model.layers.${layer}.input_layernorm.weight`, parameters.inputNorm);
      await put(`model.layers.${layer}.post_attention_layernorm.weight`, parameters.postNorm);
      for (const projection of PROJECTIONS) {
        const path = projectionPath(layer, projection);
        await put(`${path}.weight`, parameters.projections[projection], true);
        const bias = parameters.biases[projection];
        if (bias) await put(`${path}.bias`, bias);
      }
    }
    await put('model.norm.weight', this.finalNorm);
    if (this.lmHead) await put('lm_head.weight', this.lmHead, true);
    return out;
  }

  variables(): tf.Variable[] {
    const all = [this.embed, this.finalNorm];
    if (this.lmHead) all.push(this.lmHead);
    for (const layer of this.layers) {
      all.push(layer.inputNorm, layer.postNorm, ...Object.values(layer.projections), ...Object.values(layer.biases));
    }
    return all;
  }

  dispose(): void {
    for (const variable of this.variables()) variable.dispose();
  }
}
