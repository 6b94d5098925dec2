import * as tf from '@tensorflow/tfjs';
import { useBackend } from '@turngym/lm';
import { PolicyValueNet, type PreferenceBatch } from './policy-value-net';

/** 60 Adam steps on one state, where the search preferred action 0 to action 1 and visited all three alike. */
function trainOnOnePair(anchor: number): number[] {
  const net = new PolicyValueNet({ inputs: 4, actions: 3, hidden: 8 }, 3, 0.05);
  const features = Float32Array.from([1, 0, 0.5, 0]);
  const legal = [1, 1, 1];
  const start = net.evaluate(features, legal).priors;
  const batch: PreferenceBatch = {
    features: [features],
    legal: [legal],
    policy: [[1 / 3, 1 / 3, 1 / 3]],
    returns: [0],
    chosen: [0],
    rejected: [1],
    referenceChosenLogp: [Math.log(start[0] as number)],
    referenceRejectedLogp: [Math.log(start[1] as number)],
  };
  for (let step = 0; step < 60; step++) net.trainPreferences(batch, 0.1, 0, anchor);
  const { priors } = net.evaluate(features, legal);
  net.dispose();
  return priors;
}

describe('PolicyValueNet MCTS-DPO step', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it('DPO alone drives one categorical choice to a single action; the CE anchor keeps the visit distribution', () => {
    // Why the anchor exists: log π(0) − log π(1) is logit_0 − logit_1, so DPO pushes those two apart until
    // β·margin saturates, and the chosen action takes the mass.
    const alone = trainOnOnePair(0);
    expect(alone[0]).toBeGreaterThan(0.95);
    // Anchored to the (uniform) visit counts, the chosen action still leads but the head does not collapse.
    const anchored = trainOnOnePair(1);
    expect(anchored[0]).toBeGreaterThan(anchored[1]!);
    expect(Math.min(...anchored)).toBeGreaterThan(0.1);
    expect(anchored[0]).toBeLessThan(0.8);
  });
});

describe('PolicyValueNet memory', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it('gives back every tensor it made when disposed, after a reset too (a sweep builds many networks)', async () => {
    const before = tf.memory();
    const net = new PolicyValueNet({ inputs: 4, actions: 3, hidden: 8 }, 3, 0.05);
    await net.reset();
    net.dispose();
    expect(tf.memory().numTensors).toBe(before.numTensors);
    expect(tf.memory().numBytes).toBe(before.numBytes);
  });
});
