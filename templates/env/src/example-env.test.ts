import { checkEnv, formatCheckReport, Registry, runEpisode, RandomAgent } from '@turngym/core';
import { ExampleEnv } from './example-env';
import { ExampleSolver } from './example-solver';
import { register } from './register';

describe('ExampleEnv', () => {
  it('the scripted solver finds the code on every seed', async () => {
    const env = new ExampleEnv({ chainLength: 4, keys: 20 });
    for (let seed = 0; seed < 50; seed++) {
      const outcome = await runEpisode(env, new ExampleSolver(), seed);
      expect(outcome).toMatchObject({ success: true, totalReward: 1, turns: 5 });
    }
    await env.close();
  });

  it('answers a malformed call with feedback instead of throwing', async () => {
    const env = new ExampleEnv();
    await env.reset({ seed: 1 });
    const result = await env.step('FETCH(everything)');
    expect(result).toMatchObject({
      reward: 0,
      terminated: false,
      info: { invalidAction: true, fingerprint: 'INVALID' },
    });
    expect(result.observation).toContain('Unknown tool "FETCH"');
    const missing = await env.step('LOOKUP({"nokey": 1})');
    expect(missing.info.feedback).toMatch(/arguments.key is required/);
  });

  it('refuses a chain longer than the store instead of cutting it short', () => {
    expect(() => new ExampleEnv({ keys: 2, chainLength: 20 })).toThrow(
      /options.chainLength \(20\) must not exceed options.keys \(2\)/,
    );
    expect(new ExampleEnv({ keys: 3, chainLength: 3 }).options.chainLength).toBe(3);
  });

  it('a random agent rarely solves it', async () => {
    const env = new ExampleEnv();
    let successes = 0;
    for (let seed = 0; seed < 30; seed++)
      successes += (await runEpisode(env, new RandomAgent(seed), seed)).success ? 1 : 0;
    expect(successes).toBeLessThan(3);
  });

  // The checker forks halfway through the scripted expert's episode; where the expert ends in one step it tries
  // further seeds (8–15), and only notes a fork it could check at the start alone. Checking seeds where the expert
  // takes several steps makes sure a snapshot fork that forgets the task's state fails here.
  it('passes the env checker on seeds where the expert takes several steps (so a fork is checked mid-episode)', async () => {
    const registry = new Registry();
    register(registry);
    const turns: number[] = [];
    for (const seed of [0, 1, 2, 7]) {
      const report = await checkEnv('turngym/example-v1', { registry, seed });
      if (!report.passed) throw new Error(formatCheckReport(report));
      const env = await registry.make('turngym/example-v1');
      const expert = registry.makeAgent('turngym/example-v1', 'scripted', { env, seed });
      turns.push((await runEpisode(env, expert, seed)).turns);
      await env.close();
    }
    expect(Math.max(...turns)).toBeGreaterThanOrEqual(2);
  });
});
