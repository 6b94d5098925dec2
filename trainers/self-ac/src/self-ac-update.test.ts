import { InvalidOptionsError } from '@turngym/core';
import { ByteTokenizer, LanguageModel, testConfig, tf, Trainer, useBackend } from '@turngym/lm';
import { ChatTurnFormat, collectChains, type Trajectory } from '@turngym/rl';
import type { Action, Env } from '@turngym/spec';
import { countEventLoopTurns } from '../../../packages/rl/src/__fixtures__/event-loop-turns';
import { digitRegistry, SMOKE_BACKEND } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { criticPromptTokens } from './critic-prompt';
import { padEpisodeVectors } from './episode-vectors';
import { packEpisode, type PackedEpisode } from './packed-episode';
import { selfAcLoss, selfAcLossTf, turnSpans } from './self-ac-loss';
import { explainedVariance, selfAcUpdate } from './self-ac-update';
import { mergeAdapter } from './merge-adapter';
import { SelfAcSetupError } from './self-ac-errors';

const tokenizer = new ByteTokenizer();
const format = new ChatTurnFormat(tokenizer);
const registry = digitRegistry();

async function rollouts(model: LanguageModel, seeds: number[], groupSize: number): Promise<Trajectory[]> {
  return collectChains({
    policy: { model, format },
    makeEnv: async () => (await registry.make('test/digit-v1')) as Env<string, Action>,
    envId: 'test/digit-v1',
    seeds,
    groupSize,
    options: { maxActionTokens: 4, maxRolloutTokens: 40, seed: 9, adapter: 'policy' },
  });
}

function pack(trajectories: readonly Trajectory[], discount = 0.9): PackedEpisode[] {
  const criticPrompt = criticPromptTokens(tokenizer);
  return trajectories.map((t) => packEpisode(t, { format, criticPrompt, discount, maxPositions: 1024 }));
}

function freshModel(seed: number): LanguageModel {
  const model = LanguageModel.create(testConfig(), { seed, tokenizer });
  model.addAdapter('policy', { rank: 2, alpha: 4, seed });
  model.addValueHead(seed);
  return model;
}

describe('Self-AC loss and update', () => {
  let model: LanguageModel;
  let episodes: PackedEpisode[];
  beforeAll(async () => {
    await useBackend(SMOKE_BACKEND);
    model = freshModel(4);
    episodes = pack(await rollouts(model, [1, 2, 3], 2));
  });
  afterAll(() => model.dispose());

  const forward = (rows = episodes) =>
    model.forward(
      rows.map((episode) => episode.row),
      { adapter: 'policy', values: true },
    );

  it('the tensor loss equals its plain twin (rl’s tdCriticLoss + ppoTurnClipLoss), and mixes by α', () => {
    // The rollout policy is the model itself, so take a step of "training" by hand: shift π_old a little.
    const shifted = episodes.map((episode) => ({
      ...episode,
      oldLogprobs: episode.oldLogprobs.map((value, t) => (episode.row.weights[t] ? value - 0.05 * (t % 3) : 0)),
    }));
    for (const alpha of [0, 0.3, 1]) {
      const outputs = forward(shifted);
      const [B, T] = outputs.logprobs.shape;
      const batch = padEpisodeVectors(shifted.map((episode) => episode.vectors));
      const old = new Float32Array(B * T);
      shifted.forEach((episode, b) => old.set(episode.oldLogprobs, b * T));
      const terms = selfAcLossTf(
        { logprobs: outputs.logprobs, values: outputs.values! },
        batch,
        tf.tensor2d(old, [B, T]),
        shifted.map(turnSpans),
        { alpha, discount: 0.9 },
      );
      const values = (terms.stateValues.arraySync() as number[][]).map((row, b) =>
        row.slice(0, shifted[b]!.vectors.cpEnd.length),
      );
      const logprobs = (outputs.logprobs.arraySync() as number[][]).map((row, b) =>
        row.slice(0, shifted[b]!.row.tokens.length),
      );
      const plain = selfAcLoss(shifted, values, logprobs, { alpha, discount: 0.9 });
      expect(terms.critic.dataSync()[0]).toBeCloseTo(plain.critic, 4);
      expect(terms.actor.dataSync()[0]).toBeCloseTo(plain.actor, 4);
      expect(terms.loss.dataSync()[0]).toBeCloseTo(alpha * plain.critic + (1 - alpha) * plain.actor, 4);
      expect(plain.critic).toBeGreaterThan(0);
      tf.dispose([outputs as unknown as tf.TensorContainer, terms as unknown as tf.TensorContainer]);
    }
  });

  it('A = R − V.detach(): the actor term sends no gradient into V; the critic term none into log π', () => {
    const outputs = forward();
    const [B, T] = outputs.logprobs.shape;
    const batch = padEpisodeVectors(episodes.map((episode) => episode.vectors));
    const old = tf.tensor2d(
      Float32Array.from({ length: B * T }, () => 0),
      [B, T],
    );
    const spans = episodes.map(turnSpans);
    const gradActor = tf.grad(
      (values: tf.Tensor) =>
        selfAcLossTf({ logprobs: outputs.logprobs, values: values as tf.Tensor2D }, batch, old, spans, { alpha: 0 })
          .loss,
    )(outputs.values!);
    const gradCritic = tf.grad(
      (logprobs: tf.Tensor) =>
        selfAcLossTf({ logprobs: logprobs as tf.Tensor2D, values: outputs.values! }, batch, old, spans, { alpha: 1 })
          .loss,
    )(outputs.logprobs);
    const gradCriticValues = tf.grad(
      (values: tf.Tensor) =>
        selfAcLossTf({ logprobs: outputs.logprobs, values: values as tf.Tensor2D }, batch, old, spans, { alpha: 1 })
          .loss,
    )(outputs.values!);
    expect(tf.max(tf.abs(gradActor)).dataSync()[0]).toBe(0);
    expect(tf.max(tf.abs(gradCritic)).dataSync()[0]).toBe(0);
    // …and the critic's gradient reaches V only at the critic prompts' last tokens.
    const g = gradCriticValues.arraySync() as number[][];
    episodes.forEach((episode, b) => {
      g[b]!.forEach((value, t) => {
        if (!episode.vectors.cpEnd.includes(t)) expect(value).toBe(0);
      });
      expect(Math.abs(g[b]![episode.vectors.cpEnd[0]!]!)).toBeGreaterThan(0);
    });
  });

  it('one forward/backward per episode, not per turn (counted on the model’s forward)', async () => {
    const local = freshModel(5);
    try {
      const trainer = new Trainer(local, { adapter: 'policy', valueHead: true, learningRate: 1e-3 });
      const forwardSpy = jest.spyOn(local, 'forward');
      const stats = await selfAcUpdate(trainer, episodes, { minibatchSize: 64, minibatchTokens: 1e6 });
      const rowsForwarded = forwardSpy.mock.calls.reduce((sum, [rows]) => sum + rows.length, 0);
      const turns = episodes.reduce((sum, episode) => sum + episode.vectors.aStart.length, 0);
      expect(rowsForwarded).toBe(episodes.length);
      expect(forwardSpy).toHaveBeenCalledTimes(1);
      expect(stats.sequencesForwarded).toBe(episodes.length);
      expect(stats.turns).toBe(turns);
      expect(turns).toBeGreaterThan(episodes.length); // else the claim says nothing
      expect(stats.tdLosses).toHaveLength(5);
      trainer.dispose();
    } finally {
      local.dispose();
    }
  });

  it('trains only the LoRA adapter and the value head: merged they fold into the base’s shapes; dropped, the base comes back exactly', async () => {
    const local = freshModel(6);
    try {
      const baseBefore = await local.toTensors();
      const row = episodes[0]!.row;
      const scoreBefore = await local.score([{ tokens: row.tokens }], { adapter: null });
      const headBefore = await local.valueHead!.toTensors();
      const trainer = new Trainer(local, { adapter: 'policy', valueHead: true, learningRate: 1e-2 });
      for (let i = 0; i < 3; i += 1) await selfAcUpdate(trainer, episodes, { minibatchSize: 64, seed: i });
      const adapterScore = await local.score([{ tokens: row.tokens }], { adapter: 'policy' });
      expect(adapterScore.logprobs[0]!.some((v, t) => v !== scoreBefore.logprobs[0]![t])).toBe(true);
      const headAfter = await local.valueHead!.toTensors();
      expect(headAfter.get('v_head.summary.weight')!.data).not.toEqual(headBefore.get('v_head.summary.weight')!.data);
      const baseAfter = await local.toTensors();
      for (const [name, tensor] of baseBefore) expect(baseAfter.get(name)!.data).toEqual(tensor.data);
      trainer.dispose();
      // Merged: the base's shapes (its cost per token), the adapter's outputs, no adapter and no value head.
      const merged = await mergeAdapter(local, 'policy');
      expect([merged.adapterNames(), merged.valueHead, merged.parameterCount]).toEqual([
        [],
        null,
        local.parameterCount,
      ]);
      const mergedScore = await merged.score([{ tokens: row.tokens }]);
      mergedScore.logprobs[0]!.forEach((value, t) => {
        if (value !== null) expect(value).toBeCloseTo(adapterScore.logprobs[0]![t]!, 4);
      });
      merged.dispose();
      local.removeAdapter('policy');
      expect(local.adapterNames()).toEqual([]);
      const scoreAfter = await local.score([{ tokens: row.tokens }]);
      expect(scoreAfter.logprobs).toEqual(scoreBefore.logprobs);
    } finally {
      local.dispose();
    }
  });

  it('the critic learns the returns of a fixed batch (explained variance rises)', async () => {
    const local = freshModel(7);
    try {
      const trainer = new Trainer(local, { adapter: 'policy', valueHead: true, learningRate: 2e-2 });
      const first = await selfAcUpdate(trainer, episodes, { alpha: 1, minibatchSize: 64 });
      let last = first;
      for (let i = 0; i < 15; i += 1) last = await selfAcUpdate(trainer, episodes, { alpha: 1, minibatchSize: 64 });
      expect(last.valueLoss).toBeLessThan(first.valueLoss * 0.5);
      expect(last.explainedVariance).toBeGreaterThan(first.explainedVariance);
      trainer.dispose();
    } finally {
      local.dispose();
    }
  });

  it('klReference current holds the actor where the update found it while the critic trains (PPG’s cloning term)', async () => {
    // Critic-only updates (α = 1) move the shared adapter and so the actor; the KL to the adapter as the update
    // began pulls the action logprobs back. Same model, data and seed, with and without the term.
    const drift = async (klCoefficient: number): Promise<{ drift: number; klRef: number }> => {
      const local = freshModel(11);
      try {
        const rows = episodes.map((episode) => episode.row);
        const trainer = new Trainer(local, { adapter: 'policy', valueHead: true, learningRate: 2e-2 });
        // Move the adapter away from the base first, so that "the adapter as it is" and "adapter off" differ.
        await selfAcUpdate(trainer, episodes, { alpha: 0, minibatchSize: 64 });
        // The reference is read before the first step: that step's KL is 0 to the current adapter, not to the base.
        const first = { alpha: 1, epochs: 1, minibatchSize: 64, klCoefficient: 1e-9 };
        expect((await selfAcUpdate(trainer, episodes, { ...first, klReference: 'current' })).klRef).toBeCloseTo(0, 7);
        expect((await selfAcUpdate(trainer, episodes, { ...first, klReference: 'base' })).klRef).toBeGreaterThan(1e-6);
        const before = (await local.score(rows, { adapter: 'policy' })).logprobs;
        const stats = await selfAcUpdate(trainer, episodes, {
          alpha: 1,
          epochs: 6,
          minibatchSize: 64,
          klCoefficient,
          klReference: 'current',
        });
        const after = (await local.score(rows, { adapter: 'policy' })).logprobs;
        let sum = 0;
        let count = 0;
        rows.forEach((row, b) =>
          row.weights.forEach((weight, t) => {
            if (!weight) return;
            sum += Math.abs(after[b]![t]! - before[b]![t]!);
            count += 1;
          }),
        );
        trainer.dispose();
        return { drift: sum / count, klRef: stats.klRef };
      } finally {
        local.dispose();
      }
    };
    const free = await drift(0);
    const held = await drift(50);
    expect(free.drift).toBeGreaterThan(0);
    expect(held.klRef).toBeGreaterThan(0);
    expect(held.drift).toBeLessThan(free.drift * 0.5);
  });

  // A Ctrl-C during the update waited for all of it: nothing in it let the event loop run on the cpu backend.
  it('lets the event loop run between minibatches (a signal handler is heard mid-update), with the same update', async () => {
    const update = { minibatchSize: 2, minibatchTokens: 1e6, klCoefficient: 0.01 };
    const plainModel = freshModel(6);
    const heardModel = freshModel(6);
    try {
      const plain = new Trainer(plainModel, { adapter: 'policy', valueHead: true, learningRate: 1e-3 });
      const heard = new Trainer(heardModel, { adapter: 'policy', valueHead: true, learningRate: 1e-3 });
      const reference = await selfAcUpdate(plain, episodes, update);
      const { result: stats, turns } = await countEventLoopTurns(() => selfAcUpdate(heard, episodes, update));
      expect(turns).toBeGreaterThan(1);
      expect(stats).toEqual(reference);
      plain.dispose();
      heard.dispose();
    } finally {
      plainModel.dispose();
      heardModel.dispose();
    }
  });

  it('refuses a trainer without the value head', async () => {
    const local = freshModel(8);
    try {
      const trainer = new Trainer(local, { adapter: 'policy' });
      await expect(selfAcUpdate(trainer, episodes)).rejects.toThrow(SelfAcSetupError);
      trainer.dispose();
    } finally {
      local.dispose();
    }
  });

  it('losses/approx_kl is (ρ − 1) − log ρ of the unclamped turn ratio, not of the loss’s ±20 clamp', async () => {
    // The rollout's own model (same seed): log π_θ = the sampling logprobs, so shifting π_old down by 25 nats per
    // action makes every turn's log-ratio 25 (past the clamp). The stats are read in the forward before the step.
    const local = freshModel(4);
    try {
      const far = episodes.map((episode) => {
        const spans = turnSpans(episode);
        return {
          ...episode,
          oldLogprobs: episode.oldLogprobs.map((value, t) => {
            const span = spans.find(({ start, end }) => start <= t && t <= end);
            return span ? value - 25 / (span.end - span.start + 1) : value;
          }),
        };
      });
      const trainer = new Trainer(local, { adapter: 'policy', valueHead: true, learningRate: 1e-6 });
      const stats = await selfAcUpdate(trainer, far, { minibatchSize: 64, minibatchTokens: 1e6 });
      trainer.dispose();
      // The clamped ratio gave exp(20) − 1 − 25 ≈ 4.9e8 whatever the log-ratio past 20; the true value is ≈ 7.2e10.
      expect(stats.approxKl / (Math.expm1(25) - 25)).toBeCloseTo(1, 2);
      expect(stats.clipFraction).toBe(1);
    } finally {
      local.dispose();
    }
  });

  it('λ has one value: the episodes’ packing discount, which a given discount must equal', async () => {
    // Packed with λ = 0.9: the returns R are discounted by 0.9, so the TD targets and bootstrap must be too.
    const forwarded = forward();
    const values = (forwarded.values!.arraySync() as number[][]).map((row, b) =>
      episodes[b]!.vectors.cpEnd.map((t) => row[t]!),
    );
    const logprobs = (forwarded.logprobs.arraySync() as number[][]).map((row, b) =>
      row.slice(0, episodes[b]!.row.tokens.length),
    );
    tf.dispose(forwarded as unknown as tf.TensorContainer);
    expect(episodes[0]!.vectors.discount).toBe(0.9);
    // Left out, λ is read from the episodes (it was the schema's default 1 here, against R's 0.9).
    expect(selfAcLoss(episodes, values, logprobs, { alpha: 0.5 })).toEqual(
      selfAcLoss(episodes, values, logprobs, { alpha: 0.5, discount: 0.9 }),
    );
    expect(() => selfAcLoss(episodes, values, logprobs, { alpha: 0.5, discount: 1 })).toThrow(InvalidOptionsError);
    expect(() => selfAcLoss(episodes, values, logprobs, { alpha: 0.5, discount: 1 })).toThrow(
      /discount is 1, but the episodes' returns were packed with discount 0\.9/,
    );
    // Episodes packed with two λ cannot form one batch.
    const mixed = [episodes[0]!, ...pack([await rollouts(model, [4], 1)].flat(), 0.5)];
    expect(() => padEpisodeVectors(mixed.map((episode) => episode.vectors))).toThrow(
      /different discounts \(0\.9, 0\.5\)/,
    );
    const local = freshModel(12);
    try {
      const trainer = new Trainer(local, { adapter: 'policy', valueHead: true, learningRate: 1e-3 });
      await expect(selfAcUpdate(trainer, episodes, { discount: 1, minibatchSize: 64 })).rejects.toThrow(
        /Invalid options for Self-AC update: discount is 1/,
      );
      trainer.dispose();
    } finally {
      local.dispose();
    }
  });

  it('explainedVariance is CleanRL’s', () => {
    expect(explainedVariance([1, 2, 3], [1, 2, 3])).toBe(1);
    expect(explainedVariance([2, 2, 2], [1, 2, 3])).toBe(0);
    expect(explainedVariance([1, 1], [1, 1])).toBeNaN();
  });
});
