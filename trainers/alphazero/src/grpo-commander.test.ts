import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '@turngym/core';
import { FixedRewardDemoEnv, register as registerSeller, SELLER_COMMANDER_ID } from '@turngym/env-seller';
import { loadGrpoCommander, trainGrpoCommander } from './index';
import { DEMO_ID, demoRegistry, HORIZON, REWARDS } from './__fixtures__/demo-env';

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
});
