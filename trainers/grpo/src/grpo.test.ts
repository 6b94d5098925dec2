import { readTrajectories } from '@turngym/rl';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { trainGrpo } from './grpo';

// The loop, resume, budget and metrics are the runner's (tested in @turngym/rl); this is GRPO's smoke test.
describe('trainGrpo', () => {
  const smoke = smokeSetup('turngym-grpo-');
  const registry = digitRegistry();

  it('trains on G rollouts per prompt and logs the update', async () => {
    const runDir = smoke.args('run').runDir!;
    const result = await trainGrpo({ ...smoke.args('run'), groupSize: 3 }, { registry });
    result.model.dispose();
    expect(result.iterations).toBe(3);
    expect((await readTrajectories(`${runDir}/trajectories.jsonl`)).map((t) => t.id.slice(0, 9))).toEqual(
      ['it0', 'it1', 'it2'].flatMap((it) =>
        ['g0/c0', 'g0/c1', 'g0/c2', 'g1/c0', 'g1/c1', 'g1/c2'].map((c) => `${it}/${c}`),
      ),
    );
    expect((await readMetricsRows(runDir)).some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
  });

  it('rejects bad arguments naming the field', async () => {
    const args = smoke.args('bad');
    await expect(trainGrpo({ ...args, groupSize: 1 })).rejects.toThrow(/groupSize/);
    await expect(trainGrpo({ ...args, ratio: 'tokens' as never })).rejects.toThrow(/ratio/);
    await expect(trainGrpo({ ...args, trees: 2 } as never)).rejects.toThrow(/trees/);
  });
});
