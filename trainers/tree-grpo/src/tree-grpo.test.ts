import { existsSync } from 'node:fs';
import { readTrajectories } from '@turngym/rl';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { treeGrpo, trainTreeGrpo, validateTreeGrpoArgs, type Trajectory } from './tree-grpo';

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

  it('counts the branches a budget starved before their first action (budget/starved_branches), absent when none', () => {
    const context = { args: validateTreeGrpoArgs(smoke.args('metrics')), iteration: 0 } as Parameters<
      NonNullable<typeof treeGrpo.metrics>
    >[1];
    const branch = (turns: number, stopReason: Trajectory['stopReason']) =>
      ({ tree: { tree: 0, branchedFrom: 'g0/t0/n1', sharedTurns: 1, round: 1 }, turns, stopReason }) as Trajectory;
    const chain = { tree: { tree: 0, branchedFrom: 'g0/t0/n0', sharedTurns: 0, round: 0 }, turns: 2 } as Trajectory;
    const metrics = (trajectories: Trajectory[]) => treeGrpo.metrics!({ trajectories }, context);
    expect(metrics([chain, branch(1, 'prompt-tokens'), branch(1, 'context'), branch(2, 'prompt-tokens')])).toEqual({
      'budget/starved_branches': 2,
    });
    // An errored branch is counted by the runner's charts/env_errors, not here; none starved: no key.
    expect(metrics([chain, branch(1, 'error'), branch(3, 'terminated')])).toEqual({});
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
