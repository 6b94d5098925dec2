import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { initializeWeights } from './hf-weights';
import { LanguageModel } from './language-model';
import { CheckpointError } from './lm-errors';
import type { NamedTensors } from './named-tensors';
import { testConfig } from './tiny-configs';
import { tokenCrossEntropyLoss, Trainer, type LossFunction, type TrainerOptions } from './trainer';
import { backendsUnderTest } from './__fixtures__/wasm-tests';

const backends = backendsUnderTest();

const tokenizer = new ByteTokenizer();
const text = 'the cat sat on the mat. the dog sat on the log. ';
const rows = [0, 9].map((start) => ({ tokens: tokenizer.encode(text.repeat(2)).slice(start, start + 16) }));

/** Cross-entropy plus a value loss, so the value head's moments matter too. */
const loss: LossFunction = (outputs, batch) =>
  tf.tidy(() => {
    const targets = tf.tensor2d(batch.map((row) => row.tokens.map((token) => (token === 32 ? 1 : -1))));
    return tf.add(
      tokenCrossEntropyLoss(outputs, batch),
      tf.mean(tf.square(tf.sub(outputs.values!, targets))),
    ) as tf.Scalar;
  });

const OPTIONS: Partial<TrainerOptions> = { adapter: 'actor', valueHead: true, learningRate: 2e-2, maxGradNorm: 0.5 };

async function modelWeights(model: LanguageModel): Promise<NamedTensors> {
  const out: NamedTensors = new Map();
  for (const [name, tensor] of await model.adapter('actor').toTensors()) out.set(name, tensor);
  for (const [name, tensor] of await model.valueHead!.toTensors()) out.set(name, tensor);
  return out;
}

async function train(trainer: Trainer, steps: number): Promise<number[]> {
  const losses: number[] = [];
  for (let step = 0; step < steps; step++) losses.push((await trainer.step(rows, loss)).loss);
  return losses;
}

describe.each(backends)('Trainer state on %s', (backend) => {
  const config = testConfig();
  const base = initializeWeights(config, 3, 0.2);
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('a trainer resumed from saved weights and state continues bit for bit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turngym-trainer-state-'));
    const original = LanguageModel.fromTensors(config, base, tokenizer);
    const resumed = LanguageModel.fromTensors(config, base, tokenizer);
    const control = LanguageModel.fromTensors(config, base, tokenizer);
    try {
      original.addAdapter('actor', { rank: 2, alpha: 4 });
      original.addValueHead(5);
      const trainer = new Trainer(original, OPTIONS);
      // After 5 steps Adam's β₂ᵗ, a running float32 product, differs in its last bit from pow(β₂, 6), which
      // tfjs's setWeights would rebuild: the resume must keep the product.
      await train(trainer, 5);
      const savedWeights = await modelWeights(original);
      await trainer.saveState(dir);
      const continued = await train(trainer, 3);
      const finalWeights = await modelWeights(original);
      trainer.dispose();

      // Built in another order (value head first), so tfjs gives the variables other names and slots.
      resumed.addValueHead(99);
      resumed.addAdapter('actor', { rank: 2, alpha: 4, seed: 42 });
      resumed.adapter('actor').setTensors(savedWeights);
      resumed.valueHead!.setTensors(savedWeights);
      const second = new Trainer(resumed, OPTIONS);
      await second.loadState(dir);
      expect(second.stepCount).toBe(5);
      expect(await train(second, 3)).toEqual(continued);
      expect(await modelWeights(resumed)).toEqual(finalWeights);
      second.dispose();

      // The same weights without the optimiser state diverge: the state is what makes the match.
      control.addAdapter('actor', { rank: 2, alpha: 4 });
      control.addValueHead();
      control.adapter('actor').setTensors(savedWeights);
      control.valueHead!.setTensors(savedWeights);
      const fresh = new Trainer(control, OPTIONS);
      expect(await train(fresh, 3)).not.toEqual(continued);
      fresh.dispose();
    } finally {
      original.dispose();
      resumed.dispose();
      control.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('importing a state taken before any step resets a used trainer to a fresh optimiser', async () => {
    const model = LanguageModel.fromTensors(config, base, tokenizer);
    try {
      model.addAdapter('actor', { rank: 2, alpha: 4 });
      model.addValueHead();
      const start = await modelWeights(model);
      const restore = () => {
        model.adapter('actor').setTensors(start);
        model.valueHead!.setTensors(start);
      };
      const fresh = new Trainer(model, OPTIONS);
      const state = await fresh.exportState();
      expect(state.json.steps).toBe(0);
      const expected = await train(fresh, 2);
      fresh.dispose();

      restore();
      const used = new Trainer(model, OPTIONS);
      await train(used, 2);
      restore();
      await used.importState(state);
      expect(used.stepCount).toBe(0);
      expect(await train(used, 2)).toEqual(expected);
      used.dispose();
    } finally {
      model.dispose();
    }
  });

  it('refuses a state saved with other options or for other variables, naming what differs', async () => {
    const model = LanguageModel.fromTensors(config, base, tokenizer);
    try {
      model.addAdapter('actor', { rank: 2, alpha: 4 });
      model.addAdapter('wide', { rank: 3, alpha: 4 });
      model.addValueHead();
      const trainer = new Trainer(model, OPTIONS);
      await trainer.step(rows, loss);
      const state = await trainer.exportState();

      const otherRate = new Trainer(model, { ...OPTIONS, learningRate: 1e-3 });
      await expect(otherRate.importState(state)).rejects.toThrow(CheckpointError);
      await expect(otherRate.importState(state)).rejects.toThrow(/learningRate: saved 0\.02, now 0\.001/);

      const otherShapes = new Trainer(model, { ...OPTIONS, adapter: 'wide' });
      const relabelled = { ...state, json: { ...state.json, options: { ...state.json.options, adapter: 'wide' } } };
      await expect(otherShapes.importState(relabelled)).rejects.toThrow(/variables of other shapes/);

      const missing = new Map(state.tensors);
      missing.delete('adam.v.0');
      await expect(trainer.importState({ ...state, tensors: missing })).rejects.toThrow(/"adam\.v\.0" is missing/);
      [trainer, otherRate, otherShapes].forEach((t) => t.dispose());
    } finally {
      model.dispose();
    }
  });
});
