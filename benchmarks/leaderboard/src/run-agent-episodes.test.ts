import { MemoryRecordSink } from '@turngym/core';
import { faults, testRegistry } from './__fixtures__/test-envs';
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

  it('counts an episode whose model context filled up among the outcomes, a failure, not among the errors', async () => {
    faults.contextFull = new Set([2]);
    try {
      const sink = new MemoryRecordSink();
      const recordsOf: [number, (number | null)[]][] = [];
      const ran = await runAgentEpisodes({
        registry,
        envId: 'test/faulty-v1',
        agent: resolveSuiteAgent('faulty').sourceFor(registry, 'test/faulty-v1'),
        episodes: 4,
        seed: 0,
        sink,
        onEpisode: (result) => recordsOf.push([result.episode.seed, result.records.map((record) => record.seed)]),
      });
      expect(ran.errors).toEqual([]);
      expect(ran.outcomes.map((outcome) => [outcome.seed, outcome.success, outcome.agentStop?.reason])).toEqual([
        [0, true, undefined],
        [1, true, undefined],
        [2, false, 'context-length'],
        [3, true, undefined],
      ]);
      // Each episode hands on its own record: the stopped one's is not left to be written at the next reset.
      expect(recordsOf).toEqual([
        [0, [0]],
        [1, [1]],
        [2, [2]],
        [3, [3]],
      ]);
      expect(sink.records.map((record) => [record.seed, record.complete])).toEqual([
        [0, true],
        [1, true],
        [2, false],
        [3, true],
      ]);
    } finally {
      faults.contextFull.clear();
    }
  });
});
