import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { backendInfo, useBackend, webGpuAdapter } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { isSoftwareAdapter } from './internal/webgpu-device';
import { clearDeviceFailure, maxTensorBytes } from './internal/webgpu-device-errors';
import { attendWithOps } from './decoder';
import { GenerationBatch } from './generation-batch';
import { CACHED_ATTENTION } from './internal/wasm-cached-attention';
import { RMS_NORM, SWIGLU } from './internal/wasm-layer-kernels';
import { LanguageModel } from './language-model';
import { BackendUnavailableError, GpuCommandError } from './lm-errors';
import { testConfig } from './tiny-configs';
import { tokenCrossEntropyLoss, Trainer } from './trainer';
import type { ForwardOutputs } from './language-model';
import type { TokenRow } from './token-batch';
import { maxAbsDifference, randomTokens, randomWeights } from './__fixtures__/random-weights';
import { webGpuTestPlan, webGpuTestsRun } from './__fixtures__/webgpu-tests';

/** Runs `body` with environment variables set, restoring them after. */
async function withEnvironment<T>(values: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe('webgpu backend selection', () => {
  it('tells a software adapter (llvmpipe, lavapipe, SwiftShader, a fallback) from a GPU', () => {
    expect(isSoftwareAdapter({ device: 'llvmpipe-llvm-15-0-6-256-bits-', description: 'OpenGL ES 3.2 Mesa' })).toBe(
      true,
    );
    expect(isSoftwareAdapter({ description: 'llvmpipe (LLVM 19.1.7, 256 bits)', vendor: 'mesa' })).toBe(true);
    expect(isSoftwareAdapter({ device: 'lavapipe', architecture: '' })).toBe(true);
    expect(isSoftwareAdapter({ description: 'SwiftShader Device (Subzero)', vendor: 'google' })).toBe(true);
    expect(isSoftwareAdapter({ vendor: 'nvidia', description: 'NVIDIA H100 80GB HBM3', fallback: true })).toBe(true);
    expect(isSoftwareAdapter({ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100 80GB HBM3' })).toBe(
      false,
    );
    expect(isSoftwareAdapter({ vendor: 'amd', description: 'AMD Radeon RX 7900 XTX (RADV NAVI31)' })).toBe(false);
  });

  it('runs where an adapter can start, skips on a developer machine without one, and fails in CI', () => {
    expect(webGpuTestPlan(null, { CI: 'true' })).toBe('run');
    expect(webGpuTestPlan('no libEGL.so', {})).toBe('skip');
    expect(webGpuTestPlan('no libEGL.so', { CI: 'false' })).toBe('skip');
    expect(webGpuTestPlan('no libEGL.so', { CI: 'true' })).toBe('fail');
    expect(webGpuTestPlan('no libEGL.so', { TURNGYM_REQUIRE_WEBGPU: '1' })).toBe('fail');
  });

  it('names what is missing: the Dawn binary, or a Dawn backend', async () => {
    await withEnvironment({ TURNGYM_DAWN_NODE: '/nonexistent/dawn.node' }, async () => {
      const error = await useBackend('webgpu').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BackendUnavailableError);
      expect((error as Error).message).toMatch(/TURNGYM_DAWN_NODE names \/nonexistent\/dawn\.node/);
      expect(await webGpuAdapter()).toMatch(/does not exist/);
    });
    await withEnvironment({ TURNGYM_WEBGPU_BACKEND: 'metal' }, async () => {
      expect(await webGpuAdapter()).toMatch(/TURNGYM_WEBGPU_BACKEND is "metal"; use one of vulkan, opengles/);
    });
  });
});

const describeOnWebGpu = webGpuTestsRun() ? describe : describe.skip;

/**
 * One model, run on cpu and then on webgpu (tfjs moves its variables over on their next use): the same
 * logprobs, values, gradients, KV-cache generation and trainer updates, to float tolerance. A tiny config
 * keeps the software adapter's shader compiles to seconds.
 */
describeOnWebGpu('webgpu equals cpu (software adapter in CI)', () => {
  const config = testConfig();
  const tokenizer = new ByteTokenizer();
  const rows: TokenRow[] = [{ tokens: randomTokens(9, 256, 11) }, { tokens: randomTokens(6, 256, 12) }];
  const targets = [Array.from({ length: 9 }, (_, t) => Math.sin(t)), Array.from({ length: 9 }, (_, t) => t / 9)];
  const adapterOptions = { rank: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] } as const;

  function makeModel(): LanguageModel {
    const model = LanguageModel.fromTensors(config, randomWeights(config, 21), tokenizer);
    model.addAdapter('actor', { ...adapterOptions, seed: 5 });
    model.addValueHead(6);
    return model;
  }

  /** A fresh adapter's B is 0 (no gradient reaches A): give it non-zero weights. */
  async function randomizeAdapter(model: LanguageModel): Promise<void> {
    const rng = new SeededRng(7);
    const tensors = await model.adapter('actor').toTensors();
    for (const tensor of tensors.values()) tensor.data.forEach((_, i) => (tensor.data[i] = 0.1 * rng.normal()));
    model.adapter('actor').setTensors(tensors);
  }

  /** The LM's cross-entropy plus the value head's squared error: every trained path gets a gradient. */
  const loss = (outputs: ForwardOutputs): tf.Scalar =>
    tf.add(
      tokenCrossEntropyLoss(outputs, rows),
      tf.mean(tf.square(tf.sub(outputs.values!, tf.tensor2d(targets)))),
    ) as tf.Scalar;

  function gradients(model: LanguageModel): { loss: number; grads: Map<string, Float32Array> } {
    const variables = model.trainableVariables({ adapter: 'actor', valueHead: true, base: true });
    const { value, grads } = tf.variableGrads(
      () => loss(model.forward(rows, { adapter: 'actor', values: true })),
      variables,
    );
    const out = new Map(Object.entries(grads).map(([name, grad]) => [name, grad.dataSync() as Float32Array]));
    const result = { loss: value.dataSync()[0] as number, grads: out };
    tf.dispose([value, ...Object.values(grads)]);
    return result;
  }

  let model: LanguageModel;
  beforeAll(async () => {
    await useBackend('cpu');
    model = makeModel();
    await randomizeAdapter(model);
  });
  afterAll(async () => {
    model.dispose();
    await useBackend('cpu');
  });

  // A pool of 256 KiB: the tests below then run with buffers destroyed and made afresh all the time, so they
  // also show that bounding tfjs-webgpu's pool (webgpu-buffer-pool.ts) leaves the results as they were.
  const POOL_BYTES = 256 * 1024;

  it('starts on an adapter and says which', async () => {
    expect(await useBackend('webgpu', { webgpuPoolBytes: POOL_BYTES })).toBe('webgpu');
    const info = backendInfo();
    expect(info.name).toBe('webgpu');
    expect(info.adapter).toEqual(
      expect.objectContaining({ backend: expect.stringMatching(/^(vulkan|opengles)$/), software: expect.any(Boolean) }),
    );
    expect(info.pool).toEqual(expect.objectContaining({ limitBytes: POOL_BYTES }));
    await useBackend('cpu');
  });

  it('rejects a pool size that is not a byte count, naming the field', async () => {
    await expect(useBackend('webgpu', { webgpuPoolBytes: -1 })).rejects.toThrow(/webgpuPoolBytes/);
  });

  it('keeps its free GPU buffers under the limit while shapes vary, generating as cpu does', async () => {
    // Every prompt length and token budget makes buffers of new sizes; tfjs-webgpu alone would keep them all.
    const requests = (round: number) =>
      Array.from({ length: 2 + (round % 3) }, (_, i) => ({ tokens: randomTokens(3 + round + i, 256, 40 + round) }));
    const generate = (round: number) =>
      model
        .generate(requests(round), { maxTokens: 2 + round, temperature: 1, seed: round, stopTokenIds: [] })
        .map((result) => result.tokens);
    await useBackend('cpu');
    const onCpu = [0, 1, 2, 3, 4, 5].map(generate);
    await useBackend('webgpu');
    const evictedBefore = backendInfo().pool!.evictedBuffers;
    const onGpu = [0, 1, 2, 3, 4, 5].map(generate);
    const pool = backendInfo().pool!;
    expect(onGpu).toEqual(onCpu);
    expect(pool.freeBytes).toBeLessThanOrEqual(POOL_BYTES);
    expect(pool.evictedBuffers).toBeGreaterThan(evictedBefore);
    await useBackend('cpu');
  });

  it('gives the logprobs and values (LoRA adapter, value head) of cpu', async () => {
    await useBackend('cpu');
    const onCpu = await model.score(rows, { adapter: 'actor', values: true });
    await useBackend('webgpu');
    const onGpu = await model.score(rows, { adapter: 'actor', values: true });
    onCpu.logprobs.forEach((row, b) =>
      expect(maxAbsDifference(row.slice(1) as number[], onGpu.logprobs[b]!.slice(1) as number[])).toBeLessThan(1e-4),
    );
    expect(onGpu.logprobs.map((row) => row[0])).toEqual([null, null]);
    onCpu.values!.forEach((row, b) => expect(maxAbsDifference(row, onGpu.values![b]!)).toBeLessThan(1e-4));
  });

  it('gives the gradients of cpu for the base weights, the LoRA adapter and the value head', async () => {
    await useBackend('cpu');
    const onCpu = gradients(model);
    await useBackend('webgpu');
    const onGpu = gradients(model);
    expect(onGpu.loss).toBeCloseTo(onCpu.loss, 4);
    expect([...onGpu.grads.keys()]).toEqual([...onCpu.grads.keys()]);
    expect(onCpu.grads.size).toBe(model.trainableVariables({ adapter: 'actor', valueHead: true, base: true }).length);
    // Each gradient's largest difference, relative to its largest entry (or 1), names the variable that differs.
    const errors = [...onCpu.grads].map(([name, cpuGrad]) => ({
      name,
      error: maxAbsDifference(cpuGrad, onGpu.grads.get(name)!) / Math.max(1, ...Array.from(cpuGrad, Math.abs)),
    }));
    expect(errors.filter(({ error }) => !(error < 1e-4))).toEqual([]);
    // Every path is trained: no gradient of the adapter or the value head is zero throughout.
    const adapterAndHead = model.trainableVariables({ adapter: 'actor', valueHead: true }).map(({ name }) => name);
    expect(adapterAndHead.length).toBeGreaterThan(2);
    expect(adapterAndHead.filter((name) => !onCpu.grads.get(name)!.some((value) => value !== 0))).toEqual([]);
  });

  it('generates the same tokens with the KV cache, greedy and sampled', async () => {
    const requests = [{ tokens: randomTokens(5, 256, 13) }, { tokens: randomTokens(3, 256, 14) }];
    const run = () =>
      [0, 1].map((temperature) =>
        model.generate(requests, { maxTokens: 4, temperature, seed: 3, stopTokenIds: [], adapter: 'actor' }),
      );
    await useBackend('cpu');
    const onCpu = run();
    await useBackend('webgpu');
    const onGpu = run();
    expect(onGpu.map((results) => results.map((result) => result.tokens))).toEqual(
      onCpu.map((results) => results.map((result) => result.tokens)),
    );
  });

  it("runs generation's fused kernels (RMSNorm, SwiGLU, attention over a cache) with the results of cpu's ops", async () => {
    const { numHeads, numKvHeads, headDim } = config;
    const [B, T, P, room] = [3, 2, 5, 9];
    const S = P + T;
    const rng = new SeededRng(31);
    const random = (size: number): Float32Array => Float32Array.from({ length: size }, () => rng.normal());
    const qkvWidth = (numHeads + 2 * numKvHeads) * headDim;
    const data = {
      x: random(B * T * 32),
      weight: random(32),
      gateUp: random(B * T * 48),
      qkv: random(B * T * qkvWidth),
      cos: random(B * T * headDim),
      sin: random(B * T * headDim),
      // A past buffer with room for four slots more than it holds (the slots after P are never read).
      pastK: random(B * numKvHeads * room * headDim),
      pastV: random(B * numKvHeads * room * headDim),
    };
    // Row 0 sees everything, row 1 not its first two past slots (a shorter branch), row 2 nothing (padding).
    const mask = new Float32Array(B * T * S).fill(0);
    for (let t = 0; t < T; t++) {
      mask.fill(-1e9, (1 * T + t) * S, (1 * T + t) * S + 2);
      mask.fill(-1e9, (2 * T + t) * S, (2 * T + t + 1) * S);
      // Causal within the chunk: its first token does not see the second.
      mask[(0 * T + t) * S + P + 1] = t === 0 ? -1e9 : 0;
    }
    const run = (fused: boolean) =>
      tf.tidy(() => {
        const x = tf.tensor2d(data.x, [B * T, 32]);
        const weight = tf.tensor1d(data.weight);
        const gateUp = tf.tensor2d(data.gateUp, [B * T, 48]);
        const qkv = tf.tensor2d(data.qkv, [B * T, qkvWidth]);
        const cos = tf.tensor2d(data.cos, [B * T, headDim]);
        const sin = tf.tensor2d(data.sin, [B * T, headDim]);
        const pastK = tf.tensor4d(data.pastK, [B, numKvHeads, room, headDim]);
        const pastV = tf.tensor4d(data.pastV, [B, numKvHeads, room, headDim]);
        const maskTensor = tf.tensor4d(mask, [B, 1, T, S]);
        if (fused) {
          const engine = tf.engine();
          const [attended, keys, values] = engine.runKernel(
            CACHED_ATTENTION,
            { qkv, cos, sin, pastK, pastV, mask: maskTensor },
            { numHeads, numKvHeads, headDim },
          ) as tf.Tensor[];
          return [
            engine.runKernel(RMS_NORM, { x, weight }, { eps: 0.5 }) as tf.Tensor,
            engine.runKernel(SWIGLU, { x: gateUp }, {}) as tf.Tensor,
            attended!,
            tf.slice(keys!, [0, 0, 0, 0], [B, numKvHeads, S, headDim]),
            tf.slice(values!, [0, 0, 0, 0], [B, numKvHeads, S, headDim]),
          ].map((tensor) => tensor.dataSync());
        }
        const norm = tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), 0.5))), weight);
        const [gate, up] = tf.split(gateUp, 2, 1);
        const swiglu = tf.mul(tf.mul(gate!, tf.sigmoid(gate!)), up!);
        const [q, k, v] = tf.split(qkv, [numHeads * headDim, numKvHeads * headDim, numKvHeads * headDim], 1);
        const past = (part: tf.Tensor4D) => tf.slice(part, [0, 0, 0, 0], [B, numKvHeads, P, headDim]);
        const { attended, keys, values } = attendWithOps(
          config,
          { q: q as tf.Tensor2D, k: k as tf.Tensor2D, v: v as tf.Tensor2D },
          {
            cos: tf.reshape(cos, [B * T, 1, headDim]),
            sin: tf.reshape(sin, [B * T, 1, headDim]),
            mask: maskTensor,
            batch: B,
            past: { k: past(pastK), v: past(pastV) },
          },
        );
        return [norm, swiglu, attended, keys, values].map((tensor) => tensor.dataSync());
      });
    await useBackend('cpu');
    const onCpu = run(false);
    await useBackend('webgpu');
    const onGpu = run(true);
    // The padding row's attended values are never read (cpu's ops average its values; the kernel writes 0s).
    const open = B * T * numHeads * headDim - T * numHeads * headDim;
    const parts = [onGpu[0], onGpu[1], onGpu[2]!.slice(0, open), onGpu[3], onGpu[4]];
    const expected = [onCpu[0], onCpu[1], onCpu[2]!.slice(0, open), onCpu[3], onCpu[4]];
    parts.forEach((part, index) => {
      expect(part!.length).toBe(expected[index]!.length);
      expect(maxAbsDifference(part!, expected[index]!)).toBeLessThan(1e-5);
    });
    expect([...onGpu[2]!.slice(open)].every((value) => value === 0)).toBe(true);
  });

  it.each(['shared', 'own'] as const)(
    'draws with continuous batching (rows joining mid-way, in the %s pass) what cpu draws',
    async (joinPass) => {
      const requests = [
        { tokens: randomTokens(5, 256, 15), seed: 1 },
        { tokens: randomTokens(8, 256, 16), seed: 2 },
        { tokens: randomTokens(3, 256, 17), seed: 3 },
      ];
      const run = (): number[][] => {
        const batch = new GenerationBatch(model, { maxTokens: 5, stopTokenIds: [], adapter: 'actor' }, { joinPass });
        const tokens: number[][] = [];
        batch.add(requests[0]!);
        batch.add(requests[1]!);
        for (let step = 0; batch.size > 0 || step < 2; step++) {
          // The third row joins at the second step, into a batch of rows at other positions.
          if (step === 1) batch.add(requests[2]!);
          for (const { ticket, generation } of batch.step()) tokens[ticket] = generation.tokens;
        }
        batch.dispose();
        return tokens;
      };
      await useBackend('cpu');
      const onCpu = run();
      await useBackend('webgpu');
      expect(run()).toEqual(onCpu);
      expect(onCpu.map((tokens) => tokens.length)).toEqual([5, 5, 5]);
    },
  );

  it('joins rows in a pass of their own by default, as on cpu (faster on an H200 too)', async () => {
    await useBackend('webgpu');
    const passes = (joinPass?: 'shared' | 'own'): number => {
      const batch = new GenerationBatch(model, { maxTokens: 3, stopTokenIds: [] }, joinPass ? { joinPass } : {});
      batch.add({ tokens: randomTokens(5, 256, 18) });
      batch.step();
      batch.add({ tokens: randomTokens(4, 256, 19) });
      batch.step();
      const count = batch.passes;
      batch.dispose();
      return count;
    };
    expect(passes('own')).not.toBe(passes('shared'));
    expect(passes()).toBe(passes('own'));
  });

  it("makes the trainer's update of cpu (Adam on the base, the adapter and the value head)", async () => {
    const train = async (backend: 'cpu' | 'webgpu') => {
      await useBackend(backend);
      const twin = makeModel();
      await randomizeAdapter(twin);
      const trainer = new Trainer(twin, { adapter: 'actor', valueHead: true, base: true, learningRate: 1e-2 });
      const losses: number[] = [];
      for (let step = 0; step < 2; step++) losses.push((await trainer.step(rows, loss, { values: true })).loss);
      const adapter = await twin.adapter('actor').toTensors();
      const base = await twin.toTensors();
      trainer.dispose();
      twin.dispose();
      return { losses, adapter, base };
    };
    const onCpu = await train('cpu');
    const onGpu = await train('webgpu');
    onGpu.losses.forEach((value, step) => expect(value).toBeCloseTo(onCpu.losses[step]!, 4));
    for (const [name, tensor] of onCpu.adapter)
      expect(maxAbsDifference(tensor.data, onGpu.adapter.get(name)!.data)).toBeLessThan(1e-4);
    for (const [name, tensor] of onCpu.base)
      expect(maxAbsDifference(tensor.data, onGpu.base.get(name)!.data)).toBeLessThan(1e-4);
  });
});

/**
 * A device rejects a tensor past its storage-binding limit (128 MiB on the software adapter) by an error event,
 * not an exception: the command is dropped and its output keeps whatever the buffer held. Attention whose scores
 * would pass the limit must run in blocks and give cpu's results, and anything else past it must fail the next
 * read instead of returning garbage.
 */
describeOnWebGpu('webgpu at the device buffer limit', () => {
  const config = testConfig();
  const tokenizer = new ByteTokenizer();
  const length = 512;
  /** The device's limit; only a software adapter's is small enough to pass in a test. */
  let limit = 0;

  beforeAll(async () => {
    await useBackend('webgpu');
    limit = maxTensorBytes();
    await useBackend('cpu');
  });
  afterAll(async () => {
    clearDeviceFailure();
    await useBackend('cpu');
  });

  // Against wasm, not cpu: the same ops, and tfjs's cpu backend takes half a minute over 35 rows of 512 tokens.
  it('attends in blocks of rows where one batch of scores would pass the limit, with the logprobs of wasm', async () => {
    const rowBytes = config.numHeads * length * length * 4;
    const batch = Math.floor(limit / rowBytes) + 3;
    if (batch > 64) throw new Error(`this adapter's buffer limit (${limit} bytes) is too large to pass in a test`);
    const rows: TokenRow[] = Array.from({ length: batch }, (_, i) => ({ tokens: randomTokens(length, 256, 60 + i) }));
    const model = LanguageModel.fromTensors(config, randomWeights(config, 8), tokenizer);
    try {
      await useBackend('wasm');
      const onWasm = await model.score(rows);
      await useBackend('webgpu');
      const onGpu = await model.score(rows);
      const errors = onWasm.logprobs.map((row, b) =>
        maxAbsDifference(row.slice(1) as number[], onGpu.logprobs[b]!.slice(1) as number[]),
      );
      expect(Math.max(...errors)).toBeLessThan(1e-4);
    } finally {
      model.dispose();
      await useBackend('cpu');
    }
  });

  it('fails the next read with GpuCommandError, naming the limit, when a command passes it', async () => {
    await useBackend('webgpu');
    const big = tf.fill([Math.floor(limit / 4) + 1024], 1);
    const total = tf.sum(big);
    try {
      expect(() => total.dataSync()).toThrow(GpuCommandError);
      // It stays failed: the dropped command's output fed every tensor computed after it.
      const small = tf.add(tf.scalar(1), tf.scalar(2));
      await expect(small.data()).rejects.toThrow(/the GPU rejected .*maximum storage buffer binding size/);
      small.dispose();
    } finally {
      tf.dispose([big, total]);
      clearDeviceFailure();
      await useBackend('cpu');
    }
  });
});
