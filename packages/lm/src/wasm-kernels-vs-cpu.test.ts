import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { backendInfo, useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { attendWithOps } from './decoder';
import { generate, prefill } from './generation';
import { useFusedDecoder } from './internal/fused-decoder';
import {
  CACHED_ATTENTION,
  useSimdAttention,
  useSimdPrecision,
  type CachedAttentionAttrs,
} from './internal/wasm-cached-attention';
import type { AttentionPrecision } from './internal/wasm-simd-attention';
import { LanguageModel } from './language-model';
import type { ModelConfig } from './model-config';
import { testConfig } from './tiny-configs';
import { MASKED } from './token-batch';
import { randomTokens, randomWeights } from './__fixtures__/random-weights';
import { wasmTestsRun } from './__fixtures__/wasm-tests';

// The kernels this package registers (fast-kernels and its wasm-* fills) held to tfjs's cpu backend, and the
// fused attention kernel to `attendWithOps`, on seeded random inputs: the shapes real runs hit and the ones they
// rarely do (broadcast batch dimensions, batch sizes across SIMD widths, empty dimensions, GQA, head sizes that
// are not multiples of 4, padding rows, a past buffer with room), one thread and two.

const describeWasm = wasmTestsRun() ? describe : describe.skip;

/** Seeded values in [−scale, scale). */
function values(rng: SeededRng, count: number, scale = 1): Float32Array {
  return Float32Array.from({ length: count }, () => (2 * rng.next() - 1) * scale);
}

interface Result {
  readonly shape: number[];
  readonly data: number[];
}

/** Runs `build` on `backend` with the same seed each time and reads its tensors back; disposes everything. */
async function runOn(
  backend: 'cpu' | 'wasm',
  seed: number,
  build: (rng: SeededRng) => tf.Tensor | tf.Tensor[],
): Promise<Result[]> {
  await useBackend(backend);
  const made = tf.tidy(() => build(new SeededRng(seed)));
  const tensors = Array.isArray(made) ? made : [made];
  const results = await Promise.all(
    tensors.map(async (tensor) => ({ shape: tensor.shape, data: Array.from(await tensor.data()) })),
  );
  tf.dispose(tensors);
  return results;
}

/** Largest |a − b| / (1 + |b|); NaN where one side is NaN and the other not. */
function relativeDifference(a: readonly number[], b: readonly number[]): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (Number.isNaN(x) || Number.isNaN(y)) {
      if (Number.isNaN(x) !== Number.isNaN(y)) return NaN;
      continue;
    }
    if (x === y) continue;
    worst = Math.max(worst, Math.abs(x - y) / (1 + Math.abs(y)));
  }
  return worst;
}

/** wasm's results match cpu's: the same shapes, values within `tolerance`. */
async function expectSameAsCpu(
  seed: number,
  build: (rng: SeededRng) => tf.Tensor | tf.Tensor[],
  tolerance = 1e-5,
): Promise<void> {
  const cpu = await runOn('cpu', seed, build);
  const wasm = await runOn('wasm', seed, build);
  expect(wasm.map((result) => result.shape)).toEqual(cpu.map((result) => result.shape));
  wasm.forEach((result, i) => {
    expect(result.data.length).toBe(cpu[i]!.data.length);
    expect(relativeDifference(result.data, cpu[i]!.data)).toBeLessThanOrEqual(tolerance);
  });
}

/** Products big enough (M·K·N ≥ 32768) that the wasm wrapper splits equal batches into batch-1 products. */
const M = 48;
const K = 40;
const N = 32;

async function broadcastMatMuls(): Promise<void> {
  const cases: [number[], number[]][] = [
    [
      [2, 1],
      [1, 2],
    ],
    [
      [3, 1],
      [1, 3],
    ],
    [[1, 4], [4]],
    [
      [2, 3],
      [2, 3],
    ],
  ];
  for (const [left, right] of cases) {
    for (const [transposeA, transposeB] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ] as const) {
      await expectSameAsCpu(17, (rng) => {
        const aShape = [...left, ...(transposeA ? [K, M] : [M, K])];
        const bShape = [...right, ...(transposeB ? [N, K] : [K, N])];
        const a = tf.tensor(
          values(
            rng,
            aShape.reduce((x, y) => x * y, 1),
          ),
          aShape,
        );
        const b = tf.tensor(
          values(
            rng,
            bShape.reduce((x, y) => x * y, 1),
          ),
          bShape,
        );
        return tf.matMul(a, b, transposeA, transposeB);
      });
    }
  }
}

describe('the cpu backend’s UnsortedSegmentSum (the gradient of gather)', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it('sums int32 segments exactly, past float32’s 2²⁴', async () => {
    const sums = tf.unsortedSegmentSum(
      tf.tensor1d([16777217, 1, 2147483000, -16777219, 5], 'int32'),
      tf.tensor1d([0, 1, 2, 3, 3], 'int32'),
      4,
    );
    expect(sums.dtype).toBe('int32');
    expect(Array.from(await sums.data())).toEqual([16777217, 1, 2147483000, -16777214]);
    sums.dispose();
  });

  it('drops ids out of range and keeps NaN and infinities in their own segment, float32', async () => {
    const sums = tf.unsortedSegmentSum(
      tf.tensor2d([1, 2, NaN, 4, Infinity, 6, -Infinity, 8, 9, 10], [5, 2]),
      tf.tensor1d([0, 1, 2, -1, 7], 'int32'),
      3,
    );
    expect(Array.from(await sums.data())).toEqual([1, 2, NaN, 4, Infinity, 6]);
    sums.dispose();
  });
});

describeWasm('wasm kernels against the cpu backend (seeded)', () => {
  afterAll(async () => {
    useSimdAttention(true);
    useSimdPrecision('float32');
    await useBackend('cpu');
  });

  it('BatchMatMul broadcasts batch dimensions as cpu does ([2, 1] × [1, 2] is four products), every transpose', async () => {
    await broadcastMatMuls();
  });

  it('BatchMatMul: batch sizes across SIMD widths, transposed or not, big and small, and empty dimensions', async () => {
    for (const batch of [1, 3, 4, 5, 7, 8, 9, 17]) {
      for (const [m, k, n] of [
        [M, K, N],
        [3, 5, 7],
      ] as const) {
        await expectSameAsCpu(batch, (rng) => {
          const a = tf.tensor3d(values(rng, batch * m * k), [batch, k, m]);
          const b = tf.tensor3d(values(rng, batch * n * k), [batch, n, k]);
          return [
            tf.matMul(a, b, true, true),
            tf.matMul(tf.transpose(a, [0, 2, 1]), tf.transpose(b, [0, 2, 1])),
            tf.matMul(tf.reshape(a, [batch * k, m]), tf.tensor2d(values(rng, m * n), [m, n])),
          ];
        });
      }
    }
    await expectSameAsCpu(1, () => [
      tf.matMul(tf.zeros([3, 0, 64]), tf.ones([3, 64, 64])),
      tf.matMul(tf.zeros([3, 64, 0]), tf.zeros([3, 0, 64])),
      tf.matMul(tf.zeros([3, 0, 64]), tf.zeros([3, 0, 64]), true),
    ]);
  });

  it('BatchMatMul of int32 refuses with tfjs’s error and leaves nothing on the heap, transposed or split', async () => {
    await useBackend('wasm');
    const a = tf.tensor3d(
      Int32Array.from({ length: 2 * 64 * 64 }, (_, i) => (i % 7) - 3),
      [2, 64, 64],
      'int32',
    );
    const held = tf.backend().numDataIds();
    for (const [transposeA, transposeB] of [
      [true, true],
      [false, false],
      [true, false],
    ] as const) {
      expect(() => tf.matMul(a, a, transposeA, transposeB)).toThrow(/float32/);
    }
    expect(tf.backend().numDataIds()).toBe(held);
    a.dispose();
  });

  it('gradients of matmul, gather and split (UnsortedSegmentSum, transposed products, concat) match cpu', async () => {
    await expectSameAsCpu(
      5,
      (rng) => {
        const a = tf.tensor3d(values(rng, 5 * 64 * 40), [5, 64, 40]);
        const b = tf.tensor3d(values(rng, 5 * 40 * 48), [5, 40, 48]);
        const table = tf.tensor2d(values(rng, 11 * 7), [11, 7]);
        const ids = tf.tensor2d([1, 1, 3, 10, 0, 1, 1, 1, 9], [3, 3], 'int32');
        const weights = tf.tensor3d(values(rng, 3 * 3 * 7), [3, 3, 7]);
        const x = tf.tensor3d(values(rng, 2 * 3 * 10), [2, 3, 10]);
        const grads = tf.grads((p: tf.Tensor, q: tf.Tensor, e: tf.Tensor, s: tf.Tensor) => {
          const product = tf.sum(tf.square(tf.matMul(p, q)));
          const lookup = tf.sum(tf.mul(tf.gather(e, ids), weights));
          const byAxis = tf.sum(tf.square(tf.gather(e, tf.tensor1d([6, 0, 6], 'int32'), 1)));
          const [first, second, third] = tf.split(s, [3, -1, 2], 2) as [tf.Tensor, tf.Tensor, tf.Tensor];
          const pieces = tf
            .sum(tf.mul(first, 2))
            .add(tf.sum(tf.square(second)))
            .sub(tf.sum(tf.exp(third)));
          return tf.addN([product, lookup, byAxis, pieces]) as tf.Scalar;
        });
        return grads([a, b, table, x]);
      },
      2e-5,
    );
  });

  it('gather, unsortedSegmentSum and split on any axis, int32, bool, scalar ids, empty tensors', async () => {
    await expectSameAsCpu(
      8,
      (rng) => {
        const x = tf.tensor3d(values(rng, 2 * 3 * 5, 1e30), [2, 3, 5]);
        return [
          tf.gather(x, tf.tensor1d([4, 0, 4, 3], 'int32'), -1),
          tf.gather(x, tf.scalar(2, 'int32'), 1),
          tf.gather(x, tf.tensor2d([0, 2, 1, 1], [2, 2], 'int32'), 1, 1),
          tf.gather(tf.tensor2d([16777217, 2, 3, 4, 5, 6], [3, 2], 'int32'), tf.tensor1d([2, 0, 0], 'int32')),
          tf.gather(tf.tensor2d([1, 0, 1, 1, 0, 0], [3, 2], 'bool'), tf.tensor1d([2, 0], 'int32')),
          tf.gather(tf.zeros([0, 3]), tf.tensor1d([], 'int32')),
          tf.gather(tf.zeros([4, 0]), tf.tensor1d([3, 1], 'int32')),
          tf.unsortedSegmentSum(tf.tensor1d([16777217, 1, 3, 4], 'int32'), tf.tensor1d([0, 2, 0, -1], 'int32'), 3),
          tf.unsortedSegmentSum(tf.tensor1d([NaN, 2, Infinity, -Infinity]), tf.tensor1d([0, 1, 1, 2], 'int32'), 3),
          tf.unsortedSegmentSum(tf.zeros([0, 3]), tf.tensor1d([], 'int32'), 3),
          ...tf.split(x, [1, 0, -1], 2),
          ...tf.split(tf.tensor2d([1, 0, 1, 1, 0, 0], [3, 2], 'bool'), 2, 1),
          ...tf.split(tf.zeros([0, 4]), 2, 1),
        ];
      },
      0,
    );
  });
});

/** One `CACHED_ATTENTION` case: B rows of T new tokens over P cached slots (room ≥ P), row b seeing `seen[b]`. */
interface AttentionCase {
  readonly B: number;
  readonly T: number;
  readonly P: number;
  readonly room: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  /** Cached slots each row attends to (the last ones of the P: generation left-pads). */
  readonly seen: readonly number[];
  /** Rows whose chunk is all padding (every mask entry closed). */
  readonly padding?: readonly number[];
  readonly scale?: number;
  readonly closed?: number;
}

const ATTENTION_CASES: readonly AttentionCase[] = [
  { B: 1, T: 1, P: 5, room: 5, numHeads: 2, numKvHeads: 2, headDim: 8, seen: [5] },
  { B: 3, T: 1, P: 7, room: 12, numHeads: 4, numKvHeads: 2, headDim: 8, seen: [7, 3, 0] },
  { B: 3, T: 2, P: 7, room: 12, numHeads: 6, numKvHeads: 2, headDim: 6, seen: [7, 3, 1] },
  { B: 2, T: 3, P: 4, room: 9, numHeads: 6, numKvHeads: 2, headDim: 12, seen: [4, 2] },
  { B: 2, T: 3, P: 4, room: 9, numHeads: 4, numKvHeads: 1, headDim: 16, seen: [4, 2] },
  { B: 4, T: 2, P: 4, room: 9, numHeads: 4, numKvHeads: 4, headDim: 10, seen: [4, 2, 0, 1], padding: [2] },
  { B: 5, T: 1, P: 0, room: 0, numHeads: 2, numKvHeads: 1, headDim: 4, seen: [0, 0, 0, 0, 0] },
  { B: 2, T: 8, P: 3, room: 3, numHeads: 3, numKvHeads: 3, headDim: 8, seen: [3, 1] },
  { B: 9, T: 1, P: 17, room: 20, numHeads: 2, numKvHeads: 1, headDim: 4, seen: [17, 0, 1, 3, 4, 5, 7, 8, 9] },
  { B: 2, T: 1, P: 3, room: 3, numHeads: 2, numKvHeads: 1, headDim: 8, seen: [3, 2], scale: 30 },
  { B: 2, T: 2, P: 3, room: 3, numHeads: 2, numKvHeads: 1, headDim: 2, seen: [3, 2], closed: -Infinity },
  { B: 2, T: 2, P: 3, room: 3, numHeads: 2, numKvHeads: 1, headDim: 8, seen: [3, 2], closed: -3.4e38 },
];

/** The kernel's outputs and `attendWithOps`'s for one case, as arrays (padding rows' outputs left out). */
function attentionOutputs(
  rng: SeededRng,
  c: AttentionCase,
): { kernel: number[][]; ops: number[][]; cacheSlots: number } {
  const { B, T, P, room, numHeads, numKvHeads, headDim } = c;
  const S = P + T;
  const rows = B * T;
  const width = (numHeads + 2 * numKvHeads) * headDim;
  const half = headDim / 2;
  const cosValues = new Float32Array(rows * headDim);
  const sinValues = new Float32Array(rows * headDim);
  for (let n = 0; n < rows; n++) {
    for (let i = 0; i < half; i++) {
      const angle = 3 * (2 * rng.next() - 1);
      cosValues[n * headDim + i] = cosValues[n * headDim + half + i] = Math.cos(angle);
      sinValues[n * headDim + i] = -Math.sin(angle);
      sinValues[n * headDim + half + i] = Math.sin(angle);
    }
  }
  const maskValues = new Float32Array(rows * S).fill(c.closed ?? MASKED);
  for (let b = 0; b < B; b++) {
    if (c.padding?.includes(b)) continue;
    for (let t = 0; t < T; t++) {
      for (let s = P - c.seen[b]!; s < P; s++) maskValues[(b * T + t) * S + s] = 0;
      for (let s = 0; s <= t; s++) maskValues[(b * T + t) * S + P + s] = 0;
    }
  }
  const scale = c.scale ?? 1;
  const qkv = tf.tensor2d(values(rng, rows * width, scale), [rows, width]);
  const pastK = tf.tensor4d(values(rng, B * numKvHeads * room * headDim, scale), [B, numKvHeads, room, headDim]);
  const pastV = tf.tensor4d(values(rng, B * numKvHeads * room * headDim), [B, numKvHeads, room, headDim]);
  const cos = tf.tensor2d(cosValues, [rows, headDim]);
  const sin = tf.tensor2d(sinValues, [rows, headDim]);
  const mask = tf.tensor4d(maskValues, [B, 1, T, S]);
  const config = { headDim, numHeads, numKvHeads } as ModelConfig;
  const ops = tf.tidy(() => {
    const [q, k, v] = tf.split(qkv, [numHeads * headDim, numKvHeads * headDim, numKvHeads * headDim], 1) as [
      tf.Tensor2D,
      tf.Tensor2D,
      tf.Tensor2D,
    ];
    const cached = (part: tf.Tensor4D): tf.Tensor4D => tf.slice(part, [0, 0, 0, 0], [B, numKvHeads, P, headDim]);
    const out = attendWithOps(
      config,
      { q, k, v },
      {
        cos: tf.reshape(cos, [rows, 1, headDim]),
        sin: tf.reshape(sin, [rows, 1, headDim]),
        mask,
        batch: B,
        past: { k: cached(pastK), v: cached(pastV) },
      },
    );
    return [out.attended, out.keys, out.values];
  });
  const attrs: CachedAttentionAttrs = { numHeads, numKvHeads, headDim };
  const kernel = tf
    .engine()
    .runKernel(
      CACHED_ATTENTION,
      { qkv, cos, sin, pastK, pastV, mask },
      attrs as unknown as tf.NamedAttrMap,
    ) as tf.Tensor[];
  const capacity = kernel[1]!.shape[2]!;
  // The first S slots of each (row, head) block of the kernel's caches: the cache; the rest is room.
  const cacheOf = (tensor: tf.Tensor): number[] =>
    Array.from(tf.tidy(() => tf.slice(tensor, [0, 0, 0, 0], [B, numKvHeads, S, headDim]).dataSync()));
  const realRows = (tensor: tf.Tensor): number[] =>
    Array.from(tensor.dataSync()).filter((_, i) => !c.padding?.includes(Math.floor(i / (T * numHeads * headDim))));
  const result = {
    kernel: [realRows(kernel[0]!), cacheOf(kernel[1]!), cacheOf(kernel[2]!)],
    ops: [realRows(ops[0]!), Array.from(ops[1]!.dataSync()), Array.from(ops[2]!.dataSync())],
    cacheSlots: capacity,
  };
  tf.dispose([...kernel, ...ops, qkv, pastK, pastV, cos, sin, mask]);
  return result;
}

function expectAttentionMatches(label: string, precision: AttentionPrecision, simd: boolean): void {
  ATTENTION_CASES.forEach((c, index) => {
    useSimdAttention(simd);
    useSimdPrecision(precision);
    const { kernel, ops, cacheSlots } = attentionOutputs(new SeededRng(100 + index), c);
    expect(cacheSlots).toBeGreaterThanOrEqual(c.P + c.T);
    // Attended values: the order of float additions differs; RoPE and the copies round alike (same bytes).
    const attended = relativeDifference(kernel[0]!, ops[0]!);
    expect({ label, index, attended: attended <= 5e-5 }).toEqual({ label, index, attended: true });
    expect(kernel[1]).toEqual(ops[1]);
    expect(kernel[2]).toEqual(ops[2]);
  });
}

describeWasm('CACHED_ATTENTION against attendWithOps (seeded)', () => {
  beforeAll(async () => {
    await useBackend('wasm');
  });
  afterAll(async () => {
    useSimdAttention(true);
    useSimdPrecision('float32');
    await useBackend('cpu');
  });

  it('GQA, head sizes not multiples of 4, rows with different pasts, padding rows, room: SIMD float32', () => {
    expectAttentionMatches('simd float32', 'float32', true);
  });

  it('the same in the SIMD float64 loops and the JavaScript loops', () => {
    expectAttentionMatches('simd float64', 'float64', true);
    expectAttentionMatches('javascript', 'float64', false);
  });
});

describeWasm('the fused decoder against runDecoder’s ops, on shapes the tiny configs do not have', () => {
  afterAll(async () => {
    useFusedDecoder(true);
    await useBackend('cpu');
  });

  it('GQA of 3 and 4 query heads a key/value head, head sizes 6, 10 and 12, untied head: same tokens and logprobs', async () => {
    await useBackend('wasm');
    const shapes: Partial<ModelConfig>[] = [
      { hiddenSize: 36, numHeads: 6, numKvHeads: 2, headDim: 6 },
      { hiddenSize: 30, numHeads: 3, numKvHeads: 1, headDim: 10 },
      { hiddenSize: 48, numHeads: 4, numKvHeads: 1, headDim: 12, qkvBias: false },
      { tieWordEmbeddings: false, outputBias: true },
    ];
    for (const shape of shapes) {
      const config = testConfig({ maxPositions: 96, ...shape });
      const model = LanguageModel.fromTensors(config, randomWeights(config, 6), new ByteTokenizer());
      // Rows continuing caches of different lengths: chunks of 1 token (the kernel) beside 12 (tfjs's ops), then
      // chunks of 1 to 8 tokens in one kernel pass (left-padded within the chunk), one row without a cache.
      const run = (fused: boolean, chunks: readonly number[]): { tokens: number[][]; logprobs: number[][] } => {
        useFusedDecoder(fused);
        const prefixes = [4, 19, 1, 27, 9].map((length, row) => randomTokens(length, 256, 60 + row));
        const caches = prefixes.map((tokens, row) => (chunks[row] === 3 ? undefined : prefill(model, tokens)));
        const results = generate(
          model,
          prefixes.map((tokens, row) => ({
            tokens: [...tokens, ...randomTokens(chunks[row]!, 256, 80 + row)],
            ...(caches[row] ? { cache: caches[row] } : {}),
            seed: 30 + row,
          })),
          { maxTokens: 8, temperature: 1, stopTokenIds: [] },
        );
        caches.forEach((cache) => cache?.dispose());
        return { tokens: results.map((r) => r.tokens), logprobs: results.map((r) => r.logprobs) };
      };
      for (const chunks of [
        [1, 12, 1, 12, 1],
        [1, 5, 3, 8, 2],
      ]) {
        const fused = run(true, chunks);
        const plain = run(false, chunks);
        expect(fused.tokens).toEqual(plain.tokens);
        fused.logprobs.forEach((row, r) =>
          row.forEach((logprob, t) => expect(Math.abs(logprob - plain.logprobs[r]![t]!)).toBeLessThan(3e-5)),
        );
      }
      model.dispose();
    }
  });
});

describeWasm('the kernels on two wasm threads', () => {
  afterAll(async () => {
    useSimdAttention(true);
    useSimdPrecision('float32');
    await useBackend('cpu');
    tf.removeBackend('wasm'); // ends this file's pthread workers now rather than when jest's worker exits
  });

  it('broadcast matmuls match cpu and the attention kernel matches the ops on the shared heap', async () => {
    await useBackend('cpu');
    await useBackend('wasm', { threads: 2 });
    expect(backendInfo().threads).toBe(2);
    await broadcastMatMuls();
    await useBackend('wasm');
    expectAttentionMatches('threads', 'float32', true);
  });
});
