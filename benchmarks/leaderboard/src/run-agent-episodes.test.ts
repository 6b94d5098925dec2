import { testRegistry } from './__fixtures__/test-envs';
import { runAgentEpisodes } from './run-agent-episodes';
import { resolveSuiteAgent } from './suite-agent';

describe('runAgentEpisodes', () => {
  const registry = testRegistry();
  const agent = () => resolveSuiteAgent('scripted').sourceFor(registry, 'turngym/example-v1');

  it('with a signal that never fires, plays every seed once, whatever the concurrency', async () => {
    for (const concurrency of [1, 3, 8]) {
      const ran = await runAgentEpisodes({
        registry,
        envId: 'turngym/example-v1',
        agent: agent(),
        episodes: 6,
        seed: 40,
        concurrency,
        signal: new AbortController().signal,
      });
      expect(ran.outcomes.map((outcome) => outcome.seed)).toEqual([40, 41, 42, 43, 44, 45]);
    }
  });

  it('once the signal fires, starts no further episode; the ones that ran are the first seeds', async () => {
    const interrupt = new AbortController();
    let ended = 0;
    const ran = await runAgentEpisodes({
      registry,
      envId: 'turngym/example-v1',
      agent: agent(),
      episodes: 100,
      seed: 0,
      concurrency: 3,
      signal: interrupt.signal,
      onEpisode: () => {
        ended += 1;
        if (ended === 5) interrupt.abort();
      },
    });
    const seeds = ran.outcomes.map((outcome) => outcome.seed);
    expect(seeds.length).toBeGreaterThanOrEqual(5);
    expect(seeds.length).toBeLessThanOrEqual(5 + 2); // at most the other two workers' episodes in flight
    expect(seeds).toEqual(Array.from({ length: seeds.length }, (_, i) => i));
  });
});
