import type { ModelConfig } from './model-config';
import type { NamedTensors } from './named-tensors';

/**
 * An independent float64 forward pass in plain loops, no tfjs: the yardstick the tfjs decoder is tested
 * against. It reads HF tensors in HF layout ([out, in]) and follows `modeling_llama.py` line by line, so
 * it shares nothing with the fast path but the config. Slow (O(T²·d) per layer in JS): for tests and
 * for checking a loaded checkpoint on a few tokens.
 */
export interface ReferenceInput {
  readonly tokens: readonly number[];
  /** Position ids (default 0…T−1). */
  readonly positions?: readonly number[];
  /** May query q attend to key k? Default causal: k <= q. */
  readonly allowed?: (query: number, key: number) => boolean;
}

export interface ReferenceOutput {
  /** [T][vocab] logits. */
  readonly logits: Float64Array[];
  /** [T][hidden] final hidden states after the last RMSNorm (what a value head reads). */
  readonly hidden: Float64Array[];
}

function weight(tensors: NamedTensors, name: string): Float64Array {
  const tensor = tensors.get(name);
  if (!tensor) throw new Error(`reference forward: tensor ${name} missing`);
  return Float64Array.from(tensor.data);
}

/** y = W x (+ b) with W stored [out, in]. */
function linear(x: Float64Array, w: Float64Array, outSize: number, bias?: Float64Array): Float64Array {
  const inSize = x.length;
  const y = new Float64Array(outSize);
  for (let o = 0; o < outSize; o++) {
    let sum = bias ? (bias[o] as number) : 0;
    const row = o * inSize;
    for (let i = 0; i < inSize; i++) sum += (w[row + i] as number) * (x[i] as number);
    y[o] = sum;
  }
  return y;
}

function rmsNorm(x: Float64Array, w: Float64Array, eps: number): Float64Array {
  let sumSquares = 0;
  for (const value of x) sumSquares += value * value;
  const scale = 1 / Math.sqrt(sumSquares / x.length + eps);
  return x.map((value, i) => value * scale * (w[i] as number));
}

/** HF's rotary inverse frequencies, with linear or llama3 scaling. */
function inverseFrequencies(config: ModelConfig): Float64Array {
  const half = config.headDim / 2;
  const freqs = new Float64Array(half);
  for (let i = 0; i < half; i++) freqs[i] = 1 / Math.pow(config.ropeTheta, (2 * i) / config.headDim);
  const scaling = config.ropeScaling;
  if (scaling?.type === 'linear') return freqs.map((f) => f / scaling.factor);
  if (scaling?.type === 'llama3') {
    const lowWavelength = scaling.originalMaxPositions / scaling.lowFreqFactor;
    const highWavelength = scaling.originalMaxPositions / scaling.highFreqFactor;
    return freqs.map((f) => {
      const wavelength = (2 * Math.PI) / f;
      if (wavelength < highWavelength) return f;
      if (wavelength > lowWavelength) return f / scaling.factor;
      const smooth =
        (scaling.originalMaxPositions / wavelength - scaling.lowFreqFactor) /
        (scaling.highFreqFactor - scaling.lowFreqFactor);
      return (1 - smooth) * (f / scaling.factor) + smooth * f;
    });
  }
  return freqs;
}

/** Rotates each head of `x` (heads × headDim) in place: rotate_half convention. */
function rotate(x: Float64Array, heads: number, headDim: number, position: number, freqs: Float64Array): void {
  const half = headDim / 2;
  for (let h = 0; h < heads; h++) {
    const base = h * headDim;
    for (let i = 0; i < half; i++) {
      const angle = position * (freqs[i] as number);
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const a = x[base + i] as number;
      const b = x[base + i + half] as number;
      x[base + i] = a * cos - b * sin;
      x[base + i + half] = b * cos + a * sin;
    }
  }
}

export function referenceForward(config: ModelConfig, tensors: NamedTensors, input: ReferenceInput): ReferenceOutput {
  const T = input.tokens.length;
  const d = config.hiddenSize;
  const { headDim, numHeads, numKvHeads } = config;
  const group = numHeads / numKvHeads;
  const positions = input.positions ?? input.tokens.map((_, i) => i);
  const allowed = input.allowed ?? ((query: number, key: number) => key <= query);
  const freqs = inverseFrequencies(config);
  const embed = weight(tensors, 'model.embed_tokens.weight');
  let states = input.tokens.map((token) => embed.slice(token * d, (token + 1) * d));
  const optional = (name: string): Float64Array | undefined => (tensors.has(name) ? weight(tensors, name) : undefined);

  for (let layer = 0; layer < config.numLayers; layer++) {
    const prefix = `model.layers.${layer}`;
    const attention = `${prefix}.self_attn`;
    const wq = weight(tensors, `${attention}.q_proj.weight`);
    const wk = weight(tensors, `${attention}.k_proj.weight`);
    const wv = weight(tensors, `${attention}.v_proj.weight`);
    const wo = weight(tensors, `${attention}.o_proj.weight`);
    const bq = optional(`${attention}.q_proj.bias`);
    const bk = optional(`${attention}.k_proj.bias`);
    const bv = optional(`${attention}.v_proj.bias`);
    const bo = optional(`${attention}.o_proj.bias`);
    const inputNorm = weight(tensors, `${prefix}.input_layernorm.weight`);
    const postNorm = weight(tensors, `${prefix}.post_attention_layernorm.weight`);

    const normed = states.map((x) => rmsNorm(x, inputNorm, config.rmsNormEps));
    const q = normed.map((x, t) => {
      const out = linear(x, wq, numHeads * headDim, bq);
      rotate(out, numHeads, headDim, positions[t] as number, freqs);
      return out;
    });
    const k = normed.map((x, t) => {
      const out = linear(x, wk, numKvHeads * headDim, bk);
      rotate(out, numKvHeads, headDim, positions[t] as number, freqs);
      return out;
    });
    const v = normed.map((x) => linear(x, wv, numKvHeads * headDim, bv));

    const attended = states.map((_, query) => {
      const out = new Float64Array(numHeads * headDim);
      for (let h = 0; h < numHeads; h++) {
        const kvHead = Math.floor(h / group);
        const scores: number[] = [];
        const keys: number[] = [];
        for (let key = 0; key < T; key++) {
          if (!allowed(query, key)) continue;
          let dot = 0;
          for (let i = 0; i < headDim; i++)
            dot += (q[query]![h * headDim + i] as number) * (k[key]![kvHead * headDim + i] as number);
          scores.push(dot / Math.sqrt(headDim));
          keys.push(key);
        }
        if (keys.length === 0) continue;
        const max = Math.max(...scores);
        const weights = scores.map((score) => Math.exp(score - max));
        const total = weights.reduce((a, b) => a + b, 0);
        keys.forEach((key, j) => {
          const p = (weights[j] as number) / total;
          for (let i = 0; i < headDim; i++)
            out[h * headDim + i] = (out[h * headDim + i] as number) + p * (v[key]![kvHead * headDim + i] as number);
        });
      }
      return linear(out, wo, d, bo);
    });
    states = states.map((x, t) => x.map((value, i) => value + (attended[t]![i] as number)));

    const wGate = weight(tensors, `${prefix}.mlp.gate_proj.weight`);
    const wUp = weight(tensors, `${prefix}.mlp.up_proj.weight`);
    const wDown = weight(tensors, `${prefix}.mlp.down_proj.weight`);
    states = states.map((x) => {
      const h = rmsNorm(x, postNorm, config.rmsNormEps);
      const gate = linear(h, wGate, config.intermediateSize);
      const up = linear(h, wUp, config.intermediateSize);
      const act = gate.map((g, i) => (g / (1 + Math.exp(-g))) * (up[i] as number));
      const down = linear(act, wDown, d);
      return x.map((value, i) => value + (down[i] as number));
    });
  }

  const finalNorm = weight(tensors, 'model.norm.weight');
  const hidden = states.map((x) => rmsNorm(x, finalNorm, config.rmsNormEps));
  const head = config.tieWordEmbeddings ? embed : weight(tensors, 'lm_head.weight');
  return { hidden, logits: hidden.map((x) => linear(x, head, config.vocabSize)) };
}
