import { checkEnv, formatCheckReport, Registry, runEpisode, summarize, type EpisodeOutcome } from '@turngym/core';
import { register } from './register';
import { SELLER_COMMANDER_ID, SELLER_ID } from './seller-env';

describe('register', () => {
  const registry = new Registry();
  register(registry);

  it('registers both ids', () => {
    expect(registry.list()).toEqual([SELLER_COMMANDER_ID, SELLER_ID]);
  });

  it.each([SELLER_COMMANDER_ID, SELLER_ID])('%s passes the env checker', async (id) => {
    const report = await checkEnv(id, { registry });
    // Compared as text so that a failure shows the whole report.
    expect(formatCheckReport(report)).toMatch(/all \d+ checks passed$/);
  });

  it('the mode is fixed by the id', async () => {
    expect((await registry.make(SELLER_ID)).spec.actionSpace.type).toBe('text');
    await expect(registry.make(SELLER_ID, { options: { mode: 'commander' } })).rejects.toThrow(
      /mode is fixed by this id/,
    );
  });

  it.each([SELLER_COMMANDER_ID, SELLER_ID])(
    '%s: the scripted expert sells far more often than the random agent on the test split',
    async (id) => {
      const env = await registry.make(id, { options: { split: 'test' } });
      const play = async (name: string): Promise<EpisodeOutcome[]> => {
        const outcomes: EpisodeOutcome[] = [];
        for (let seed = 0; seed < 60; seed++)
          outcomes.push(await runEpisode(env, registry.makeAgent(id, name, { env, seed }), seed));
        return outcomes;
      };
      const expert = summarize(await play('scripted'));
      const random = summarize(await play('random'));
      expect(expert.successRate).toBeGreaterThan(0.35);
      expect(random.successRate).toBeLessThan(0.1);
      expect(expert.successInterval.low).toBeGreaterThan(random.successInterval.high);
      await env.close();
    },
  );
});
