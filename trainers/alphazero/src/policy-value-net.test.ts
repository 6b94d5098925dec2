import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { useBackend, writeSafetensors } from '@turngym/lm';
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

/** A network whose features [1, 2] give hidden [1, 2], logits [1, 2, 0] and v = 1 + 2 = 3. */
async function craftedNet(): Promise<PolicyValueNet> {
  const net = new PolicyValueNet({ inputs: 2, actions: 3, hidden: 2 }, 1, 0.01);
  const dir = await mkdtemp(join(tmpdir(), 'policy-value-net-'));
  try {
    await net.save(dir);
    const tensor = (shape: number[], data: number[]) => ({ shape, data: Float32Array.from(data) });
    const weights = new Map([
      ['w1', tensor([2, 2], [1, 0, 0, 1])],
      ['b1', tensor([2], [0, 0])],
      ['w2', tensor([2, 2], [1, 0, 0, 1])],
      ['b2', tensor([2], [0, 0])],
      ['policy_w', tensor([2, 3], [1, 0, 0, 0, 1, 0])],
      ['policy_b', tensor([3], [0, 0, 0])],
      ['value_w', tensor([2, 1], [1, 1])],
      ['value_b', tensor([1], [0])],
    ]);
    await writeFile(join(dir, 'network.safetensors'), writeSafetensors(weights));
    await net.load(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return net;
}

describe('PolicyValueNet AlphaZero loss', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it('is MSE(v, z) + CE(π_MCTS, π_θ) − c_H·H(π_θ) over the legal actions, worked by hand', async () => {
    const net = await craftedNet();
    const features = Float32Array.from([1, 2]);
    // Action 2 is illegal: out of the softmax (its logit 0 would otherwise take e^0 of the mass).
    const logZ = Math.log(Math.exp(1) + Math.exp(2));
    const p = [Math.exp(1 - logZ), Math.exp(2 - logZ), 0];
    const evaluation = net.evaluate(features, [1, 1, 0]);
    expect(evaluation.value).toBeCloseTo(3, 6);
    evaluation.priors.forEach((prior, action) => expect(prior).toBeCloseTo(p[action]!, 6));
    const stats = net.train({ features: [features], legal: [[1, 1, 0]], policy: [[0.25, 0.75, 0]], returns: [1] }, 0.1);
    const valueLoss = (3 - 1) ** 2; // z = 1
    const crossEntropy = -(0.25 * (1 - logZ) + 0.75 * (2 - logZ));
    const entropy = -(p[0]! * (1 - logZ) + p[1]! * (2 - logZ));
    expect(stats.valueLoss).toBeCloseTo(valueLoss, 5);
    expect(stats.policyLoss).toBeCloseTo(crossEntropy, 5);
    expect(stats.entropy).toBeCloseTo(entropy, 5);
    // The entropy is a bonus: subtracted, so a broader head lowers the loss.
    expect(stats.loss).toBeCloseTo(valueLoss + crossEntropy - 0.1 * entropy, 5);
    net.dispose();
  });
});

describe('PolicyValueNet GRPO commander step', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it('is PPO-clip, token-mean over the actions, clipped on both sides for both signs of A, no value term', async () => {
    const net = await craftedNet();
    const features = Float32Array.from([1, 2]);
    const logZ = Math.log(Math.exp(1) + Math.exp(2)); // action 2 illegal
    const logp = 2 - logZ; // log π_θ(action 1)
    // Four rows of action 1: the old policy made it e^0.5 times less likely (ρ = e^0.5 ≈ 1.65, above 1 + ε) or
    // e^0.5 times more (ρ = e^−0.5 ≈ 0.61, below 1 − ε), each with A = +1 and A = −1.
    const ratios = [Math.exp(0.5), Math.exp(0.5), Math.exp(-0.5), Math.exp(-0.5)];
    const advantages = [1, -1, 1, -1];
    const stats = net.trainPolicyGradient(
      {
        features: [features, features, features, features],
        legal: [
          [1, 1, 0],
          [1, 1, 0],
          [1, 1, 0],
          [1, 1, 0],
        ],
        actions: [1, 1, 1, 1],
        oldLogp: [logp - 0.5, logp - 0.5, logp + 0.5, logp + 0.5],
        advantages,
      },
      0.2,
      0.001,
    );
    // −min(ρA, clip(ρ, 0.8, 1.2)·A) per row: ρ > 1.2 is clipped for A > 0 (−1.2), not for A < 0 (+ρ);
    // ρ < 0.8 is not clipped for A > 0 (−ρ), clipped for A < 0 (+0.8).
    const perRow = [-1.2, ratios[1]!, -ratios[2]!, 0.8];
    const ppo = (perRow[0]! + perRow[1]! + perRow[2]! + perRow[3]!) / 4;
    expect(stats.policyLoss).toBeCloseTo(ppo, 5);
    const p = [Math.exp(1 - logZ), Math.exp(2 - logZ)];
    const entropy = -(p[0]! * Math.log(p[0]!) + p[1]! * Math.log(p[1]!));
    expect(stats.entropy).toBeCloseTo(entropy, 5);
    // Critic-free: v = 3 against the zero returns would add 9; the loss has no value term.
    expect(stats.loss).toBeCloseTo(ppo - 0.001 * entropy, 5);
    net.dispose();
  });
});

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

  it('keeps no tensor behind from an evaluation or an update of any objective (a run makes millions)', () => {
    const net = new PolicyValueNet({ inputs: 4, actions: 3, hidden: 8 }, 3, 0.05);
    const features = Float32Array.from([1, 0, 0.5, 0]);
    const batch = { features: [features], legal: [[1, 1, 0]], policy: [[0.25, 0.75, 0]], returns: [1] };
    const before = tf.memory().numTensors;
    net.evaluate(features, [1, 1, 0]);
    expect(tf.memory().numTensors).toBe(before);
    net.train(batch, 1e-4);
    expect(tf.memory().numTensors).toBe(before);
    const pair = { chosen: [1], rejected: [0], referenceChosenLogp: [-0.3], referenceRejectedLogp: [-1.3] };
    net.trainPreferences({ ...batch, ...pair }, 0.1, 1e-4, 1);
    expect(tf.memory().numTensors).toBe(before);
    const played = { actions: [1], oldLogp: [-0.3], advantages: [1] };
    net.trainPolicyGradient({ features: [features], legal: [[1, 1, 0]], ...played }, 0.2, 1e-3);
    expect(tf.memory().numTensors).toBe(before);
    net.dispose();
  });
});
