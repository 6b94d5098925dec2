import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError } from '@turngym/core';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { initializeWeights } from './hf-weights';
import { LanguageModel } from './language-model';
import { testConfig } from './tiny-configs';
import { tokenCrossEntropyLoss, Trainer, type LossFunction, type TrainerOptions } from './trainer';

const tokenizer = new ByteTokenizer();
const rows = [{ tokens: tokenizer.encode('the cat sat on the mat.').slice(0, 16) }];

/** Cross-entropy plus a value loss, so both parameter groups get a gradient. */
const loss: LossFunction = (outputs, batch) =>
  tf.tidy(() => {
    const targets = tf.tensor2d(batch.map((row) => row.tokens.map((token) => (token === 32 ? 1 : -1))));
    return tf.add(
      tokenCrossEntropyLoss(outputs, batch),
      tf.mean(tf.square(tf.sub(outputs.values!, targets))),
    ) as tf.Scalar;
  });

const OPTIONS: Partial<TrainerOptions> = { adapter: 'actor', valueHead: true, learningRate: 1e-2, maxGradNorm: 0.5 };
const config = testConfig();
const base = initializeWeights(config, 3, 0.2);

function freshModel(): LanguageModel {
  const model = LanguageModel.fromTensors(config, base, tokenizer);
  model.addAdapter('actor', { rank: 2, alpha: 4, seed: 1 });
  model.addValueHead(5);
  return model;
}

async function weights(model: LanguageModel, group: 'adapter' | 'head'): Promise<Float32Array[]> {
  const variables = group === 'head' ? model.valueHead!.variables() : model.adapter('actor').variables();
  return Promise.all(variables.map(async (variable) => Float32Array.from((await variable.data()) as Float32Array)));
}

describe('Trainer: the value head as its own parameter group', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it('steps the value head at its own learning rate and the adapter exactly as with one rate', async () => {
    const plain = freshModel();
    const grouped = freshModel();
    try {
      const headBefore = await weights(plain, 'head');
      const one = new Trainer(plain, OPTIONS);
      const two = new Trainer(grouped, OPTIONS);
      two.setValueLearningRate(5e-2);
      expect(two.valueLearningRate).toBe(5e-2);
      expect(one.valueLearningRate).toBe(1e-2);
      const a = await one.step(rows, loss);
      const b = await two.step(rows, loss);
      expect(b).toEqual(a); // the same loss and (clipped) gradient: only the head's step size differs
      // The adapter's group: bit for bit the single-rate trainer's.
      expect(await weights(grouped, 'adapter')).toEqual(await weights(plain, 'adapter'));
      // The head's group: Adam's step is linear in the learning rate, so 5× the single-rate step.
      const headOne = await weights(plain, 'head');
      const headTwo = await weights(grouped, 'head');
      let moved = 0;
      headBefore.forEach((before, v) =>
        before.forEach((w0, i) => {
          const stepOne = headOne[v]![i]! - w0;
          const stepTwo = headTwo[v]![i]! - w0;
          if (Math.abs(stepOne) > 1e-5) moved += 1;
          expect(stepTwo).toBeCloseTo(5 * stepOne, 6);
        }),
      );
      expect(moved).toBeGreaterThan(0);
      // Nothing new in the optimiser's state: the same tensors and options as a one-rate trainer's.
      const stateOne = await one.exportState();
      const stateTwo = await two.exportState();
      expect([...stateTwo.tensors.keys()]).toEqual([...stateOne.tensors.keys()]);
      expect(stateTwo.json).toEqual(stateOne.json);
      one.dispose();
      two.dispose();
    } finally {
      plain.dispose();
      grouped.dispose();
    }
  });

  it('a rate equal to learningRate, or null, is one parameter group: bit for bit the default', async () => {
    const plain = freshModel();
    const same = freshModel();
    try {
      const one = new Trainer(plain, OPTIONS);
      const two = new Trainer(same, OPTIONS);
      two.setValueLearningRate(3e-2);
      two.setValueLearningRate(null);
      for (let step = 0; step < 2; step += 1) {
        await one.step(rows, loss);
        await two.step(rows, loss);
      }
      two.setValueLearningRate(1e-2);
      await one.step(rows, loss);
      await two.step(rows, loss);
      expect(await weights(same, 'head')).toEqual(await weights(plain, 'head'));
      expect(await weights(same, 'adapter')).toEqual(await weights(plain, 'adapter'));
      one.dispose();
      two.dispose();
    } finally {
      plain.dispose();
      same.dispose();
    }
  });

  it('refuses a rate that is not a positive number, and a trainer without a value head', () => {
    const model = freshModel();
    try {
      const trainer = new Trainer(model, OPTIONS);
      expect(() => trainer.setValueLearningRate(0)).toThrow(InvalidOptionsError);
      expect(() => trainer.setValueLearningRate(Number.NaN)).toThrow(/finite number > 0/);
      const adapterOnly = new Trainer(model, { adapter: 'actor' });
      expect(() => adapterOnly.setValueLearningRate(1e-2)).toThrow(/trains no value head/);
      trainer.dispose();
      adapterOnly.dispose();
    } finally {
      model.dispose();
    }
  });
});
