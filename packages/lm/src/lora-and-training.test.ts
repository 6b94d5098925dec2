import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { loadAdapter, loadValueHead, saveAdapter, saveValueHead } from './checkpoint';
import { initializeWeights, projectionPath } from './hf-weights';
import { LanguageModel } from './language-model';
import { AdapterNotFoundError } from './lm-errors';
import type { NamedTensors } from './named-tensors';
import { referenceForward } from './reference-forward';
import { testConfig } from './tiny-configs';
import { tokenCrossEntropyLoss, Trainer } from './trainer';
import { maxAbsDifference, randomTokens, randomWeights } from './__fixtures__/random-weights';
import { backendsUnderTest } from './__fixtures__/wasm-tests';

const backends = backendsUnderTest();

/** Gives every LoRA pair of `adapter` random A and B (a fresh adapter has B = 0 and changes nothing). */
async function randomizeAdapter(model: LanguageModel, name: string, seed: number): Promise<NamedTensors> {
  const rng = new SeededRng(seed);
  const tensors = await model.adapter(name).toTensors();
  for (const tensor of tensors.values()) tensor.data.forEach((_, i) => (tensor.data[i] = 0.2 * rng.normal()));
  model.adapter(name).setTensors(tensors);
  return tensors;
}

describe.each(backends)('LoRA, value head and training on %s', (backend) => {
  const config = testConfig();
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('an adapter equals the reference forward on merged weights; with adapters off the model is the base', async () => {
    const weights = randomWeights(config, 2);
    const model = LanguageModel.fromTensors(config, weights, new ByteTokenizer());
    try {
      const tokens = randomTokens(8, 256, 3);
      const base = await model.logits({ tokens });
      model.addAdapter('actor', { rank: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] });
      const fresh = await model.logits({ tokens }, { adapter: 'actor' });
      fresh.forEach((row, t) => expect(maxAbsDifference(row, base[t]!)).toBeLessThan(1e-5));
      const lora = await randomizeAdapter(model, 'actor', 4);
      model.addAdapter('critic', { rank: 3, alpha: 3 });
      await randomizeAdapter(model, 'critic', 5);

      // W' = W + (alpha / rank)·B·A in HF layout ([out, in]).
      const merged: NamedTensors = new Map(weights);
      for (let layer = 0; layer < config.numLayers; layer++) {
        for (const module of ['q_proj', 'v_proj', 'down_proj'] as const) {
          const path = projectionPath(layer, module);
          const a = lora.get(`base_model.model.${path}.lora_A.weight`)!;
          const b = lora.get(`base_model.model.${path}.lora_B.weight`)!;
          const w = weights.get(`${path}.weight`)!;
          const [out, input] = w.shape as [number, number];
          const data = Float32Array.from(w.data);
          for (let o = 0; o < out; o++)
            for (let i = 0; i < input; i++)
              for (let r = 0; r < 2; r++) data[o * input + i] += 2 * b.data[o * 2 + r]! * a.data[r * input + i]!;
          merged.set(`${path}.weight`, { shape: w.shape, data });
        }
      }
      const reference = referenceForward(config, merged, { tokens });
      const adapted = await model.logits({ tokens }, { adapter: 'actor' });
      adapted.forEach((row, t) => expect(maxAbsDifference(row, reference.logits[t]!)).toBeLessThan(1e-3));
      expect(maxAbsDifference(adapted[3]!, base[3]!)).toBeGreaterThan(1e-2);
      const critic = await model.logits({ tokens }, { adapter: 'critic' });
      expect(maxAbsDifference(critic[3]!, adapted[3]!)).toBeGreaterThan(1e-2);
      const off = await model.logits({ tokens }, { adapter: null });
      off.forEach((row, t) => expect(maxAbsDifference(row, base[t]!)).toBe(0));
      expect(() => model.forward([{ tokens }], { adapter: 'planner' })).toThrow(AdapterNotFoundError);
    } finally {
      model.dispose();
    }
  });

  it('saves and loads adapters and the value head apart from the base', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-lora-'));
    const weights = randomWeights(config, 6);
    const model = LanguageModel.fromTensors(config, weights, new ByteTokenizer());
    const other = LanguageModel.fromTensors(config, weights, new ByteTokenizer());
    try {
      model.addAdapter('actor', { rank: 2, alpha: 2 });
      await randomizeAdapter(model, 'actor', 7);
      model.addValueHead(8);
      await saveAdapter(model, 'actor', join(dir, 'actor'));
      await saveValueHead(model, dir);
      loadAdapter(other, join(dir, 'actor'));
      loadValueHead(other, dir);
      const rows = [{ tokens: randomTokens(6, 256, 9) }];
      const [a, b] = await Promise.all([
        model.score(rows, { adapter: 'actor', values: true }),
        other.score(rows, { adapter: 'actor', values: true }),
      ]);
      expect(b).toEqual(a);
    } finally {
      model.dispose();
      other.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const text = 'the cat sat on the mat. the dog sat on the log. ';
  const tokenizer = new ByteTokenizer();
  const rows = [0, 7, 14].map((start) => ({ tokens: tokenizer.encode(text.repeat(2)).slice(start, start + 20) }));

  it('training a LoRA adapter lowers the loss and leaves the base (reference policy) untouched', async () => {
    // A base with weights of a trained model's size (std 0.2): LoRA adapts a model, it does not build one.
    const model = LanguageModel.fromTensors(config, initializeWeights(config, 1, 0.2), tokenizer);
    try {
      model.addAdapter('actor', { rank: 4, alpha: 8 });
      const before = await model.score(rows);
      const trainer = new Trainer(model, { adapter: 'actor', learningRate: 2e-2 });
      const losses: number[] = [];
      for (let step = 0; step < 20; step++) losses.push((await trainer.step(rows, tokenCrossEntropyLoss)).loss);
      trainer.dispose();
      expect(losses.at(-1)!).toBeLessThan(losses[0]! * 0.5);
      expect(await model.score(rows)).toEqual(before);
    } finally {
      model.dispose();
    }
  });

  it('a step accumulated over parts, each loss weighted by its share, is the step on the whole batch', async () => {
    const fresh = () => {
      const model = LanguageModel.fromTensors(config, initializeWeights(config, 1, 0.2), tokenizer);
      model.addAdapter('actor', { rank: 4, alpha: 8, seed: 3 });
      // No clipping, so the reported norm is the raw gradient's and a wrong scale shows in it.
      return { model, trainer: new Trainer(model, { adapter: 'actor', learningRate: 2e-2, maxGradNorm: 0 }) };
    };
    const whole = fresh();
    const split = fresh();
    try {
      // Rows with different numbers of weighted tokens, so a plain sum or mean of the parts' means differs
      // (a row's first token is never scored).
      const weighted = rows.map((row, i) => ({ ...row, weights: row.tokens.map((_, t) => (t >= 1 + 6 * i ? 1 : 0)) }));
      const tokens = (part: typeof weighted) =>
        part.reduce((sum, row) => sum + row.weights.reduce((a, b) => a + b, 0), 0);
      const share = (part: typeof weighted) => (outputs: Parameters<typeof tokenCrossEntropyLoss>[0]) =>
        tf.mul(tokenCrossEntropyLoss(outputs, part), tokens(part) / tokens(weighted)) as tf.Scalar;
      for (let step = 0; step < 2; step++) {
        const one = await whole.trainer.step(weighted, tokenCrossEntropyLoss);
        const parts = [weighted.slice(0, 1), weighted.slice(1)].map((part) => ({ rows: part, loss: share(part) }));
        const many = await split.trainer.stepAccumulated(parts);
        expect(many.loss).toBeCloseTo(one.loss, 5);
        expect(many.gradNorm).toBeCloseTo(one.gradNorm, 4);
      }
      const [a, b] = await Promise.all([
        whole.model.adapter('actor').toTensors(),
        split.model.adapter('actor').toTensors(),
      ]);
      for (const [name, tensor] of a) expect(maxAbsDifference(tensor.data, b.get(name)!.data)).toBeLessThan(1e-5);
      await expect(split.trainer.stepAccumulated([])).rejects.toThrow(/no parts/);
    } finally {
      for (const { model, trainer } of [whole, split]) {
        trainer.dispose();
        model.dispose();
      }
    }
  });

  it('full fine-tuning with a value-head loss lowers both losses', async () => {
    const model = LanguageModel.create(config, { seed: 2 });
    try {
      model.addValueHead(3);
      const targets = tf.tensor2d(rows.map((row) => row.tokens.map((token) => (token === 32 ? 1 : -1))));
      const trainer = new Trainer(model, { base: true, valueHead: true, learningRate: 1e-2 });
      const first = { lm: 0, value: 0 };
      const last = { lm: 0, value: 0 };
      for (let step = 0; step < 20; step++) {
        const parts = { lm: 0, value: 0 };
        await trainer.step(rows, (outputs) => {
          const lm = tokenCrossEntropyLoss(outputs, rows);
          const value = tf.mean(tf.square(tf.sub(outputs.values!, targets))) as tf.Scalar;
          parts.lm = lm.dataSync()[0]!;
          parts.value = value.dataSync()[0]!;
          return tf.add(lm, value) as tf.Scalar;
        });
        if (step === 0) Object.assign(first, parts);
        Object.assign(last, parts);
      }
      trainer.dispose();
      targets.dispose();
      expect(last.lm).toBeLessThan(first.lm * 0.7);
      expect(last.value).toBeLessThan(first.value * 0.7);
    } finally {
      model.dispose();
    }
  });
});
