import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { FixedRewardDemoEnv, register as registerSeller, SELLER_COMMANDER_ID } from '@turngym/env-seller';
import { loadGrpoCommander, trainGrpoCommander } from './index';
import { DEMO_ID, demoRegistry, HORIZON, REWARDS } from './__fixtures__/demo-env';
import { FaultMidEpisode, FaultOnSeed } from './__fixtures__/faulty-env';

describe('trainGrpoCommander', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'grpo-commander-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('learns the best action of the fixed-reward demo env from group advantages alone (no search)', async () => {
    const rows: Record<string, number>[] = [];
    const runDir = join(root, 'demo');
    const result = await trainGrpoCommander(
      {
        envId: DEMO_ID,
        runDir,
        iterations: 12,
        groupsPerIteration: 2,
        groupSize: 8,
        evalEpisodes: 2,
        evalEvery: 12,
        quiet: true,
      },
      { registry: demoRegistry(), onIteration: (row) => rows.push(row) },
    );
    // 12 iterations × 2 groups × 8 episodes of 3 steps: the budget is counted in episodes and env steps.
    expect(result.episodes).toBe(192);
    expect(result.envSteps).toBe(192 * HORIZON);
    // The finished run let go of its directory (a long-lived process does not hold every run it trained).
    expect(existsSync(join(runDir, '.lock'))).toBe(false);
    // Random play averages 1.28; the greedy policy ends on the best action at every step.
    expect(rows.at(-1)!['eval/episodic_return']).toBeCloseTo(HORIZON * 0.9, 6);
    expect(rows.at(-1)!['charts/episodic_return']).toBeGreaterThan(rows[0]!['charts/episodic_return']! + 0.3);
    // The checkpoint is the kit's stores checkpoint: the network reads back as trained.
    const spec = new FixedRewardDemoEnv(REWARDS, HORIZON).spec;
    const loaded = await loadGrpoCommander(runDir, spec);
    expect(Buffer.from(loaded.net.weightBytes()).equals(Buffer.from(result.net.weightBytes()))).toBe(true);
    loaded.net.dispose();
    result.net.dispose();
  });

  it("counts a void episode's played steps in envSteps and global_step, as every other episode's", async () => {
    const registry = new Registry();
    // Odd seeds fail at their second step: each of those episodes played one step.
    registry.register({
      id: DEMO_ID,
      entryPoint: () =>
        new FaultMidEpisode(new FixedRewardDemoEnv(REWARDS, HORIZON), (seed) => (seed ?? 0) % 2 === 1, 2),
    });
    const rows: Record<string, number>[] = [];
    const result = await trainGrpoCommander(
      { envId: DEMO_ID, runDir: join(root, 'mid-void'), iterations: 2, groupsPerIteration: 4, groupSize: 4 },
      { registry, onIteration: (row) => rows.push(row) },
    );
    result.net.dispose();
    const errored = rows.reduce((sum, row) => sum + row['charts/errored_episodes']!, 0);
    expect(errored).toBeGreaterThan(0);
    expect(errored).toBeLessThan(32);
    expect(result.episodes).toBe(32 - errored);
    expect(result.envSteps).toBe((32 - errored) * HORIZON + errored);
    expect(rows.at(-1)!.global_step).toBe(result.envSteps);
  });

  it('leaves a void episode (a role failed) out of its group and the scores, counts it, and goes on', async () => {
    const registry = new Registry();
    // Odd seeds fail: whole groups (one seed each) and test seeds 100001 and 100003 of 100000–100003.
    const isFaulty = (seed: number | undefined) => (seed ?? 0) % 2 === 1;
    registry.register({
      id: DEMO_ID,
      entryPoint: () => new FaultOnSeed(new FixedRewardDemoEnv(REWARDS, HORIZON), isFaulty),
    });
    const rows: Record<string, number>[] = [];
    const result = await trainGrpoCommander(
      {
        envId: DEMO_ID,
        runDir: join(root, 'void'),
        iterations: 2,
        groupsPerIteration: 4,
        groupSize: 4,
        evalEpisodes: 4,
      },
      { registry, onIteration: (row) => rows.push(row) },
    );
    result.net.dispose();
    const errored = rows.reduce((sum, row) => sum + row['charts/errored_episodes']!, 0);
    expect(errored % 4).toBe(0); // whole groups
    expect(errored).toBeGreaterThan(0);
    expect(errored).toBeLessThan(32);
    expect(result.episodes).toBe(32 - errored);
    expect(result.envSteps).toBe((32 - errored) * HORIZON);
    expect(rows.at(-1)!['eval/errored_episodes']).toBe(2);
    expect(rows.at(-1)!['eval/episodic_return']).toBeGreaterThan(0);
    // Every episode void: nothing to train on; the run says so with the last episode's error.
    const allVoid = new Registry();
    allVoid.register({
      id: DEMO_ID,
      entryPoint: () => new FaultOnSeed(new FixedRewardDemoEnv(REWARDS, HORIZON), () => true),
    });
    await expect(
      trainGrpoCommander(
        { envId: DEMO_ID, runDir: join(root, 'all-void'), iterations: 1, quiet: true },
        { registry: allVoid },
      ),
    ).rejects.toThrow(/every sampled episode of iteration 1 was void \(32 of 32.*the buyer role failed/);
  });

  it('resumes bit-exact: the network with its Adam, the RNG and the budget come back from the checkpoint', async () => {
    const args = { envId: DEMO_ID, groupsPerIteration: 2, groupSize: 4, evalEpisodes: 0, quiet: true };
    const straight = await trainGrpoCommander(
      { ...args, runDir: join(root, 'straight'), iterations: 4 },
      { registry: demoRegistry() },
    );
    const first = await trainGrpoCommander(
      { ...args, runDir: join(root, 'resumed'), iterations: 2 },
      { registry: demoRegistry() },
    );
    first.net.dispose();
    const resumed = await trainGrpoCommander(
      { ...args, runDir: join(root, 'resumed'), iterations: 4 },
      { registry: demoRegistry() },
    );
    expect(Buffer.from(resumed.net.weightBytes()).equals(Buffer.from(straight.net.weightBytes()))).toBe(true);
    expect(resumed.net.stepCount).toBe(straight.net.stepCount);
    expect({ episodes: resumed.episodes, envSteps: resumed.envSteps }).toEqual({
      episodes: straight.episodes,
      envSteps: straight.envSteps,
    });
    straight.net.dispose();
    resumed.net.dispose();
  });

  it('refuses task ids the env does not have before writing the run', async () => {
    const registry = new Registry();
    registerSeller(registry);
    const runDir = join(root, 'tasks');
    for (const tasks of [{ trainTasks: [99_999] }, { evalTasks: [99_999] }]) {
      await expect(
        trainGrpoCommander({ envId: SELLER_COMMANDER_ID, runDir, iterations: 1, quiet: true, ...tasks }, { registry }),
      ).rejects.toThrow(new RegExp(`${Object.keys(tasks)[0]}: task 99999: .*taskId must be <`));
    }
    expect(existsSync(runDir)).toBe(false);
  });

  it('refuses fewer evaluation episodes than evalTasks, which would evaluate only the first tasks', async () => {
    const runDir = join(root, 'few-episodes');
    await expect(
      trainGrpoCommander(
        { envId: DEMO_ID, runDir, iterations: 1, quiet: true, evalTasks: [0, 1, 2], evalEpisodes: 2 },
        { registry: demoRegistry() },
      ),
    ).rejects.toThrow(/evalEpisodes: 2 episodes would evaluate only the first 2 of the 3 evalTasks/);
    expect(existsSync(runDir)).toBe(false);
  });
});
