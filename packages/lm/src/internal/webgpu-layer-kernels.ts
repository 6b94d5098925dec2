import * as tf from '@tensorflow/tfjs';
import { CACHED_ATTENTION, type CachedAttentionAttrs } from './wasm-cached-attention';
import { RMS_NORM, SWIGLU } from './wasm-layer-kernels';

/**
 * The fused decoder's three kernels (`fused-decoder`) as WGSL programs, so generation on webgpu runs ~11
 * dispatches a layer instead of ~60. On a GPU a decode step of a small model is bound by the number of
 * dispatches, not by arithmetic: tiny-1m sampled 64 rows at 42 ms a step on an H200 and 1,024 rows at 88 ms
 * (docs/benchmarks/perf.md, "On a GPU, third run"), ~295 kernels a step. Same contracts as the wasm kernels
 * (`wasm-layer-kernels`, `wasm-cached-attention`), except that the cache never grows in place: a present is
 * a new buffer of exactly the slots it holds (`capacity` is not read), as tfjs's own ops give.
 *
 * The programs follow tfjs-webgpu 4.22's `WebGPUProgram` shape (its `makeShader` declares the inputs as
 * storage arrays named after `variableNames`, their shapes as uniforms, and calls `main(index)` once per
 * invocation of a flat dispatch). Every declared input is read: WebGPU's automatic pipeline layout drops an
 * unused binding, and tfjs would then bind one too many.
 */
interface WebGpuProgramLike {
  variableNames: string[];
  outputShape: number[];
  shaderKey: string;
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number];
  size?: boolean;
  uniforms?: string;
  getUserCode(): string;
}

interface WebGpuBackendLike {
  runWebGPUProgram(
    program: WebGpuProgramLike,
    inputs: tf.TensorInfo[],
    outputDtype: tf.DataType,
    uniforms?: { type: string; data: number[] }[],
  ): tf.TensorInfo;
}

const WORKGROUP = 64;

/** A program of one invocation per `invocations`, writing `outputShape` (flat dispatch; tfjs splits it past the limit). */
function program(
  shaderKey: string,
  variableNames: string[],
  outputShape: number[],
  invocations: number,
  code: string,
  uniforms?: string,
): WebGpuProgramLike {
  return {
    variableNames,
    outputShape,
    shaderKey,
    dispatchLayout: { x: outputShape.map((_, index) => index) },
    dispatch: [Math.ceil(invocations / WORKGROUP), 1, 1],
    workgroupSize: [WORKGROUP, 1, 1],
    ...(uniforms ? { uniforms } : {}),
    getUserCode: () => code,
  };
}

/** RMSNorm, one invocation a row: x·inverseSqrt(mean(x²) + eps)·weight. */
function rmsNormProgram(rows: number, width: number): WebGpuProgramLike {
  return program(
    'turngym_rms_norm',
    ['x', 'weight'],
    [rows, width],
    rows,
    `
    fn main(index : i32) {
      let rows = uniforms.xShape[0];
      let width = uniforms.xShape[1];
      if (index >= rows) { return; }
      let first = index * width;
      var squares = 0.0;
      for (var j = 0; j < width; j++) {
        let value = x[first + j];
        squares += value * value;
      }
      let inverse = inverseSqrt(squares / f32(width) + uniforms.eps);
      for (var j = 0; j < width; j++) {
        result[first + j] = x[first + j] * inverse * weight[j];
      }
    }`,
    'eps : f32,',
  );
}

/** silu(gate)·up of a fused [N, 2F] projection, one invocation an output. */
function swigluProgram(rows: number, half: number): WebGpuProgramLike {
  return program(
    'turngym_swiglu',
    ['x'],
    [rows, half],
    rows * half,
    `
    fn main(index : i32) {
      let half = uniforms.xShape[1] / 2;
      if (index >= uniforms.xShape[0] * half) { return; }
      let row = index / half;
      let column = index - row * half;
      let gate = x[row * 2 * half + column];
      let up = x[row * 2 * half + half + column];
      result[index] = gate * (1.0 / (1.0 + exp(-gate))) * up;
    }`,
  );
}

/** Model constants baked into the attention programs (a shader per model shape; the sizes per call are uniforms). */
interface Heads {
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
}

/** x·cos + swap_halves(x)·sin of the `headDim` values at `start` of row `n` of `qkv` (`ropeTables`' layout). */
function rotateSnippet(headDim: number): string {
  const half = headDim / 2;
  return `
    fn rotated(start : i32, n : i32, d : i32) -> f32 {
      var swapped = d + ${half};
      if (d >= ${half}) { swapped = d - ${half}; }
      return qkv[start + d] * cosTable[n * ${headDim} + d] + qkv[start + swapped] * sinTable[n * ${headDim} + d];
    }`;
}

/**
 * The layer's present keys (after RoPE) or values: [B, kvHeads, P + T, headDim], the past's first P slots
 * (read at the past buffer's own slot stride, which may have room past them), then this chunk's.
 */
function appendProgram(
  part: 'keys' | 'values',
  heads: Heads,
  outputShape: number[],
  withPast: boolean,
): WebGpuProgramLike {
  const { numHeads, numKvHeads, headDim } = heads;
  const width = (numHeads + 2 * numKvHeads) * headDim;
  const offset = part === 'keys' ? numHeads * headDim : (numHeads + numKvHeads) * headDim;
  const fresh =
    part === 'keys'
      ? `result[index] = rotated(n * ${width} + ${offset} + kv * ${headDim}, n, d);`
      : `result[index] = qkv[n * ${width} + ${offset} + kv * ${headDim} + d];`;
  const size = outputShape.reduce((a, b) => a * b, 1);
  return program(
    `turngym_cache_${part}_${numHeads}_${numKvHeads}_${headDim}_${withPast ? 'past' : 'fresh'}`,
    [...(part === 'keys' ? ['qkv', 'cosTable', 'sinTable'] : ['qkv']), ...(withPast ? ['past'] : [])],
    outputShape,
    size,
    `
    ${part === 'keys' ? rotateSnippet(headDim) : ''}
    fn main(index : i32) {
      let S = uniforms.outShape[2];
      let T = uniforms.qkvShape[0] / uniforms.outShape[0];
      let P = S - T;
      if (index >= uniforms.outShape[0] * ${numKvHeads} * S * ${headDim}) { return; }
      let d = index % ${headDim};
      let slot = (index / ${headDim}) % S;
      let block = index / (${headDim} * S);
      let kv = block % ${numKvHeads};
      let b = block / ${numKvHeads};
      ${
        withPast
          ? `if (slot < P) {
        result[index] = past[(block * uniforms.pastShape[2] + slot) * ${headDim} + d];
        return;
      }`
          : ''
      }
      let n = b * T + (slot - P);
      ${fresh}
    }`,
  );
}

/**
 * Attention of each new token's query heads over the present keys and values, one invocation a (token,
 * head): RoPE on the query, scaled by 1/√headDim, scores over the slots the mask opens (plus the mask's
 * bias), an online softmax and the weighted sum of the values. A row whose mask opens no slot (padding)
 * gets zeros, as the wasm kernel gives.
 */
function attentionProgram(heads: Heads, tokens: number): WebGpuProgramLike {
  const { numHeads, numKvHeads, headDim } = heads;
  const width = (numHeads + 2 * numKvHeads) * headDim;
  const group = numHeads / numKvHeads;
  return program(
    `turngym_cached_attention_${numHeads}_${numKvHeads}_${headDim}`,
    ['qkv', 'cosTable', 'sinTable', 'keys', 'values', 'mask'],
    [tokens, numHeads * headDim],
    tokens * numHeads,
    `
    ${rotateSnippet(headDim)}
    fn main(index : i32) {
      let N = uniforms.qkvShape[0];
      if (index >= N * ${numHeads}) { return; }
      let S = uniforms.maskShape[3];
      let T = uniforms.maskShape[2];
      let n = index / ${numHeads};
      let head = index % ${numHeads};
      let b = n / T;
      let block = (b * ${numKvHeads} + head / ${group}) * S * ${headDim};
      let scale = 1.0 / sqrt(f32(${headDim}));
      var query : array<f32, ${headDim}>;
      var sums : array<f32, ${headDim}>;
      for (var d = 0; d < ${headDim}; d++) {
        query[d] = rotated(n * ${width} + head * ${headDim}, n, d) * scale;
        sums[d] = 0.0;
      }
      var highest = -3.402823e+38;
      var total = 0.0;
      for (var s = 0; s < S; s++) {
        let bias = mask[n * S + s];
        if (bias <= -1e8) { continue; }
        var score = bias;
        for (var d = 0; d < ${headDim}; d++) {
          score += query[d] * keys[block + s * ${headDim} + d];
        }
        let next = max(highest, score);
        let shrink = exp(highest - next);
        let weight = exp(score - next);
        total = total * shrink + weight;
        for (var d = 0; d < ${headDim}; d++) {
          sums[d] = sums[d] * shrink + weight * values[block + s * ${headDim} + d];
        }
        highest = next;
      }
      let out = index * ${headDim};
      for (var d = 0; d < ${headDim}; d++) {
        if (total > 0.0) { result[out + d] = sums[d] / total; } else { result[out + d] = 0.0; }
      }
    }`,
  );
}

/** Registers the three kernels for webgpu (once; tfjs-webgpu must be loaded). */
export function registerWebGpuLayerKernels(): void {
  if (!tf.getKernel('Reshape', 'webgpu') || tf.getKernel(RMS_NORM, 'webgpu')) return;
  tf.registerKernel({
    kernelName: RMS_NORM,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, weight } = inputs as { x: tf.TensorInfo; weight: tf.TensorInfo };
      const [rows, width] = x.shape as [number, number];
      const { eps } = attrs as unknown as { eps: number };
      return (backend as unknown as WebGpuBackendLike).runWebGPUProgram(
        rmsNormProgram(rows, width),
        [x, weight],
        'float32',
        [{ type: 'float32', data: [eps] }],
      );
    },
  });
  tf.registerKernel({
    kernelName: SWIGLU,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend }) => {
      const { x } = inputs as { x: tf.TensorInfo };
      const [rows, width] = x.shape as [number, number];
      return (backend as unknown as WebGpuBackendLike).runWebGPUProgram(swigluProgram(rows, width / 2), [x], 'float32');
    },
  });
  tf.registerKernel({
    kernelName: CACHED_ATTENTION,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const gpu = backend as unknown as WebGpuBackendLike;
      const { qkv, cos, sin, pastK, pastV, mask } = inputs as Record<string, tf.TensorInfo>;
      const { numHeads, numKvHeads, headDim } = attrs as unknown as CachedAttentionAttrs;
      const heads = { numHeads, numKvHeads, headDim };
      const [B, , T, S] = mask!.shape as [number, number, number, number];
      const present = [B, numKvHeads, S, headDim];
      // An empty past has no buffer to bind (WebGPU refuses a zero-sized binding).
      const withPast = S > T && tf.util.sizeFromShape(pastK!.shape) > 0;
      const past = (part: tf.TensorInfo): tf.TensorInfo[] => (withPast ? [part] : []);
      const keys = gpu.runWebGPUProgram(
        appendProgram('keys', heads, present, withPast),
        [qkv!, cos!, sin!, ...past(pastK!)],
        'float32',
      );
      const values = gpu.runWebGPUProgram(
        appendProgram('values', heads, present, withPast),
        [qkv!, ...past(pastV!)],
        'float32',
      );
      const attended = gpu.runWebGPUProgram(
        attentionProgram(heads, B * T),
        [qkv!, cos!, sin!, keys, values, mask!],
        'float32',
      );
      return [attended, keys, values];
    },
  });
}
