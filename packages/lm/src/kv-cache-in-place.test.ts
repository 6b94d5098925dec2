import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { generate, prefill, type Generation, type GenerationRequest } from './generation';
import { CACHED_ATTENTION, useInPlaceAppend, useSimdPrecision } from './internal/wasm-cached-attention';
import { useSharedForks, type KvCache } from './kv-cache';
import { LanguageModel } from './language-model';
import { testConfig } from './tiny-configs';
import { MASKED } from './token-batch';
import { randomTokens, randomWeights } from './__fixtures__/random-weights';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

const describeWasm = wasmTestsRun() ? describe : describe.skip;

const [B, numHeads, numKvHeads, headDim] = [3, 4, 2, 8];

/** One decode step's inputs over `P` cached slots: rows left-padded by 0, 2 and 4 slots, one new token each. */
function stepInputs(P: number, seed: number): { qkv: tf.Tensor; cos: tf.Tensor; sin: tf.Tensor; mask: tf.Tensor } {
  const rng = new SeededRng(seed);
  const S = P + 1;
  const mask = new Float32Array(B * S).fill(MASKED);
  for (let b = 0; b < B; b++) for (let s = Math.min(P, 2 * b); s < S; s++) mask[b * S + s] = 0;
  const angles = Float32Array.from({ length: B * headDim }, () => rng.next() * 6);
  const width = (numHeads + 2 * numKvHeads) * headDim;
  return {
    qkv: tf.tensor2d(
      Float32Array.from({ length: B * width }, () => rng.normal()),
      [B, width],
    ),
    cos: tf.tensor2d(angles.map(Math.cos), [B, headDim]),
    sin: tf.tensor2d(angles.map(Math.sin), [B, headDim]),
    mask: tf.tensor4d(mask, [B, 1, 1, S]),
  };
}

/** A past of `P` cached slots in a buffer of `room` slots per (row, head) block (the rest garbage: NaN). */
function pastBuffer(P: number, room: number, seed: number): tf.Tensor4D {
  const rng = new SeededRng(seed);
  const data = new Float32Array(B * numKvHeads * room * headDim).fill(NaN);
  for (let block = 0; block < B * numKvHeads; block++) {
    for (let i = 0; i < P * headDim; i++) data[block * room * headDim + i] = rng.normal();
  }
  return tf.tensor4d(data, [B, numKvHeads, room, headDim]);
}

/** The first `slots` slots of each block of a [B, kvHeads, C, headDim] buffer. */
function cachedSlots(buffer: tf.Tensor, slots: number): number[] {
  const room = buffer.shape[2] as number;
  const data = buffer.dataSync();
  const out: number[] = [];
  for (let block = 0; block < B * numKvHeads; block++) {
    out.push(...data.subarray(block * room * headDim, (block * room + slots) * headDim));
  }
  return out;
}

function step(inputs: Record<string, tf.Tensor>, capacity?: number): [tf.Tensor, tf.Tensor4D, tf.Tensor4D] {
  return tf.engine().runKernel(CACHED_ATTENTION, inputs as tf.NamedTensorMap, {
    numHeads,
    numKvHeads,
    headDim,
    ...(capacity !== undefined ? { capacity } : {}),
  }) as [tf.Tensor, tf.Tensor4D, tf.Tensor4D];
}

/** The same step with the in-place append off: a new buffer of exactly the cached slots (the old kernel). */
function copyingStep(inputs: Record<string, tf.Tensor>): [tf.Tensor, tf.Tensor4D, tf.Tensor4D] {
  const previous = useInPlaceAppend(false);
  try {
    return step(inputs);
  } finally {
    useInPlaceAppend(previous);
  }
}

describeWasm('CACHED_ATTENTION appends to a preallocated cache in place', () => {
  beforeAll(() => useBackend('wasm'));
  afterAll(() => useBackend('cpu'));

  it('writes the step into the past buffer when it has room, with the copying kernel’s bytes', () => {
    const P = 6;
    const [pastK, pastV] = [pastBuffer(P, 10, 1), pastBuffer(P, 10, 2)];
    const step1 = stepInputs(P, 3);
    const [exactK, exactV] = [pastBuffer(P, P, 1), pastBuffer(P, P, 2)];
    const reference = copyingStep({ ...step1, pastK: exactK, pastV: exactV });
    expect(reference[1].shape).toEqual([B, numKvHeads, P + 1, headDim]);

    const dataBuffers = tf.memory().numDataBuffers;
    const [attended, keys, values] = step({ ...step1, pastK, pastV });
    // Only the attended values are new data: the keys and values are the past's buffers, one slot longer.
    expect(tf.memory().numDataBuffers).toBe(dataBuffers + 1);
    expect(keys.dataId).toBe(pastK.dataId);
    expect(values.dataId).toBe(pastV.dataId);
    expect(keys.shape).toEqual([B, numKvHeads, 10, headDim]);
    expect(Array.from(attended.dataSync())).toEqual(Array.from(reference[0].dataSync()));
    expect(cachedSlots(keys, P + 1)).toEqual(Array.from(reference[1].dataSync()));
    expect(cachedSlots(values, P + 1)).toEqual(Array.from(reference[2].dataSync()));

    // The caller disposes its past (generation does): the appended cache lives on, and takes the next step.
    pastK.dispose();
    pastV.dispose();
    const step2 = stepInputs(P + 1, 4);
    const next = step({ ...step2, pastK: keys, pastV: values });
    const nextReference = copyingStep({ ...step2, pastK: reference[1], pastV: reference[2] });
    expect(next[1].dataId).toBe(keys.dataId);
    expect(Array.from(next[0].dataSync())).toEqual(Array.from(nextReference[0].dataSync()));
    expect(cachedSlots(next[1], P + 2)).toEqual(Array.from(nextReference[1].dataSync()));
    expect(cachedSlots(next[2], P + 2)).toEqual(Array.from(nextReference[2].dataSync()));
    tf.dispose([step1, step2, exactK, exactV, reference, attended, keys, values, next, nextReference].flat());
  });

  it('moves a full cache to a buffer of `capacity` slots, twice the slots needed past it, exactly them without one', () => {
    const P = 5;
    const [pastK, pastV] = [pastBuffer(P, P, 5), pastBuffer(P, P, 6)];
    const inputs = stepInputs(P, 7);
    const reference = copyingStep({ ...inputs, pastK, pastV });
    for (const [capacity, slots] of [
      [20, 20],
      [P, 2 * (P + 1)], // A capacity too small for the step: doubled instead.
      [undefined, P + 1], // The kernel's shape before the in-place append.
    ] as const) {
      const [attended, keys, values] = step({ ...inputs, pastK, pastV }, capacity);
      expect(keys.dataId).not.toBe(pastK.dataId);
      expect(keys.shape).toEqual([B, numKvHeads, slots, headDim]);
      expect(Array.from(attended.dataSync())).toEqual(Array.from(reference[0].dataSync()));
      expect(cachedSlots(keys, P + 1)).toEqual(Array.from(reference[1].dataSync()));
      expect(cachedSlots(values, P + 1)).toEqual(Array.from(reference[2].dataSync()));
      tf.dispose([attended, keys, values]);
    }
    // The full past itself is untouched.
    expect(cachedSlots(pastK, P)).toEqual(cachedSlots(pastBuffer(P, P, 5), P));
    tf.dispose([inputs.qkv, inputs.cos, inputs.sin, inputs.mask, pastK, pastV, ...reference]);
  });

  it('copies a buffer that something else holds (copy on write): the other holder never sees the step', () => {
    const P = 4;
    const [pastK, pastV] = [pastBuffer(P, 12, 8), pastBuffer(P, 12, 9)];
    // A second tensor on the same data, as a forked KvCache holds it.
    const other = tf.reshape(pastK, pastK.shape);
    const before = Array.from(other.dataSync());
    const inputs = stepInputs(P, 10);
    const [attended, keys, values] = step({ ...inputs, pastK, pastV }, 12);
    // Keys and values move together (one of them shared is enough), to a buffer of `capacity` slots.
    expect(keys.dataId).not.toBe(pastK.dataId);
    expect(values.dataId).not.toBe(pastV.dataId);
    expect(keys.shape).toEqual([B, numKvHeads, 12, headDim]);
    // Slot P of the shared buffer (NaN, unwritten) is still NaN: nothing was appended to it.
    expect(Array.from(other.dataSync())).toEqual(before);
    const reference = copyingStep({ ...inputs, pastK: pastBuffer(P, P, 8), pastV: pastBuffer(P, P, 9) });
    expect(cachedSlots(keys, P + 1)).toEqual(Array.from(reference[1].dataSync()));
    expect(cachedSlots(values, P + 1)).toEqual(Array.from(reference[2].dataSync()));
    tf.dispose([inputs.qkv, inputs.cos, inputs.sin, inputs.mask, pastK, pastV, other, attended, keys, values]);
    tf.dispose(reference);
  });
});

describeWasm('generation over in-place caches, forks and prefix views', () => {
  const config = testConfig({ maxPositions: 96, hiddenSize: 64, numHeads: 4, numKvHeads: 2 });
  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend('wasm');
    model = LanguageModel.fromTensors(config, randomWeights(config, 21), new ByteTokenizer());
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 5 });
  });
  afterAll(async () => {
    model.dispose();
    await useBackend('cpu');
  });

  const options = { maxTokens: 10, temperature: 1, adapter: 'policy', keepCache: true, stopTokenIds: [] };
  const bytes = (cache: KvCache): number[][] =>
    cache.layers.flatMap((layer) => [layer.k, layer.v]).map((tensor) => Array.from(tensor.dataSync()));

  /** Branches of a tree: two forks of one node, and a prefix view of a longer turn, each generating. */
  function tree(): { results: Generation[]; node: KvCache; nodeBytes: number[][]; caches: KvCache[] } {
    const node = prefill(model, randomTokens(13, 256, 31), { adapter: 'policy' });
    const nodeBytes = bytes(node);
    const turn = generate(model, [{ tokens: [...node.tokens, ...randomTokens(6, 256, 32)], cache: node }], options)[0]!;
    const view = turn.cache!.prefixOf(turn.promptTokens, turn.promptLogits!);
    const forks = [node.fork(), node.fork()];
    const requests: GenerationRequest[] = [
      { tokens: [...node.tokens, 7, 8], cache: forks[0]!, seed: 1 },
      { tokens: [...node.tokens, 9], cache: forks[1]!, seed: 2 },
      { cache: view, seed: 3 },
    ];
    const results = generate(model, requests, options);
    return { results, node, nodeBytes, caches: [turn.cache!, view, ...forks] };
  }

  const summary = (results: readonly Generation[]): unknown =>
    results.map((result) => ({ tokens: result.tokens, logprobs: result.logprobs, cache: bytes(result.cache!) }));

  it('samples the same tokens, logprobs and caches as copying every step and every fork (float64: bit for bit)', () => {
    const precision = useSimdPrecision('float64');
    try {
      const inPlace = tree();
      const previous = [useInPlaceAppend(false), useSharedForks(false)] as const;
      let copying: ReturnType<typeof tree>;
      try {
        copying = tree();
      } finally {
        useInPlaceAppend(previous[0]);
        useSharedForks(previous[1]);
      }
      expect(summary(inPlace.results)).toEqual(summary(copying.results));
      for (const run of [inPlace, copying]) {
        run.results.forEach((result) => result.cache!.dispose());
        [run.node, ...run.caches].forEach((cache) => cache.dispose());
      }
    } finally {
      useSimdPrecision(precision);
    }
  });

  it('keeps branches apart: generating from forks and views never changes the node or a sibling', () => {
    const { results, node, nodeBytes, caches } = tree();
    // The node's memory, shared with both forks, is as prefill left it.
    expect(bytes(node)).toEqual(nodeBytes);
    const [, view, fork0, fork1] = caches as [KvCache, KvCache, KvCache, KvCache];
    expect(bytes(fork0)).toEqual(nodeBytes);
    expect(bytes(fork1)).toEqual(nodeBytes);
    // A fork shares the node's buffers: no copy, and disposing the node leaves the fork usable.
    expect(fork0.layers[0]!.k.dataId).toBe(node.layers[0]!.k.dataId);
    node.dispose();
    const again = generate(model, [{ tokens: [...fork0.tokens, 7, 8], cache: fork0, seed: 1 }], options)[0]!;
    expect(again.tokens).toEqual(results[0]!.tokens);
    expect(again.logprobs).toEqual(results[0]!.logprobs);
    // Each branch's cache continues its own prefix: the first slots of every layer are the node's, in order.
    results.slice(0, 2).forEach((result) => {
      expect(result.cache!.cachedLength).toBe(result.promptTokens + result.tokens.length - 1);
    });
    expect(results[2]!.cache!.tokens.slice(0, view.length)).toEqual([...view.tokens]);
    again.cache!.dispose();
    results.forEach((result) => result.cache!.dispose());
    caches.forEach((cache) => cache.dispose());
  });
});
