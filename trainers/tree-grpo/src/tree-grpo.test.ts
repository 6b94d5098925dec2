import { existsSync } from 'node:fs';
import { readTrajectories } from '@turngym/rl';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { trainTreeGrpo, validateTreeGrpoArgs } from './tree-grpo';

// The loop, resume, budget and metrics are the runner's (tested in @turngym/rl); this is Tree-GRPO's smoke test.
describe('trainTreeGrpo', () => {
  const smoke = smokeSetup('turngym-tree-grpo-');
  const registry = digitRegistry();

  it('samples M·(1 + N·L) leaves per prompt, each knowing where it sits in its tree', async () => {
    const runDir = smoke.args('run').runDir!;
    const shape = { trees: 2, branches: 2, rounds: 1 };
    const result = await trainTreeGrpo({ ...smoke.args('run'), ...shape }, { registry });
    result.model.dispose();
    const trajectories = await readTrajectories(`${runDir}/trajectories.jsonl`);
    expect(trajectories).toHaveLength(3 * 2 * 6);
    expect(trajectories.filter((t) => t.tree!.round === 1)).toHaveLength(3 * 2 * 4);
    const rows = await readMetricsRows(runDir);
    expect(rows.every((row) => row['budget/rollouts'] === 12)).toBe(true);
    expect(rows.some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
  });

  it("defaults to the reference's objective (dual clip 3, entropy 0.001, token ratio) and offers GSPO's ratio", async () => {
    const base = smoke.args('gspo');
    expect(validateTreeGrpoArgs(base)).toMatchObject({ dualClip: 3, entropyCoefficient: 0.001, ratio: 'token' });
    const result = await trainTreeGrpo({ ...base, iterations: 1, evalEpisodes: 1, ratio: 'sequence' }, { registry });
    result.model.dispose();
    expect(Number.isFinite((await readMetricsRows(base.runDir!))[0]!['losses/policy_loss'])).toBe(true);
  });

  it('rejects bad arguments naming the field', async () => {
    const args = smoke.args('bad');
    await expect(trainTreeGrpo({ ...args, trees: 0 })).rejects.toThrow(/trees/);
    await expect(trainTreeGrpo({ ...args, dualClip: 1 })).rejects.toThrow(/dualClip/);
    // One leaf per task (M = 1, N·L = 0): every task ties, so it ran its iterations and never trained.
    for (const shape of [
      { trees: 1, branches: 0 },
      { trees: 1, rounds: 0 },
    ]) {
      await expect(trainTreeGrpo({ ...args, ...shape }, { registry })).rejects.toThrow(/trees is 1 .*1 leaf per task/);
    }
    expect(existsSync(args.runDir!)).toBe(false);
  });
});
