import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Registry, type EnvResetOutcome } from '@turngym/core';
import { Trainer } from '@turngym/lm';
import { readTrajectories } from '@turngym/rl';
import { DigitEnv } from '../../../packages/rl/src/__fixtures__/digit-env';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { trainSelfAc, validateSelfAcArgs } from './self-ac';

// The loop, resume, budget and metrics are the runner's (tested in @turngym/rl); this is Self-AC's smoke test.
describe('trainSelfAc', () => {
  const smoke = smokeSetup('turngym-self-ac-');
  const registry = digitRegistry();
  const comparable = (row: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(row).filter(
        ([name]) => !name.startsWith('time/') && !name.includes('per_second') && name !== 'charts/SPS',
      ),
    );

  it('trains actor and critic on packed episodes, logs the critic’s metrics, and resumes the value head bit-exact', async () => {
    const whole = smoke.args('whole').runDir!;
    const result = await trainSelfAc({ ...smoke.args('whole'), groupSize: 2 }, { registry });
    expect(result.model.valueHead).not.toBeNull();
    result.model.dispose();
    expect(result.iterations).toBe(3);
    expect((await readTrajectories(join(whole, 'trajectories.jsonl'))).length).toBe(3 * 2 * 2);
    const rows = await readMetricsRows(whole);
    for (const name of [
      'losses/value_loss',
      'losses/policy_loss',
      'losses/td_1',
      'losses/td_2',
      'losses/td_3',
      'losses/td_4',
      'losses/td_5',
    ]) {
      expect(rows.every((row) => Number.isFinite(row[name]))).toBe(true);
    }
    for (const row of rows) expect(row['perf/episodes_cut']).toBe(0); // maxPackedTokens 1024: nothing is cut
    // One sequence through the model per episode, however many turns it had.
    for (const row of rows) expect(row['perf/sequences_forwarded']).toBe(row['perf/update_episodes']);
    // No critic-only passes unless asked for (criticEpochs 0, §2's reference).
    for (const row of rows) expect(row['perf/critic_sequences_forwarded']).toBeUndefined();
    expect(rows.some((row) => row['perf/update_turns']! > row['perf/update_episodes']!)).toBe(true);
    const manifest = JSON.parse(await readFile(join(whole, 'checkpoint', 'checkpoint.json'), 'utf8'));
    expect(manifest.trained).toEqual({ adapter: 'policy', valueHead: true, base: false });

    const split = smoke.args('split').runDir!;
    (await trainSelfAc({ ...smoke.args('split'), groupSize: 2, iterations: 2 }, { registry })).model.dispose();
    (await trainSelfAc({ ...smoke.args('split'), groupSize: 2 }, { registry })).model.dispose();
    // The critic's losses after the resume equal the unbroken run's only if the value head and its Adam came back.
    expect((await readMetricsRows(split)).map(comparable)).toEqual(rows.map(comparable));
  });

  it('rejects bad arguments naming the field', async () => {
    const args = smoke.args('bad');
    await expect(trainSelfAc({ ...args, alpha: 2 })).rejects.toThrow(/alpha/);
    await expect(trainSelfAc({ ...args, tdHorizons: 0 })).rejects.toThrow(/tdHorizons/);
    // A cloning term with no critic pass to act in was accepted and did nothing.
    await expect(trainSelfAc({ ...args, criticCloneCoefficient: 10 }, { registry })).rejects.toThrow(
      /criticCloneCoefficient is 10 but criticEpochs and criticWarmupIterations are 0/,
    );
    // Episodes that pack longer than maxPackedTokens are left out; with none left the run says what to change.
    await expect(trainSelfAc({ ...smoke.args('too-long'), maxPackedTokens: 8 }, { registry })).rejects.toThrow(
      /maxPackedTokens/,
    );
  });

  it('cuts episodes longer than maxPackedTokens at a turn boundary and trains on them (counted), rather than leaving them out', async () => {
    const result = await trainSelfAc(
      { ...smoke.args('cut'), iterations: 1, groupSize: 2, evalEpisodes: 1, maxPackedTokens: 300 },
      { registry },
    );
    result.model.dispose();
    const [row] = await readMetricsRows(join(smoke.dir, 'cut'));
    expect(row!['perf/episodes_cut']).toBeGreaterThan(0);
    expect(row!['perf/episodes_too_long']).toBe(0);
    // Every rollout is trained, the cut ones with the turns that fit.
    expect(row!['perf/update_episodes']).toBe(row!['budget/rollouts']);
    expect(row!['perf/update_turns']).toBeLessThan(row!['charts/episode_turns']! * row!['budget/rollouts']!);
  }, 120_000);

  it('leaves out (counted) the episodes whose prompt with the critic prompt passes the model’s positions, and trains the rest', async () => {
    /** The digit env with a prompt too long for the critic (the byte tokenizer's cp is ~90 tokens) on odd digits. */
    class LongPromptEnv extends DigitEnv {
      protected override onReset(): EnvResetOutcome<string> {
        const outcome = super.onReset();
        const odd = Number(/\d/.exec(String(outcome.observation))![0]) % 2 === 1;
        return odd ? { ...outcome, observation: `${'x'.repeat(200)} ${String(outcome.observation)}` } : outcome;
      }
    }
    const mixed = new Registry();
    mixed.register({
      id: 'test/digit-v1',
      entryPoint: () => new LongPromptEnv({ maxTurns: 3, partialCredit: true }),
    });
    const result = await trainSelfAc(
      { ...smoke.args('long-prompt'), iterations: 1, promptsPerIteration: 4, maxRolloutTokens: 240, evalEpisodes: 1 },
      { registry: mixed },
    );
    result.model.dispose();
    const [row] = await readMetricsRows(join(smoke.dir, 'long-prompt'));
    expect(row!['perf/episodes_too_long']).toBeGreaterThan(0);
    expect(row!['perf/update_episodes']).toBeGreaterThan(0);
    expect(row!['perf/update_episodes']! + row!['perf/episodes_too_long']!).toBe(row!['budget/rollouts']);
  }, 120_000);

  it('adds critic-only passes over each batch when asked (criticEpochs: one more forward per episode each)', async () => {
    expect(validateSelfAcArgs(smoke.args('defaults')).criticEpochs).toBe(0);
    expect(() => validateSelfAcArgs({ ...smoke.args('bad'), criticEpochs: -1 })).toThrow(/criticEpochs/);
    const result = await trainSelfAc(
      { ...smoke.args('critic'), iterations: 1, groupSize: 2, evalEpisodes: 1, criticEpochs: 2 },
      { registry },
    );
    result.model.dispose();
    const [row] = await readMetricsRows(join(smoke.dir, 'critic'));
    expect(row!['perf/update_episodes']).toBeGreaterThan(0);
    expect(row!['perf/critic_sequences_forwarded']).toBe(2 * row!['perf/update_episodes']!);
    expect(Number.isFinite(row!['losses/critic_only_value_loss'])).toBe(true);
  }, 120_000);

  it('trains the critic alone for the first criticWarmupIterations iterations, then the α mix; criticCloneCoefficient anchors the critic passes', async () => {
    expect(validateSelfAcArgs(smoke.args('defaults')).criticWarmupIterations).toBe(0);
    expect(() => validateSelfAcArgs({ ...smoke.args('bad'), criticWarmupIterations: -1 })).toThrow(
      /criticWarmupIterations/,
    );
    expect(() => validateSelfAcArgs({ ...smoke.args('bad'), criticWarmupIterations: 0.5 })).toThrow(
      /criticWarmupIterations/,
    );
    expect(validateSelfAcArgs(smoke.args('defaults')).criticCloneCoefficient).toBe(0);
    expect(() => validateSelfAcArgs({ ...smoke.args('bad'), criticCloneCoefficient: -1 })).toThrow(
      /criticCloneCoefficient/,
    );
    const result = await trainSelfAc(
      {
        ...smoke.args('warmup'),
        iterations: 2,
        groupSize: 2,
        evalEpisodes: 1,
        criticWarmupIterations: 1,
        criticEpochs: 2,
        criticCloneCoefficient: 1,
      },
      { registry },
    );
    result.model.dispose();
    const [warm, mixed] = await readMetricsRows(join(smoke.dir, 'warmup'));
    // Warm-up: α = 1, so the update's loss is the critic's alone (the actor term has weight 0), and as a critic
    // pass it carries the cloning term: a KL to the adapter as the update began (read only when β > 0).
    expect(warm!['charts/critic_warmup']).toBe(1);
    expect(warm!['losses/total_loss']).toBeCloseTo(warm!['losses/value_loss']!, 6);
    expect(warm!['losses/kl_ref']).toBeGreaterThan(0);
    expect(mixed!['losses/kl_ref']).toBe(0);
    // Afterwards the α mix (0.5) of both terms.
    expect(mixed!['charts/critic_warmup']).toBe(0);
    // The critic-only passes carry PPG's cloning term: a KL to the adapter as they began (0 only at their first step).
    for (const row of [warm!, mixed!]) expect(row['losses/critic_clone_kl']).toBeGreaterThan(0);
    expect(mixed!['losses/policy_loss']).not.toBeCloseTo(mixed!['losses/value_loss']!, 3);
    expect(mixed!['losses/total_loss']).toBeCloseTo(
      0.5 * mixed!['losses/value_loss']! + 0.5 * mixed!['losses/policy_loss']!,
      5,
    );
  }, 120_000);

  it('gives the value head its own learning rate when valueLearningRate is set (absent: one rate)', async () => {
    expect(validateSelfAcArgs(smoke.args('defaults')).valueLearningRate).toBeUndefined();
    expect(() => validateSelfAcArgs({ ...smoke.args('bad'), valueLearningRate: 0 })).toThrow(/valueLearningRate/);
    const rates = jest.spyOn(Trainer.prototype, 'setValueLearningRate');
    try {
      const result = await trainSelfAc(
        { ...smoke.args('value-lr'), iterations: 1, groupSize: 2, evalEpisodes: 1, valueLearningRate: 5e-3 },
        { registry },
      );
      result.model.dispose();
      expect(rates).toHaveBeenCalledWith(5e-3);
      expect(rates.mock.calls.every(([rate]) => rate === 5e-3)).toBe(true);
    } finally {
      rates.mockRestore();
    }
  }, 120_000);
});
