import * as tf from '@tensorflow/tfjs';
import { attendWithOps, type DecoderInput, type LayerCache } from '../decoder';
import type { DecoderParameters } from '../decoder-parameters';
import type { ProjectionName } from '../hf-weights';
import type { LoraAdapter } from '../lora-adapter';
import type { ModelConfig } from '../model-config';
import { CACHED_ATTENTION, type CachedAttentionAttrs } from './wasm-cached-attention';
import { RMS_NORM, SWIGLU } from './wasm-layer-kernels';

/**
 * Chunks up to this many tokens a row attend through `CACHED_ATTENTION`; longer ones (a turn's observation)
 * through tfjs's batched matmuls, which are faster per product at that size (XNNPACK's float32 GEMM against
 * the kernel's float64 loops: routing a tree's ~30-token observation chunks through the kernel, even with its
 * SIMD loops, made wiki tree rollouts ~25% slower).
 */
const KERNEL_CHUNK = 8;

interface FusedLayer {
  readonly inputNorm: tf.Tensor;
  readonly postNorm: tf.Tensor;
  /** [hidden, (heads + 2·kvHeads)·headDim]: q, k and v side by side, the adapter merged in. */
  readonly qkv: tf.Tensor2D;
  readonly qkvBias: tf.Tensor | null;
  readonly o: tf.Tensor2D;
  readonly oBias: tf.Tensor | null;
  /** [hidden, 2·intermediate]: gate then up. */
  readonly gateUp: tf.Tensor2D;
  readonly gateUpBias: tf.Tensor | null;
  readonly down: tf.Tensor2D;
  readonly downBias: tf.Tensor | null;
}

/**
 * The decoder's weights for one generation call, laid out for fewer ops a step: each LoRA pair merged into
 * its projection (W + scale·A·B), q/k/v and gate/up each one matrix, the output head as [hidden, vocab].
 * Built from the current values, so an adapter trained between two calls is picked up by the next.
 */
export class FusedWeights {
  private constructor(
    readonly layers: readonly FusedLayer[],
    readonly embed: tf.Tensor,
    readonly finalNorm: tf.Tensor,
    readonly head: tf.Tensor2D,
    private readonly owned: readonly tf.Tensor[],
  ) {}

  static build(parameters: DecoderParameters, adapter: LoraAdapter | undefined): FusedWeights {
    const owned: tf.Tensor[] = [];
    const own = <T extends tf.Tensor>(tensor: T): T => {
      owned.push(tf.keep(tensor));
      return tensor;
    };
    const layers: FusedLayer[] = [];
    // What is not kept (`own`) is an intermediate of the merge.
    tf.tidy(() => {
      parameters.layers.forEach((weights, layer) => {
        const merged = (module: ProjectionName): tf.Tensor2D => {
          const pair = adapter?.pair(layer, module);
          const base = weights.projections[module] as tf.Tensor2D;
          return pair && adapter ? tf.add(base, tf.mul(tf.matMul(pair.a, pair.b), adapter.scale)) : base;
        };
        // Concatenated biases, zeros where a module of the group has none; null when none has one.
        const bias = (modules: readonly ProjectionName[]): tf.Tensor | null =>
          modules.some((module) => weights.biases[module])
            ? own(
                tf.concat(
                  modules.map(
                    (module) => weights.biases[module] ?? tf.zeros([weights.projections[module].shape[1] as number]),
                  ),
                ),
              )
            : null;
        const single = (module: ProjectionName): tf.Tensor2D => {
          const matrix = merged(module);
          return matrix === weights.projections[module] ? matrix : own(matrix);
        };
        layers.push({
          inputNorm: weights.inputNorm,
          postNorm: weights.postNorm,
          qkv: own(tf.concat([merged('q_proj'), merged('k_proj'), merged('v_proj')], 1)),
          qkvBias: bias(['q_proj', 'k_proj', 'v_proj']),
          o: single('o_proj'),
          oBias: weights.biases.o_proj ?? null,
          gateUp: own(tf.concat([merged('gate_proj'), merged('up_proj')], 1)),
          gateUpBias: bias(['gate_proj', 'up_proj']),
          down: single('down_proj'),
          downBias: weights.biases.down_proj ?? null,
        });
      });
    });
    const head = parameters.lmHead ?? own(tf.tidy(() => tf.transpose(parameters.embed) as tf.Tensor2D));
    return new FusedWeights(layers, parameters.embed, parameters.finalNorm, head as tf.Tensor2D, owned);
  }

  dispose(): void {
    for (const tensor of this.owned) tensor.dispose();
  }
}

/**
 * Layer weights above which generation on wasm keeps `runDecoder`: `FusedWeights` is a second copy of them
 * for the call (wasm's heap stops at 4 GB), and on a CPU a step of a model this size costs its arithmetic,
 * not its op count. A GPU has the memory, and its steps are bound by their dispatches at every size measured
 * (tiny-100m trained faster than tiny-30m on an H200), so webgpu fuses every model.
 */
const MAX_FUSED_WEIGHTS = 40e6;

let fusedEnabled = true;

/**
 * Off: generation runs `runDecoder`'s tfjs ops on every backend (benchmarks' "before"; the results differ
 * only in float rounding). Returns the previous setting.
 */
export function useFusedDecoder(enabled: boolean): boolean {
  const previous = fusedEnabled;
  fusedEnabled = enabled;
  return previous;
}

/**
 * True when the current backend registers the kernels `runFusedDecoder` needs (wasm and webgpu, through
 * `useBackend`) and, on wasm, the model is small enough to pay for `FusedWeights` (tiny-1m … tiny-30m).
 */
export function fusedDecoderAvailable(config: ModelConfig): boolean {
  if (!fusedEnabled) return false;
  const { hiddenSize, intermediateSize, numHeads, numKvHeads, headDim, numLayers } = config;
  const backend = tf.getBackend();
  const attention = hiddenSize * (2 * numHeads + 2 * numKvHeads) * headDim;
  if (backend === 'wasm' && numLayers * (attention + 3 * hiddenSize * intermediateSize) > MAX_FUSED_WEIGHTS) {
    return false;
  }
  return [CACHED_ATTENTION, RMS_NORM, SWIGLU].every((kernel) => tf.getKernel(kernel, backend) !== undefined);
}

function rmsNorm(x: tf.Tensor2D, weight: tf.Tensor, eps: number): tf.Tensor2D {
  return tf.engine().runKernel(RMS_NORM, { x, weight }, { eps }) as tf.Tensor2D;
}

function linear(x: tf.Tensor2D, weight: tf.Tensor2D, bias: tf.Tensor | null): tf.Tensor2D {
  const y: tf.Tensor2D = tf.matMul(x, weight);
  return bias ? (tf.add(y, bias) as tf.Tensor2D) : y;
}

/**
 * `runDecoder` for generation (inference only, keys and values kept), on `FusedWeights` and the wasm or webgpu
 * kernels: ~11 ops a layer where `runDecoder` runs ~100 with an adapter, which on tiny models is most of
 * a decode step's cost. Same architecture and the same caches up to float rounding: the merged adapter
 * and the kernels' loops add in another order (logprobs within ~1e-5 of `runDecoder`'s: up to 1.2e-5 measured
 * with 4 query heads a key/value head, wasm-kernels-vs-cpu.test.ts).
 * Returns the final hidden states [B·T, hidden] (after the final RMSNorm) and the grown caches.
 *
 * A layer's past may be a buffer with room to grow ([B, kvHeads, C, headDim], its first S − T slots cached,
 * S = the mask's last dimension), and so may its present: short chunks append in place where they can
 * (`CACHED_ATTENTION`), and `capacity` is how many slots a buffer the kernel has to move is given.
 */
export function runFusedDecoder(
  config: ModelConfig,
  weights: FusedWeights,
  input: DecoderInput,
  options: { capacity?: number } = {},
): { hidden: tf.Tensor2D; present: LayerCache[] } {
  const [B, T] = input.tokens.shape;
  const N = B * T;
  const cached = input.mask.shape[3] - T;
  const { headDim, numHeads, numKvHeads, hiddenSize, rmsNormEps } = config;
  const queryWidth = numHeads * headDim;
  const kvWidth = numKvHeads * headDim;
  const present: LayerCache[] = [];
  let x = tf.reshape(tf.gather(weights.embed, tf.reshape(input.tokens, [N])), [N, hiddenSize]) as tf.Tensor2D;
  weights.layers.forEach((layer, index) => {
    const past = input.past?.[index];
    const [out, keys, values] = tf.tidy(() => {
      const qkv = linear(rmsNorm(x, layer.inputNorm, rmsNormEps), layer.qkv, layer.qkvBias);
      let attended: tf.Tensor2D;
      let keys: tf.Tensor4D;
      let values: tf.Tensor4D;
      if (past && T <= KERNEL_CHUNK) {
        [attended, keys, values] = tf
          .engine()
          .runKernel(
            CACHED_ATTENTION,
            { qkv, cos: input.cos, sin: input.sin, pastK: past.k, pastV: past.v, mask: input.mask },
            {
              numHeads,
              numKvHeads,
              headDim,
              ...(options.capacity !== undefined ? { capacity: options.capacity } : {}),
            } satisfies CachedAttentionAttrs as unknown as tf.NamedAttrMap,
          ) as [tf.Tensor2D, tf.Tensor4D, tf.Tensor4D];
      } else {
        // tfjs's ops concatenate the whole past: only its cached slots, where it is a buffer with room.
        const own = (part: tf.Tensor4D): tf.Tensor4D =>
          part.shape[2] > cached ? tf.slice(part, [0, 0, 0, 0], [B, numKvHeads, cached, headDim]) : part;
        const [q, k, v] = tf.split(qkv, [queryWidth, kvWidth, kvWidth], 1) as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
        ({ attended, keys, values } = attendWithOps(
          config,
          { q, k, v },
          {
            cos: tf.reshape(input.cos, [N, 1, headDim]),
            sin: tf.reshape(input.sin, [N, 1, headDim]),
            mask: input.mask,
            batch: B,
            ...(past ? { past: { k: own(past.k), v: own(past.v) } } : {}),
          },
        ));
      }
      const mixed = tf.add(x, linear(attended, layer.o, layer.oBias)) as tf.Tensor2D;
      const gateUp = linear(rmsNorm(mixed, layer.postNorm, rmsNormEps), layer.gateUp, layer.gateUpBias);
      const activated = tf.engine().runKernel(SWIGLU, { x: gateUp }, {}) as tf.Tensor2D;
      return [tf.add(mixed, linear(activated, layer.down, layer.downBias)) as tf.Tensor2D, keys, values];
    });
    x = out as tf.Tensor2D;
    present.push({ k: keys as tf.Tensor4D, v: values as tf.Tensor4D });
  });
  return { hidden: rmsNorm(x, weights.finalNorm, rmsNormEps), present };
}
