import * as tf from '@tensorflow/tfjs';
import type { DecoderParameters } from './decoder-parameters';
import { maxTensorBytes } from './internal/webgpu-device-errors';
import type { ProjectionName } from './hf-weights';
import type { LoraAdapter } from './lora-adapter';
import type { ModelConfig } from './model-config';

/** One layer's keys and values: [B, kvHeads, S, headDim] each. */
export type LayerCache = {
  readonly k: tf.Tensor4D;
  readonly v: tf.Tensor4D;
};

export interface DecoderInput {
  /** [B, T] int32 */
  readonly tokens: tf.Tensor2D;
  /** [B·T, headDim] from `ropeTables`. */
  readonly cos: tf.Tensor2D;
  readonly sin: tf.Tensor2D;
  /** [B, 1, T, S] additive (S = cached + T). */
  readonly mask: tf.Tensor4D;
  /** Keys/values of earlier tokens, per layer; their slots come first in S. */
  readonly past?: readonly LayerCache[];
}

export interface DecoderOutput {
  /** [B·T, hidden] after the final RMSNorm. */
  readonly hidden: tf.Tensor2D;
  /** Keys/values including this call's tokens (only when asked for). */
  readonly present?: LayerCache[];
}

function rmsNorm(x: tf.Tensor2D, weight: tf.Tensor, eps: number): tf.Tensor2D {
  const variance = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(variance, eps))), weight) as tf.Tensor2D;
}

function project(
  x: tf.Tensor2D,
  parameters: DecoderParameters,
  layer: number,
  module: ProjectionName,
  adapter: LoraAdapter | undefined,
): tf.Tensor2D {
  const weights = parameters.layers[layer]!;
  let y: tf.Tensor2D = tf.matMul(x, weights.projections[module]);
  const bias = weights.biases[module];
  if (bias) y = tf.add(y, bias) as tf.Tensor2D;
  const pair = adapter?.pair(layer, module);
  if (pair && adapter) y = tf.add(y, tf.mul(tf.matMul(tf.matMul(x, pair.a), pair.b), adapter.scale)) as tf.Tensor2D;
  return y;
}

/** x·cos + swap_halves(x)·sin_signed, on [N, heads, headDim] with tables [N, 1, headDim]. */
function rotary(x: tf.Tensor3D, cos: tf.Tensor3D, sin: tf.Tensor3D): tf.Tensor3D {
  const [first, second] = tf.split(x, 2, -1) as [tf.Tensor3D, tf.Tensor3D];
  return tf.add(tf.mul(x, cos), tf.mul(tf.concat([second, first], -1), sin));
}

/** One layer's projections, [N, heads·headDim] (q) and [N, kvHeads·headDim] (k, v), N = B·T. */
export interface Projected {
  readonly q: tf.Tensor2D;
  readonly k: tf.Tensor2D;
  readonly v: tf.Tensor2D;
}

/**
 * RoPE on the queries and keys, then grouped-query attention of the chunk over the cached keys and values
 * and its own, under the additive mask [B, 1, T, S]. Returns the attended values [N, heads·headDim] and the
 * keys and values with the chunk's appended, [B, kvHeads, S, headDim].
 */
export function attendWithOps(
  config: ModelConfig,
  { q: qProjected, k: kProjected, v }: Projected,
  context: { cos: tf.Tensor3D; sin: tf.Tensor3D; mask: tf.Tensor4D; batch: number; past?: LayerCache },
): { attended: tf.Tensor2D; keys: tf.Tensor4D; values: tf.Tensor4D } {
  const { headDim, numHeads, numKvHeads } = config;
  const { cos, sin, mask, past } = context;
  const B = context.batch;
  const N = qProjected.shape[0];
  const T = N / B;
  const S = mask.shape[3];
  const group = numHeads / numKvHeads;
  const scale = 1 / Math.sqrt(headDim);
  const q = rotary(tf.reshape(qProjected, [N, numHeads, headDim]), cos, sin);
  const k = rotary(tf.reshape(kProjected, [N, numKvHeads, headDim]), cos, sin);
  // Query head h uses key/value head floor(h / group) (HF's repeat_kv): lay queries out as
  // [B, kvHeads, group·T, headDim] so one batched matmul serves each group without copying keys.
  const queries = tf.reshape(
    tf.transpose(tf.reshape(tf.mul(q, scale), [B, T, numKvHeads, group, headDim]), [0, 2, 3, 1, 4]),
    [B, numKvHeads, group * T, headDim],
  ) as tf.Tensor4D;
  let keys = tf.transpose(tf.reshape(k, [B, T, numKvHeads, headDim]), [0, 2, 1, 3]) as tf.Tensor4D;
  let values = tf.transpose(tf.reshape(v, [B, T, numKvHeads, headDim]), [0, 2, 1, 3]) as tf.Tensor4D;
  if (past) {
    keys = tf.concat([past.k, keys], 2);
    values = tf.concat([past.v, values], 2);
  }
  // [B, kvHeads, group·T, S] is [B, heads, T, S] in memory, so the [B, 1, T, S] mask broadcasts.
  const attend = (rows: number, q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, m: tf.Tensor4D): tf.Tensor2D => {
    const scores = tf.add(tf.reshape(tf.matMul(q, k, false, true), [rows, numHeads, T, S]), m);
    const probabilities = tf.reshape(tf.softmax(scores), [rows, numKvHeads, group * T, S]);
    return tf.reshape(
      tf.transpose(tf.reshape(tf.matMul(probabilities, v), [rows, numKvHeads, group, T, headDim]), [0, 3, 1, 2, 4]),
      [rows * T, numHeads * headDim],
    ) as tf.Tensor2D;
  };
  // The scores take B·heads·T·S floats. A GPU device rejects a tensor past its storage-binding limit (128 MiB
  // on a software adapter), so a batch whose scores would not fit attends a block of rows at a time.
  const rowsPerBlock = Math.max(1, Math.floor(maxTensorBytes() / (numHeads * T * S * 4)));
  if (B <= rowsPerBlock) return { attended: attend(B, queries, keys, values, mask), keys, values };
  const blocks: tf.Tensor2D[] = [];
  for (let first = 0; first < B; first += rowsPerBlock) {
    const rows = Math.min(rowsPerBlock, B - first);
    const rowsOf = (t: tf.Tensor4D): tf.Tensor4D => tf.slice(t, [first, 0, 0, 0], [rows, -1, -1, -1]);
    const blockMask = mask.shape[0] === 1 ? mask : rowsOf(mask);
    blocks.push(attend(rows, rowsOf(queries), rowsOf(keys), rowsOf(values), blockMask));
  }
  return { attended: tf.concat(blocks, 0), keys, values };
}

/**
 * The decoder on tfjs ops, as `modeling_llama.py` computes it: RMSNorm → attention (RoPE at explicit
 * positions, grouped-query heads, any additive mask, optional KV cache) → residual → RMSNorm → SwiGLU →
 * residual, then the final RMSNorm. Activations stay [B·T, d] so every projection is one 2-D matmul.
 * Differentiable; call inside tf.tidy or a gradient function.
 */
export function runDecoder(
  config: ModelConfig,
  parameters: DecoderParameters,
  input: DecoderInput,
  options: {
    adapter?: LoraAdapter;
    keepCache?: boolean;
    /**
     * Free each layer's intermediate tensors when the layer ends (inference only). Otherwise every one of them
     * lives until the caller's tf.tidy ends: ~280 KB per token for tiny-1m, so 64 wiki episodes of ~450 tokens
     * outgrew wasm's 4 GiB heap.
     */
    releaseLayers?: boolean;
  } = {},
): DecoderOutput {
  const [B, T] = input.tokens.shape;
  const N = B * T;
  const { headDim, hiddenSize } = config;
  const cos = tf.reshape(input.cos, [N, 1, headDim]) as tf.Tensor3D;
  const sin = tf.reshape(input.sin, [N, 1, headDim]) as tf.Tensor3D;
  const adapter = options.adapter;
  const present: LayerCache[] = [];

  let x = tf.reshape(tf.gather(parameters.embed, tf.reshape(input.tokens, [N])), [N, hiddenSize]) as tf.Tensor2D;
  for (let layer = 0; layer < config.numLayers; layer++) {
    const weights = parameters.layers[layer]!;
    const runLayer = (): tf.Tensor[] => {
      const h = rmsNorm(x, weights.inputNorm, config.rmsNormEps);
      const { attended, keys, values } = attendWithOps(
        config,
        {
          q: project(h, parameters, layer, 'q_proj', adapter),
          k: project(h, parameters, layer, 'k_proj', adapter),
          v: project(h, parameters, layer, 'v_proj', adapter),
        },
        { cos, sin, mask: input.mask, batch: B, ...(input.past?.[layer] ? { past: input.past[layer] } : {}) },
      );
      let out = tf.add(x, project(attended, parameters, layer, 'o_proj', adapter)) as tf.Tensor2D;

      const m = rmsNorm(out, weights.postNorm, config.rmsNormEps);
      const gate = project(m, parameters, layer, 'gate_proj', adapter);
      const up = project(m, parameters, layer, 'up_proj', adapter);
      out = tf.add(
        out,
        project(tf.mul(tf.mul(gate, tf.sigmoid(gate)), up), parameters, layer, 'down_proj', adapter),
      ) as tf.Tensor2D;
      return options.keepCache ? [out, keys, values] : [out];
    };
    const [out, keys, values] = options.releaseLayers ? tf.tidy(runLayer) : runLayer();
    x = out as tf.Tensor2D;
    if (options.keepCache) present.push({ k: keys as tf.Tensor4D, v: values as tf.Tensor4D });
  }
  const hidden = rmsNorm(x, parameters.finalNorm, config.rmsNormEps);
  return options.keepCache ? { hidden, present } : { hidden };
}

/** Logits [rows, vocab] from final hidden states (tied embeddings use the embedding matrix). */
export function languageModelHead(parameters: DecoderParameters, hidden: tf.Tensor2D): tf.Tensor2D {
  return parameters.lmHead ? tf.matMul(hidden, parameters.lmHead) : tf.matMul(hidden, parameters.embed, false, true);
}
