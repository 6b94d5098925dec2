import { groupAdvantages, readTrajectories, type Trajectory } from '@turngym/rl';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { grpo, trainGrpo } from './grpo';

// The loop, resume, budget and metrics are the runner's (tested in @turngym/rl); this is GRPO's smoke test.
describe('trainGrpo', () => {
  const smoke = smokeSetup('turngym-grpo-');
  const registry = digitRegistry();

  it('trains on G rollouts per prompt and logs the update', async () => {
    const runDir = smoke.args('run').runDir!;
    const result = await trainGrpo({ ...smoke.args('run'), groupSize: 3 }, { registry });
    result.model.dispose();
    expect(result.iterations).toBe(3);
    expect((await readTrajectories(`${runDir}/trajectories.jsonl`)).map((t) => t.episodeId.slice(0, 9))).toEqual(
      ['it0', 'it1', 'it2'].flatMap((it) =>
        ['g0/c0', 'g0/c1', 'g0/c2', 'g1/c0', 'g1/c1', 'g1/c2'].map((c) => `${it}/${c}`),
      ),
    );
    expect((await readMetricsRows(runDir)).some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
  });

  it('scores a rollout cut before its first action with its group, but makes no update sample of it', () => {
    const rollout = (id: string, reward: number, actionTokens: number) =>
      ({
        episodeId: id,
        group: 0,
        totalReward: reward,
        stopReason: actionTokens > 0 ? 'terminated' : 'prompt-tokens',
        segments: [
          { kind: 'prompt', tokenCount: 3 },
          ...(actionTokens > 0 ? [{ kind: 'action', tokenCount: actionTokens }] : []),
        ],
      }) as unknown as Trajectory;
    const trajectories = [rollout('a', 1, 2), rollout('cut', 0, 0), rollout('b', 0.5, 2)];
    const context = { args: { promptsPerIteration: 1 } } as unknown as Parameters<typeof grpo.advantages>[1];
    const samples = grpo.advantages({ trajectories }, context);
    expect(samples.map((sample) => sample.trajectory.episodeId)).toEqual(['a', 'b']);
    const all = groupAdvantages([1, 0, 0.5]);
    expect(samples.map((sample) => sample.advantage)).toEqual([all[0], all[2]]);
  });

  it('gives each rollout (R − mean) / (unbiased std + 1e-6) of its group, by hand, skipping groups without signal', () => {
    const rollout = (id: string, group: number, reward: number, stopReason = 'terminated') =>
      ({
        episodeId: id,
        group,
        totalReward: reward,
        stopReason,
        segments: [
          { kind: 'prompt', tokenCount: 3 },
          { kind: 'action', tokenCount: 2 },
        ],
      }) as unknown as Trajectory;
    const trajectories = [
      // Group 0: rewards 1, 0, 0 (the env failed on a fourth rollout: it leaves the group).
      rollout('a', 0, 1),
      rollout('b', 0, 0),
      rollout('c', 0, 0),
      rollout('failed', 0, 1, 'error'),
      // Group 1: all equal, no signal. Group 2: one scored rollout left, no signal.
      rollout('d', 1, 0.5),
      rollout('e', 1, 0.5),
      rollout('f', 2, 1),
      rollout('failed-too', 2, 0, 'error'),
    ];
    const context = { args: { promptsPerIteration: 3 } } as unknown as Parameters<typeof grpo.advantages>[1];
    const samples = grpo.advantages({ trajectories }, context);
    // mean = 1/3; unbiased std = sqrt(((2/3)² + 2·(1/3)²) / 2) = sqrt(1/3).
    const std = Math.sqrt(((2 / 3) ** 2 + 2 * (1 / 3) ** 2) / 2);
    expect(samples.map((sample) => sample.trajectory.episodeId)).toEqual(['a', 'b', 'c']);
    expect(samples[0]!.advantage).toBeCloseTo(2 / 3 / (std + 1e-6), 12);
    expect(samples[1]!.advantage).toBeCloseTo(-1 / 3 / (std + 1e-6), 12);
    expect(samples[0]!.advantage).toBeCloseTo(1.1547, 4);
    expect(samples[2]!.advantage).toBe(samples[1]!.advantage);
  });

  it('rejects bad arguments naming the field', async () => {
    const args = smoke.args('bad');
    await expect(trainGrpo({ ...args, groupSize: 1 })).rejects.toThrow(/groupSize/);
    await expect(trainGrpo({ ...args, ratio: 'tokens' as never })).rejects.toThrow(/ratio/);
    await expect(trainGrpo({ ...args, trees: 2 } as never)).rejects.toThrow(/trees/);
  });
});
