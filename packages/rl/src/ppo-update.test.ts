import { ByteTokenizer, LanguageModel, Trainer, isBackendAvailable, testConfig, useBackend } from '@turngym/lm';
import { collectChains } from './chain-rollouts';
import { ChatTurnFormat } from './chat-turn-format';
import { actionSpans, lossMask } from './loss-mask';
import { packMinibatches, ppoUpdate, sampleTokenAdvantages } from './ppo-update';
import { DigitEnv, type DigitEnvOptions } from './__fixtures__/digit-env';
import { countEventLoopTurns } from './__fixtures__/event-loop-turns';

describe('packMinibatches', () => {
  const paddedTokens = (batches: number[][], lengths: readonly number[]): number =>
    batches.reduce((sum, batch) => sum + batch.length * Math.max(...batch.map((index) => lengths[index]!)), 0);

  it('packs every sequence once, shortest first, under the caps on sequences and padded tokens', () => {
    const lengths = [100, 900, 120, 80, 300, 50];
    const batches = packMinibatches([0, 1, 2, 3, 4, 5], lengths, { minibatchSize: 3, minibatchTokens: 1000 });
    expect(batches.flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(3);
      // A sequence longer than the cap goes alone; otherwise the cap holds.
      if (batch.length > 1) expect(paddedTokens([batch], lengths)).toBeLessThanOrEqual(1000);
    }
    expect(batches).toEqual([[5, 3, 0], [2, 4], [1]]);
  });

  it('puts a sequence longer than the cap in a minibatch of its own', () => {
    expect(packMinibatches([2, 0, 1], [10, 10, 5000], { minibatchSize: 8, minibatchTokens: 100 })).toEqual([
      [0, 1],
      [2],
    ]);
  });

  it('pads a shuffled batch of rollouts little more than their own tokens', () => {
    // Rollouts of one GRPO batch run from ~150 to ~1,000 tokens, most near the short end.
    const lengths = Array.from({ length: 256 }, (_, i) => 150 + ((i * 7919) % 97) + (i % 37 === 0 ? 800 : 0));
    const order = Array.from({ length: 256 }, (_, i) => (i * 101) % 256);
    const own = lengths.reduce((sum, length) => sum + length, 0);
    const batches = packMinibatches(order, lengths, { minibatchSize: 64, minibatchTokens: 32768 });
    // Packed in the order given, nearly every pass holds a ~1,000-token rollout: 3.7× their own tokens.
    expect(paddedTokens(batches, lengths)).toBeLessThan(1.2 * own);
  });
});

describe('ppoUpdate', () => {
  const tokenizer = new ByteTokenizer();
  beforeAll(() => useBackend(isBackendAvailable('wasm') ? 'wasm' : 'cpu'));

  /**
   * Six rollouts of the digit env, alternately given advantage +1 and −1. Rows of different lengths, so
   * minibatches are packed and shuffled: each advantage must follow its row.
   */
  async function digitSamples(model: LanguageModel, env: Partial<DigitEnvOptions> = {}) {
    const trajectories = await collectChains({
      policy: { model, format: new ChatTurnFormat(tokenizer) },
      makeEnv: async () => new DigitEnv({ maxTurns: 3, ...env }),
      envId: 'test/digit-v1',
      seeds: [1, 2, 3],
      groupSize: 2,
      options: { maxActionTokens: 6, seed: 3, instructions: false, adapter: 'policy' },
    });
    return trajectories.map((trajectory, i) => ({ trajectory, advantage: i % 2 === 0 ? 1 : -1 }));
  }

  it('raises the likelihood of the rollouts with a positive advantage and lowers the others', async () => {
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
    const trainer = new Trainer(model, { adapter: 'policy', learningRate: 5e-3, maxGradNorm: 1 });
    try {
      const samples = await digitSamples(model);
      const trajectories = samples.map((sample) => sample.trajectory);
      const actionLogprob = async (): Promise<number[]> => {
        const { logprobs } = await model.score(
          trajectories.map((trajectory) => ({ tokens: trajectory.tokens })),
          { adapter: 'policy' },
        );
        return trajectories.map((trajectory, row) =>
          Array.from(lossMask(trajectory)).reduce((sum, bit, t) => sum + (bit ? logprobs[row]![t]! : 0), 0),
        );
      };
      const before = await actionLogprob();
      for (let round = 0; round < 3; round++) {
        await ppoUpdate(trainer, samples, { minibatchSize: 2, seed: round, klCoefficient: 0 });
      }
      const after = await actionLogprob();
      after.forEach((value, i) => {
        if (samples[i]!.advantage > 0) expect(value).toBeGreaterThan(before[i]!);
        else expect(value).toBeLessThan(before[i]!);
      });
    } finally {
      trainer.dispose();
      model.dispose();
    }
  });
  it.each(['token', 'sequence'] as const)(
    'a minibatch run in several forward passes takes the step one pass would (%s ratio)',
    async (ratio) => {
      // minibatchTokens bounds memory, not the step: cutting it to one sequence per pass changes nothing,
      // whether the policy term is a token mean (PPO-clip) or a sequence mean (GSPO).
      const fresh = () => {
        const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
        model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
        return { model, trainer: new Trainer(model, { adapter: 'policy', learningRate: 5e-3, maxGradNorm: 0 }) };
      };
      const onePass = fresh();
      const passes = fresh();
      try {
        // Partial credit ends an episode at the first digit guessed, so episodes last different numbers of turns.
        const samples = await digitSamples(onePass.model, { partialCredit: true });
        const shortest = Math.min(...samples.map((sample) => sample.trajectory.tokens.length));
        // Sequences with different numbers of action tokens, so a token mean and a sequence mean weight the
        // passes differently: each ratio must use its own share.
        const actionCounts = samples.map(({ trajectory }) => lossMask(trajectory).reduce((sum, w) => sum + w, 0));
        expect(new Set(actionCounts).size).toBeGreaterThan(1);
        const update = { epochs: 2, minibatchSize: 6, klCoefficient: 0.1, entropyCoefficient: 0.01, ratio, seed: 4 };
        const a = await ppoUpdate(onePass.trainer, samples, { ...update, minibatchTokens: 100_000 });
        const b = await ppoUpdate(passes.trainer, samples, { ...update, minibatchTokens: shortest });
        expect(b.steps).toBe(2);
        expect(a.steps).toBe(2);
        for (const key of ['policyLoss', 'klRef', 'approxKl', 'entropy', 'gradNorm'] as const) {
          expect(b[key]).toBeCloseTo(a[key], 5);
        }
        expect(b.trainedTokens).toBe(a.trainedTokens);
        const rows = samples.map(({ trajectory }) => ({ tokens: trajectory.tokens }));
        const [x, y] = await Promise.all([
          onePass.model.score(rows, { adapter: 'policy' }),
          passes.model.score(rows, { adapter: 'policy' }),
        ]);
        x.logprobs.forEach((row, r) =>
          row.forEach((value, t) => expect(y.logprobs[r]![t] ?? 0).toBeCloseTo(value ?? 0, 4)),
        );
      } finally {
        for (const { model, trainer } of [onePass, passes]) {
          trainer.dispose();
          model.dispose();
        }
      }
    },
  );

  it('stops the update once approx_kl passes targetKl, and not before it', async () => {
    // Two identical policies (same seeds) learn from the same rollouts, one with the trust region.
    const fresh = () => {
      const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
      model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
      // A large step size, so the policy leaves the rollouts' behind after the first step.
      return { model, trainer: new Trainer(model, { adapter: 'policy', learningRate: 5e-2, maxGradNorm: 1 }) };
    };
    const plain = fresh();
    const guarded = fresh();
    try {
      const samples = await digitSamples(plain.model);
      const update = { epochs: 4, minibatchSize: 2, klCoefficient: 0 };
      const full = await ppoUpdate(plain.trainer, samples, update);
      expect(full.steps).toBe(12);
      expect(full.stoppedEarly).toBe(false);
      expect(full.approxKl).toBeGreaterThan(1e-3);

      const cut = await ppoUpdate(guarded.trainer, samples, { ...update, targetKl: 1e-3 });
      expect(cut.stoppedEarly).toBe(true);
      // The first minibatch is on-policy (approx_kl ≈ 0), so it never stops the update alone.
      expect(cut.steps).toBeGreaterThanOrEqual(2);
      expect(cut.steps).toBeLessThan(12);
    } finally {
      for (const { model, trainer } of [plain, guarded]) {
        trainer.dispose();
        model.dispose();
      }
    }
  });

  it('lets the event loop run between minibatches (a signal handler is heard mid-update), with the same update', async () => {
    const fresh = () => {
      const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
      model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
      return { model, trainer: new Trainer(model, { adapter: 'policy', learningRate: 1e-2, maxGradNorm: 1 }) };
    };
    const plain = fresh();
    const heard = fresh();
    try {
      const samples = await digitSamples(plain.model);
      const update = { epochs: 2, minibatchSize: 2 };
      const reference = await ppoUpdate(plain.trainer, samples, update);
      const { result: stats, turns } = await countEventLoopTurns(() => ppoUpdate(heard.trainer, samples, update));
      expect(turns).toBeGreaterThan(1);
      expect(stats).toEqual(reference);
    } finally {
      for (const { model, trainer } of [plain, heard]) {
        trainer.dispose();
        model.dispose();
      }
    }
  });
});

describe('per-turn and per-token advantages', () => {
  const tokenizer = new ByteTokenizer();
  beforeAll(() => useBackend(isBackendAvailable('wasm') ? 'wasm' : 'cpu'));

  it('spreads turn advantages over each action span and reads token advantages on action tokens only', async () => {
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
    try {
      const [trajectory] = await collectChains({
        policy: { model, format: new ChatTurnFormat(tokenizer) },
        makeEnv: async () => new DigitEnv({ maxTurns: 2 }),
        envId: 'test/digit-v1',
        seeds: [1],
        groupSize: 1,
        options: { maxActionTokens: 3, seed: 3, instructions: false },
      });
      const spans = actionSpans(trajectory!);
      expect(spans.length).toBeGreaterThan(0);
      const turnAdvantages = spans.map((_, turn) => (turn % 2 === 0 ? 2 : -0.5));
      const expected = trajectory!.tokens.map((_, index) => {
        const span = spans.find((s) => index >= s.start && index <= s.end);
        return span ? turnAdvantages[span.turn]! : 0;
      });
      expect(sampleTokenAdvantages({ trajectory: trajectory!, advantage: 9, turnAdvantages })).toEqual(expected);
      const tokenAdvantages = trajectory!.tokens.map((_, index) => index + 1);
      const mask = lossMask(trajectory!);
      expect(sampleTokenAdvantages({ trajectory: trajectory!, advantage: 9, tokenAdvantages })).toEqual(
        tokenAdvantages.map((value, index) => (mask[index] ? value : 0)),
      );
      expect(sampleTokenAdvantages({ trajectory: trajectory!, advantage: 9 })).toBeNull();
      expect(() => sampleTokenAdvantages({ trajectory: trajectory!, advantage: 0, turnAdvantages: [] })).toThrow(
        /turnAdvantages has 0 values/,
      );
    } finally {
      model.dispose();
    }
  });

  it('trains on per-turn advantages: at ratio 1 the policy loss is −(Σ_t A_t) / action tokens, by hand', async () => {
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
    const trainer = new Trainer(model, { adapter: 'policy', learningRate: 5e-3, maxGradNorm: 1 });
    try {
      const trajectories = await collectChains({
        policy: { model, format: new ChatTurnFormat(tokenizer) },
        makeEnv: async () => new DigitEnv({ maxTurns: 3 }),
        envId: 'test/digit-v1',
        seeds: [1, 2],
        groupSize: 1,
        options: { maxActionTokens: 4, seed: 3, instructions: false, adapter: 'policy' },
      });
      // Turn k of rollout i gets A = (i + 1)·(k + 1) · (−1)^k.
      const samples = trajectories.map((trajectory, i) => ({
        trajectory,
        advantage: 0,
        turnAdvantages: actionSpans(trajectory).map((_, k) => (i + 1) * (k + 1) * (k % 2 === 0 ? 1 : -1)),
      }));
      let weighted = 0;
      let tokens = 0;
      samples.forEach((sample) =>
        actionSpans(sample.trajectory).forEach((span, k) => {
          const count = span.end - span.start + 1;
          weighted += sample.turnAdvantages[k]! * count;
          tokens += count;
        }),
      );
      // One step over both sequences, before which π_θ = π_old (ratio 1, nothing clipped): L = −mean_t A_t.
      const stats = await ppoUpdate(trainer, samples, { minibatchSize: 2, klCoefficient: 0, seed: 1 });
      expect(stats.steps).toBe(1);
      expect(stats.clipFraction).toBe(0);
      expect(stats.policyLoss).toBeCloseTo(-weighted / tokens, 4);
      await expect(ppoUpdate(trainer, samples, { ratio: 'sequence' })).rejects.toThrow(/one advantage per sequence/);
      // A sample with no action token is the builder's mistake: refused, naming it, not silently dropped.
      const first = trajectories[0]!;
      const cut = {
        ...first,
        episodeId: 'cut-before-acting',
        segments: first.segments.filter((s) => s.kind !== 'action'),
      };
      await expect(ppoUpdate(trainer, [...samples, { trajectory: cut, advantage: 1 }])).rejects.toMatchObject({
        code: 'EMPTY_UPDATE_SAMPLE',
        trajectoryId: 'cut-before-acting',
        message: expect.stringMatching(/samples\[2\] \(cut-before-acting\) has no action token/),
      });
    } finally {
      trainer.dispose();
      model.dispose();
    }
  });

  it("counts GSPO's clipped tokens by their sequence's ratio, as its loss clips them", async () => {
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
    const trainer = new Trainer(model, { adapter: 'policy', learningRate: 5e-3, maxGradNorm: 1 });
    try {
      const trajectories = await collectChains({
        policy: { model, format: new ChatTurnFormat(tokenizer) },
        makeEnv: async () => new DigitEnv({ maxTurns: 3 }),
        envId: 'test/digit-v1',
        seeds: [1, 2],
        groupSize: 1,
        options: { maxActionTokens: 4, seed: 3, instructions: false, adapter: 'policy' },
      });
      const { logprobs } = await model.score(
        trajectories.map((trajectory) => ({ tokens: trajectory.tokens })),
        { adapter: 'policy' },
      );
      // Rollout 0's old logprobs are the policy's ± 0.1 in turn over its action tokens (the last one 0 when they
      // are odd in number): every token ratio is e^∓0.1, 0.1 from 1, but their mean log-ratio is 0, so the
      // sequence ratio is 1. Rollout 1's are the policy's − 0.1 on every action token: its sequence ratio is
      // e^0.1 ≈ 1.105. With ε = 0.05 GSPO clips rollout 1 alone: clipfrac = n_1 / (n_0 + n_1), n_i its action tokens.
      const shifted = trajectories.map((trajectory, i) => {
        const mask = lossMask(trajectory);
        const actions = mask.reduce((sum, bit) => sum + bit, 0);
        let k = 0;
        const oldLogp = trajectory.tokens.map((_, t) => {
          if (!mask[t]) return trajectory.logprobs[t]!;
          const shift = i === 1 ? -0.1 : k === actions - 1 && actions % 2 === 1 ? 0 : k % 2 === 0 ? 0.1 : -0.1;
          k += 1;
          return logprobs[i]![t]! + shift;
        });
        return { trajectory: { ...trajectory, logprobs: oldLogp }, advantage: i === 0 ? 1 : -1, actions };
      });
      const [n0, n1] = shifted.map((sample) => sample.actions) as [number, number];
      expect(n0).toBeGreaterThan(1);
      const stats = await ppoUpdate(trainer, shifted, {
        ratio: 'sequence',
        clipEpsilon: 0.05,
        minibatchSize: 2,
        klCoefficient: 0,
        seed: 1,
      });
      expect(stats.steps).toBe(1);
      expect(stats.clipFraction).toBeCloseTo(n1 / (n0 + n1), 6);
    } finally {
      trainer.dispose();
      model.dispose();
    }
  });

  it('refuses a NaN or infinite advantage, naming the sample, and leaves the policy as it was', async () => {
    // Before, one such sample made the step's gradient NaN (its norm too, so clipping let it through): every
    // adapter weight became NaN, the update returned NaN statistics, and the run went on saving that adapter.
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
    const trainer = new Trainer(model, { adapter: 'policy', learningRate: 5e-3, maxGradNorm: 1 });
    try {
      const [trajectory] = await collectChains({
        policy: { model, format: new ChatTurnFormat(tokenizer) },
        makeEnv: async () => new DigitEnv({ maxTurns: 2 }),
        envId: 'test/digit-v1',
        seeds: [1],
        groupSize: 1,
        options: { maxActionTokens: 4, seed: 3, instructions: false, adapter: 'policy' },
      });
      const rows = [{ tokens: trajectory!.tokens }];
      const before = (await model.score(rows, { adapter: 'policy' })).logprobs;
      const turns = actionSpans(trajectory!).length;
      const mask = lossMask(trajectory!);
      const firstAction = mask.indexOf(1);
      const tokenAdvantages = trajectory!.tokens.map((_, t) => (t === firstAction ? Number.NaN : 1));
      await expect(ppoUpdate(trainer, [{ trajectory: trajectory!, advantage: Number.NaN }])).rejects.toThrow(
        /samples\[0\] \(.+\) has advantage NaN; every advantage must be a finite number/,
      );
      const turnAdvantages = Array.from({ length: turns }, (_, k) => (k === turns - 1 ? Infinity : 1));
      await expect(ppoUpdate(trainer, [{ trajectory: trajectory!, advantage: 0, turnAdvantages }])).rejects.toThrow(
        new RegExp(`turnAdvantages\\[${turns - 1}\\] is Infinity`),
      );
      await expect(ppoUpdate(trainer, [{ trajectory: trajectory!, advantage: 0, tokenAdvantages }])).rejects.toThrow(
        new RegExp(`tokenAdvantages\\[${firstAction}\\] is NaN`),
      );
      expect((await model.score(rows, { adapter: 'policy' })).logprobs).toEqual(before);
      // Off the action tokens a per-token advantage is never read: a NaN there is no error.
      const offAction = trajectory!.tokens.map((_, t) => (mask[t] ? 1 : Number.NaN));
      const stats = await ppoUpdate(trainer, [{ trajectory: trajectory!, advantage: 0, tokenAdvantages: offAction }], {
        klCoefficient: 0,
      });
      expect(stats.policyLoss).toBeCloseTo(-1, 4);
    } finally {
      trainer.dispose();
      model.dispose();
    }
  });

  it('weighs each role by its loss weight once: at ratio 1 the policy loss is −Σ_t w_t·A / Σ_t w_t, by hand', async () => {
    // Plan/Act's per-role loss weights (ALGORITHMS.md §4): a planner at 0.5 counts half as much as an actor at 1.
    // Multiplying the advantages by the weights as well as the token mean would count the planner at 0.25.
    const model = LanguageModel.create(testConfig({ maxPositions: 256 }), { seed: 5, tokenizer });
    model.addAdapter('policy', { rank: 4, alpha: 8, seed: 1 });
    const trainer = new Trainer(model, { adapter: 'policy', learningRate: 5e-3, maxGradNorm: 1 });
    try {
      const trajectories = await collectChains({
        policy: { model, format: new ChatTurnFormat(tokenizer) },
        makeEnv: async () => new DigitEnv({ maxTurns: 3 }),
        envId: 'test/digit-v1',
        seeds: [1, 2],
        groupSize: 1,
        options: { maxActionTokens: 4, seed: 3, instructions: false, adapter: 'policy' },
      });
      // The first action of each rollout is the planner's, the rest the actor's.
      const samples = trajectories.map((trajectory, i) => {
        let action = 0;
        const segments = trajectory.segments.map((segment) =>
          segment.kind === 'action' ? { ...segment, role: action++ === 0 ? 'planner' : 'actor' } : segment,
        );
        return { trajectory: { ...trajectory, segments }, advantage: i === 0 ? 2 : -1 };
      });
      const roleWeights = { planner: 0.5, actor: 1 };
      let weighted = 0;
      let weights = 0;
      for (const sample of samples) {
        expect(actionSpans(sample.trajectory).length).toBeGreaterThan(1);
        actionSpans(sample.trajectory).forEach((span, k) => {
          const weight = k === 0 ? roleWeights.planner : roleWeights.actor;
          weighted += weight * (span.end - span.start + 1) * sample.advantage;
          weights += weight * (span.end - span.start + 1);
        });
      }
      const stats = await ppoUpdate(trainer, samples, { minibatchSize: 2, klCoefficient: 0, seed: 1, roleWeights });
      expect(stats.steps).toBe(1);
      expect(stats.policyLoss).toBeCloseTo(-weighted / weights, 4);
    } finally {
      trainer.dispose();
      model.dispose();
    }
  });
});
