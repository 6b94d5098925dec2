import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { generate, prefill, type GenerationRequest } from './generation';
import { CACHED_ATTENTION, useSimdAttention, useSimdPrecision } from './internal/wasm-cached-attention';
import { attentionModuleBytes, simdAttention, type AttentionPrecision } from './internal/wasm-simd-attention';
import { LanguageModel } from './language-model';
import { testConfig } from './tiny-configs';
import { MASKED } from './token-batch';
import { randomTokens, randomWeights } from './__fixtures__/random-weights';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

const describeWasm = wasmTestsRun() ? describe : describe.skip;

interface Case {
  readonly B: number;
  readonly T: number;
  readonly P: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
}

/**
 * The kernel's inputs as generation builds them, with random values: rows whose caches are left-padded by
 * different amounts (ragged prefixes), a padding row (no slot open), and a causal chunk of T tokens.
 */
function kernelInputs(shape: Case, seed: number): Record<string, tf.Tensor> {
  const { B, T, P, numHeads, numKvHeads, headDim } = shape;
  const rng = new SeededRng(seed);
  const S = P + T;
  const random = (size: number, scale = 1): Float32Array =>
    Float32Array.from({ length: size }, () => scale * rng.normal());
  const mask = new Float32Array(B * T * S).fill(MASKED);
  for (let b = 0; b < B; b++) {
    if (b === 1) continue; // A row that only rides along: every slot closed.
    const padding = Math.min(P, (b * 5) % (P + 1));
    for (let t = 0; t < T; t++) {
      for (let s = padding; s < P + t + 1; s++) mask[(b * T + t) * S + s] = 0;
    }
  }
  const angles = Float32Array.from({ length: B * T * headDim }, () => rng.next() * 6);
  return {
    // Scale 3: scores spread over tens of units, so exp sees large negative arguments too.
    qkv: tf.tensor2d(random(B * T * (numHeads + 2 * numKvHeads) * headDim, 3), [
      B * T,
      (numHeads + 2 * numKvHeads) * headDim,
    ]),
    cos: tf.tensor2d(angles.map(Math.cos), [B * T, headDim]),
    sin: tf.tensor2d(angles.map(Math.sin), [B * T, headDim]),
    pastK: tf.tensor4d(random(B * numKvHeads * P * headDim, 3), [B, numKvHeads, P, headDim]),
    pastV: tf.tensor4d(random(B * numKvHeads * P * headDim), [B, numKvHeads, P, headDim]),
    mask: tf.tensor4d(mask, [B, 1, T, S]),
  };
}

function runKernel(
  shape: Case,
  inputs: Record<string, tf.Tensor>,
  simd: boolean,
  precision: AttentionPrecision = 'float64',
): Float32Array[] {
  const previous = useSimdAttention(simd);
  const previousPrecision = useSimdPrecision(precision);
  try {
    const { numHeads, numKvHeads, headDim } = shape;
    const outputs = tf.engine().runKernel(CACHED_ATTENTION, inputs, { numHeads, numKvHeads, headDim }) as tf.Tensor[];
    const values = outputs.map((tensor) => tensor.dataSync() as Float32Array);
    tf.dispose(outputs);
    return values;
  } finally {
    useSimdAttention(previous);
    useSimdPrecision(previousPrecision);
  }
}

describeWasm('wasm SIMD attention: the same bits as the JavaScript loops', () => {
  beforeAll(() => useBackend('wasm'));
  afterAll(() => useBackend('cpu'));

  it.each([
    // tiny-1m's heads (group 2, head 32) at a decode step and at a prefill chunk; head sizes 8 and 64.
    { B: 5, T: 1, P: 37, numHeads: 4, numKvHeads: 2, headDim: 32 },
    { B: 3, T: 6, P: 20, numHeads: 4, numKvHeads: 2, headDim: 32 },
    { B: 4, T: 2, P: 9, numHeads: 4, numKvHeads: 2, headDim: 8 },
    { B: 2, T: 1, P: 50, numHeads: 8, numKvHeads: 4, headDim: 64 },
  ])('equals the JavaScript loops bit for bit: %o', (shape) => {
    const inputs = kernelInputs(shape, shape.P);
    const simd = runKernel(shape, inputs, true);
    const plain = runKernel(shape, inputs, false);
    tf.dispose(Object.values(inputs));
    expect(simd.map((values) => Array.from(values))).toEqual(plain.map((values) => Array.from(values)));
    // The padding row's output is zeros; every other row attended to something.
    const width = shape.numHeads * shape.headDim;
    expect(simd[0]!.subarray(shape.T * width, 2 * shape.T * width).every((value) => value === 0)).toBe(true);
    expect(simd[0]!.subarray(0, shape.T * width).some((value) => value !== 0)).toBe(true);
  });

  it.each([
    { B: 3, T: 1, P: 30, numHeads: 2, numKvHeads: 2, headDim: 16 },
    { B: 3, T: 3, P: 12, numHeads: 8, numKvHeads: 2, headDim: 16 },
  ])('agrees with the JavaScript loops to float rounding for other group sizes: %o', (shape) => {
    // Group 2 pairs the dot products' terms as the loops do; other groups add them in another order.
    const inputs = kernelInputs(shape, 7);
    const [simd] = runKernel(shape, inputs, true);
    const [plain] = runKernel(shape, inputs, false);
    tf.dispose(Object.values(inputs));
    simd!.forEach((value, i) => expect(Math.abs(value - plain![i]!)).toBeLessThan(1e-6));
  });

  it.each([
    { B: 5, T: 1, P: 37, numHeads: 4, numKvHeads: 2, headDim: 32 },
    { B: 3, T: 6, P: 20, numHeads: 4, numKvHeads: 2, headDim: 32 },
    { B: 4, T: 2, P: 9, numHeads: 4, numKvHeads: 2, headDim: 8 },
    { B: 2, T: 1, P: 50, numHeads: 8, numKvHeads: 4, headDim: 64 },
    { B: 3, T: 1, P: 30, numHeads: 2, numKvHeads: 2, headDim: 16 },
    { B: 3, T: 3, P: 12, numHeads: 8, numKvHeads: 2, headDim: 16 },
  ])('in float32 agrees with the JavaScript loops to float32 rounding: %o', (shape) => {
    const inputs = kernelInputs(shape, 100 + shape.P);
    const [attended, keys, values] = runKernel(shape, inputs, true, 'float32');
    const [plain, plainKeys, plainValues] = runKernel(shape, inputs, false);
    tf.dispose(Object.values(inputs));
    // The caches are copies (the same bits); the attended values are averages of values ~N(0, 1) under
    // weights from scores of tens of units, so float32 dot products move them by ~1e-6.
    expect(Array.from(keys!)).toEqual(Array.from(plainKeys!));
    expect(Array.from(values!)).toEqual(Array.from(plainValues!));
    let largest = 0;
    attended!.forEach((value, i) => (largest = Math.max(largest, Math.abs(value - plain![i]!))));
    expect(largest).toBeLessThan(2e-5);
    const width = shape.numHeads * shape.headDim;
    expect(attended!.subarray(shape.T * width, 2 * shape.T * width).every((value) => value === 0)).toBe(true);
  });

  it('builds a valid module for head sizes that are multiples of 4 and refuses others', () => {
    for (const headDim of [4, 8, 32, 64, 128]) {
      for (const precision of ['float64', 'float32'] as const) {
        expect(WebAssembly.validate(attentionModuleBytes(headDim, false, precision))).toBe(true);
        expect(WebAssembly.validate(attentionModuleBytes(headDim, true, precision))).toBe(true);
      }
    }
    expect(() => attentionModuleBytes(6, false)).toThrow(RangeError);
    expect(simdAttention(new WebAssembly.Memory({ initial: 1 }), 6)).toBeNull();
  });

  it("computes V8's Math.exp bit for bit for the softmax weights", () => {
    // Keys zero, so each slot's score is its mask bias; the scratch is left holding the weights exp(bias − max).
    const memory = new WebAssembly.Memory({ initial: 1 });
    const attend = simdAttention(memory, 4)!;
    const heap = memory.buffer;
    const rng = new SeededRng(5);
    const biases = [
      0,
      -1e-10,
      -0.3,
      -0.35,
      -1,
      -1.04,
      -5,
      -708,
      -709.9,
      -744,
      -746,
      ...Array.from({ length: 500 }, () => -rng.next() * 50),
      ...Array.from({ length: 500 }, () => -rng.next() * 800),
    ].map(Math.fround);
    const count = biases.length;
    new Float64Array(heap, 0, 4).fill(0);
    new Float32Array(heap, 64, 4 * count).fill(0);
    new Int32Array(heap, 64 + 16 * count, count).forEach((_, i, open) => (open[i] = i));
    new Float32Array(heap, 64 + 20 * count, count).set(biases);
    const scoresAt = 64 + 24 * count;
    attend(0, 1, 64, 64, 64 + 16 * count, count, 64 + 20 * count, scoresAt, scoresAt + 8 * count);
    expect(Array.from(new Float64Array(heap, scoresAt, count))).toEqual(biases.map((bias) => Math.exp(bias)));
  });
});

describeWasm('generation with the wasm SIMD attention', () => {
  const config = testConfig({ maxPositions: 96, hiddenSize: 64, numHeads: 4, numKvHeads: 2 });
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend('wasm');
    model = LanguageModel.fromTensors(config, randomWeights(config, 11), new ByteTokenizer());
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 3 });
  });
  afterAll(async () => {
    model.dispose();
    await useBackend('cpu');
  });

  /** A tree round: forks of prefixes of different lengths (one prefix forked twice), each continued by a chunk. */
  function branches(): { requests: GenerationRequest[]; dispose: () => void } {
    const prefixes = [5, 23, 14].map((length, row) => randomTokens(length, 256, 40 + row));
    const nodes = prefixes.map((tokens) => prefill(model, tokens, { adapter: 'policy' }));
    const forks = [0, 1, 1, 2].map((node) => nodes[node]!.fork());
    const requests = forks.map((cache, row) => ({
      tokens: [...cache.tokens, ...randomTokens(row === 2 ? 9 : 1 + row, 256, 70 + row)],
      cache,
      seed: 20 + row,
    }));
    return { requests, dispose: () => [...nodes, ...forks].forEach((cache) => cache.dispose()) };
  }

  it('in float64, samples the same tokens with the same logprobs and caches as the JavaScript loops', () => {
    const options = { maxTokens: 12, temperature: 1, adapter: 'policy', keepCache: true, stopTokenIds: [] };
    const simdBranches = branches();
    const previousPrecision = useSimdPrecision('float64');
    let simd;
    try {
      simd = generate(model, simdBranches.requests, options);
    } finally {
      useSimdPrecision(previousPrecision);
    }
    const plainBranches = branches();
    const previous = useSimdAttention(false);
    let plain;
    try {
      plain = generate(model, plainBranches.requests, options);
    } finally {
      useSimdAttention(previous);
    }
    expect(simd.map(({ tokens, logprobs }) => ({ tokens, logprobs }))).toEqual(
      plain.map(({ tokens, logprobs }) => ({ tokens, logprobs })),
    );
    simd.forEach((result, row) => {
      expect(Array.from(result.cache!.layers[1]!.v.dataSync())).toEqual(
        Array.from(plain[row]!.cache!.layers[1]!.v.dataSync()),
      );
    });
    [...simd, ...plain].forEach((result) => result.cache!.dispose());
    simdBranches.dispose();
    plainBranches.dispose();
  });

  it('in float32 (the default), samples with logprobs that a full forward pass agrees with', async () => {
    const options = { maxTokens: 12, temperature: 1, adapter: 'policy', keepCache: true, stopTokenIds: [] };
    const simdBranches = branches();
    const simd = generate(model, simdBranches.requests, options);
    const histories = simdBranches.requests.map((request, row) => [...request.tokens!, ...simd[row]!.tokens]);
    const scored = await model.score(
      histories.map((tokens) => ({ tokens })),
      { adapter: 'policy' },
    );
    simd.forEach((result, row) => {
      const start = simdBranches.requests[row]!.tokens!.length;
      result.logprobs.forEach((logprob, t) =>
        expect(Math.abs(logprob - scored.logprobs[row]![start + t]!)).toBeLessThan(1e-4),
      );
      result.cache!.dispose();
    });
    simdBranches.dispose();
  });
});
