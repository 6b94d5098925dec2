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

  // Key names are drawn at random; from the 61st key on two could coincide and one key overwrite another (a store
  // smaller than `keys`, and on 2 of these 300 seeds a chain that no longer reaches the code).
  it('keeps every key distinct in the largest store, so the chain always reaches the code', async () => {
    const env = new ExampleEnv({ keys: 500, chainLength: 20, maxTurns: 30 });
    for (let seed = 0; seed < 300; seed++) {
      const outcome = await runEpisode(env, new ExampleSolver(), seed);
      expect({ seed, success: outcome.success }).toEqual({ seed, success: true });
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

  // The default fork replays the episode on `spawn()`'s instance: a spawn() that drops the options (`new ExampleEnv()`)
  // forks into a default-sized store. With the default options that goes unseen; with others the fork differs.
  it('passes the env checker with options other than the defaults (spawn() must keep them)', async () => {
    const registry = new Registry();
    register(registry);
    const options = { keys: 30, chainLength: 5, maxTurns: 12 };
    for (const seed of [0, 1]) {
      const report = await checkEnv('turngym/example-v1', { registry, seed, options });
      if (!report.passed) throw new Error(formatCheckReport(report));
    }
  });

  // The expert only takes the steps that solve the task. A random agent takes the others (unknown keys, decoys, a
  // wrong SUBMIT), so the checker also sees their rewards, observations and determinism: Math.random or a
  // non-string observation on a path the expert never takes fails here, not in someone's training run.
  it('passes the env checker when a random agent plays (the steps the expert never takes)', async () => {
    const registry = new Registry();
    register(registry);
    for (const seed of [0, 1, 2, 7]) {
      const report = await checkEnv('turngym/example-v1', { registry, seed, agent: 'random' });
      if (!report.passed) throw new Error(formatCheckReport(report));
    }
  });
});
