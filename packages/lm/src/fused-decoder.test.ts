import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { generate, prefill, type GenerationRequest } from './generation';
import { fusedDecoderAvailable } from './internal/fused-decoder';
import { RMS_NORM } from './internal/wasm-layer-kernels';
import { limitTensorBytesForTests } from './internal/webgpu-device-errors';
import { LanguageModel } from './language-model';
import { testConfig, TINY_CONFIGS } from './tiny-configs';
import { randomTokens, randomWeights } from './__fixtures__/random-weights';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

const describeWasm = wasmTestsRun() ? describe : describe.skip;

/** Runs `run` with the wasm generation kernels taken away, so generation runs `runDecoder`'s tfjs ops. */
function withoutFusedDecoder<T>(run: () => T): T {
  const kernel = tf.getKernel(RMS_NORM, 'wasm')!;
  tf.unregisterKernel(RMS_NORM, 'wasm');
  try {
    return run();
  } finally {
    tf.registerKernel(kernel);
  }
}

/** The splits RoPE and the fused decoder make, on several axes and sizes, as numbers. */
async function splits(): Promise<number[][]> {
  const x = tf.tensor3d(
    Float32Array.from({ length: 2 * 6 * 8 }, (_, i) => Math.sin(i * 0.3) * 5),
    [2, 6, 8],
  );
  const pieces = [
    ...tf.split(x, 2, -1),
    ...tf.split(x, [1, 3, 2], 1),
    ...tf.split(x, [2, 0], 0),
    ...tf.split(tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3], 'int32'), [1, 2], 1),
  ];
  const out = await Promise.all(pieces.map(async (piece) => [...piece.shape, ...(await piece.data())]));
  tf.dispose([x, ...pieces]);
  return out;
}

describeWasm('generation on wasm: the fused decoder and its kernels', () => {
  const config = testConfig({ maxPositions: 96 });
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend('wasm');
    model = LanguageModel.fromTensors(config, randomWeights(config, 6), new ByteTokenizer());
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 2 });
    // A fresh adapter has B = 0 and changes nothing: random values, so merging it into the weights is tested.
    const rng = new SeededRng(9);
    const tensors = await model.adapter('policy').toTensors();
    for (const tensor of tensors.values()) tensor.data.forEach((_, i) => (tensor.data[i] = 0.2 * rng.normal()));
    model.adapter('policy').setTensors(tensors);
  });
  afterAll(async () => {
    model.dispose();
    await useBackend('cpu');
  });

  /** Branches from prefixes of different lengths (a rollout tree's round), each continued by a turn's chunk. */
  function branchRequests(): { requests: GenerationRequest[]; dispose: () => void } {
    const prefixes = [4, 19, 11, 27].map((length, row) => randomTokens(length, 256, 60 + row));
    const caches = prefixes.map((tokens) => prefill(model, tokens, { adapter: 'policy' }));
    // Chunks of 1 and 12 tokens: the kernel's attention and tfjs's batched matmuls both run.
    const requests = prefixes.map((tokens, row) => ({
      tokens: [...tokens, ...randomTokens(row % 2 === 0 ? 1 : 12, 256, 80 + row)],
      cache: caches[row]!,
      seed: 30 + row,
    }));
    return { requests, dispose: () => caches.forEach((cache) => cache.dispose()) };
  }

  it('samples the tokens the tfjs ops sample, with logprobs and caches that score agrees with', async () => {
    const options = { maxTokens: 10, temperature: 1, adapter: 'policy', keepCache: true, stopTokenIds: [] };
    const fusedBranches = branchRequests();
    const fused = generate(model, fusedBranches.requests, options);
    const plainBranches = branchRequests();
    const plain = withoutFusedDecoder(() => generate(model, plainBranches.requests, options));
    expect(fused.map((result) => result.tokens)).toEqual(plain.map((result) => result.tokens));
    const histories = fusedBranches.requests.map((request, row) => [...request.tokens!, ...fused[row]!.tokens]);
    const scored = await model.score(
      histories.map((tokens) => ({ tokens })),
      { adapter: 'policy' },
    );
    fused.forEach((result, row) => {
      const start = fusedBranches.requests[row]!.tokens!.length;
      result.logprobs.forEach((logprob, t) => {
        expect(Math.abs(logprob - plain[row]!.logprobs[t]!)).toBeLessThan(1e-5);
        expect(Math.abs(logprob - scored.logprobs[row]![start + t]!)).toBeLessThan(1e-4);
      });
      // The row's cache holds the keys and values the tfjs ops compute (RoPE rounds alike; a split only copies).
      const ownKeys = result.cache!.layers[0]!.k.dataSync();
      const plainKeys = plain[row]!.cache!.layers[0]!.k.dataSync();
      expect(Math.max(...ownKeys.map((value, i) => Math.abs(value - plainKeys[i]!)))).toBeLessThan(1e-5);
    });
    [...fused, ...plain].forEach((result) => result.cache!.dispose());
    fusedBranches.dispose();
    plainBranches.dispose();
  });

  it('fuses models up to tiny-30m on wasm (a second copy of the weights a call), not tiny-100m, and not on cpu', async () => {
    expect(fusedDecoderAvailable(TINY_CONFIGS['tiny-1m'])).toBe(true);
    expect(fusedDecoderAvailable(TINY_CONFIGS['tiny-30m'])).toBe(true);
    expect(fusedDecoderAvailable(TINY_CONFIGS['tiny-100m'])).toBe(false);
    await useBackend('cpu');
    expect(fusedDecoderAvailable(TINY_CONFIGS['tiny-1m'])).toBe(false);
    await useBackend('wasm');
  });

  it('runs a chunk whose fused activations would pass the tensor limit through runDecoder, drawing the same tokens', async () => {
    const requests = [{ tokens: randomTokens(12, 256, 95), seed: 4 }];
    const options = { maxTokens: 6, temperature: 1, adapter: 'policy', stopTokenIds: [] };
    const fusedKernels = async (run: () => unknown): Promise<number> =>
      (await tf.profile(() => void run())).kernels.filter((kernel) => kernel.name === RMS_NORM).length;
    const unlimited = generate(model, requests, options);
    expect(await fusedKernels(() => generate(model, requests, { ...options, maxTokens: 1 }))).toBeGreaterThan(0);
    // Room for a decode step's activations (one token a row), not for the 12-token prompt's.
    limitTensorBytesForTests(4 * 2 * config.intermediateSize * 4);
    try {
      expect(await fusedKernels(() => generate(model, requests, { ...options, maxTokens: 1 }))).toBe(0);
      const limited = generate(model, requests, options);
      expect(limited[0]!.tokens).toEqual(unlimited[0]!.tokens);
      limited[0]!.logprobs.forEach((logprob, t) =>
        expect(Math.abs(logprob - unlimited[0]!.logprobs[t]!)).toBeLessThan(1e-4),
      );
    } finally {
      limitTensorBytesForTests(null);
    }
  });

  it('splits (SplitV) with straight heap copies: the same values as the cpu backend', async () => {
    await useBackend('cpu');
    const cpu = await splits();
    await useBackend('wasm');
    expect(await splits()).toEqual(cpu);
  });

  it("keeps the fused weights between calls, and rebuilds them when an adapter's tensors are assigned", async () => {
    const options = { maxTokens: 6, temperature: 1, adapter: 'policy', stopTokenIds: [] };
    const prompt = randomTokens(9, 256, 91);
    generate(model, [{ tokens: prompt, seed: 1 }], options);
    const kept = tf.memory().numTensors;
    // A second call builds nothing: no tensor more or less (a rebuilt copy would be freed, not kept).
    const before = generate(model, [{ tokens: prompt, seed: 1 }], options)[0]!;
    expect(tf.memory().numTensors).toBe(kept);
    // Training assigns the adapter's variables new tensors: the next call samples from the new weights.
    const adapter = model.adapter('policy');
    const original = await adapter.toTensors();
    const changed = await adapter.toTensors();
    const rng = new SeededRng(12);
    for (const tensor of changed.values()) tensor.data.forEach((_, i) => (tensor.data[i] = 0.3 * rng.normal()));
    adapter.setTensors(changed);
    try {
      const after = generate(model, [{ tokens: prompt, seed: 1 }], options)[0]!;
      expect(tf.memory().numTensors).toBe(kept);
      const scored = await model.score([{ tokens: [...prompt, ...after.tokens] }], { adapter: 'policy' });
      after.logprobs.forEach((logprob, t) =>
        expect(Math.abs(logprob - scored.logprobs[0]![prompt.length + t]!)).toBeLessThan(1e-4),
      );
      expect(after.logprobs).not.toEqual(before.logprobs);
    } finally {
      adapter.setTensors(original);
    }
  });

  it('a disposed model, or a removed adapter, frees the fused weights kept for it', () => {
    const before = tf.memory().numTensors;
    const other = LanguageModel.fromTensors(config, randomWeights(config, 7), new ByteTokenizer());
    other.addAdapter('a', { rank: 4, alpha: 8, seed: 3 });
    const withAdapter = tf.memory().numTensors;
    generate(other, [{ tokens: randomTokens(5, 256, 92) }], { maxTokens: 3, adapter: 'a' });
    expect(tf.memory().numTensors).toBeGreaterThan(withAdapter);
    other.removeAdapter('a');
    generate(other, [{ tokens: randomTokens(5, 256, 93) }], { maxTokens: 3 });
    other.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('leaks no tensors', () => {
    // The call's fused weights are kept from here on (above); every other tensor of the call must go.
    generate(model, [{ tokens: randomTokens(3, 256, 94) }], { maxTokens: 2, adapter: 'policy' });
    const before = tf.memory().numTensors;
    const branches = branchRequests();
    const results = generate(model, branches.requests, { maxTokens: 5, adapter: 'policy', keepCache: true });
    results.forEach((result) => result.cache?.dispose());
    branches.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});
