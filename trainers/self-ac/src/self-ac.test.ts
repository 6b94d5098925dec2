import { join } from 'node:path';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { trainSelfAc, validateSelfAcArgs } from './self-ac';

// The loop is the runner's (tested in @turngym/rl) and `turngym train self-ac` is tested end to end in
// test/cli-train-self-ac.test.ts; this is the critic-only passes option.
describe('Self-AC criticEpochs', () => {
  const smoke = smokeSetup('turngym-self-ac-');
  const registry = digitRegistry();

  it('adds critic-only passes over each batch when asked (one forward per episode each), none by default', async () => {
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
});
