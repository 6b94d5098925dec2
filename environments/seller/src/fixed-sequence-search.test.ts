import { FixedRewardDemoEnv } from './fixed-reward-demo-env';
import { scoreSequence, searchFixedSequence } from './fixed-sequence-search';
import { SellerEnv } from './seller-env';

describe('fixed-sequence search (the best open-loop policy)', () => {
  it('finds the best sequence of the demo env from random starts', async () => {
    const env = new FixedRewardDemoEnv([0.2, 0.1, 0.7, 0.3], 3);
    const best = await searchFixedSequence(env, [{ seed: 0 }], {
      length: 3,
      actions: 4,
      restarts: 2,
      sweeps: 3,
      seed: 1,
    });
    expect(best.sequence).toEqual([2, 2, 2]);
    expect(best.meanReturn).toBeCloseTo(2.1);
  });

  it('scores a sequence over tasks, stopping each episode where it ends', async () => {
    const env = new SellerEnv();
    const tasks = Array.from({ length: 40 }, (_, index) => ({ seed: index, options: { taskId: index * 11 } }));
    const threat = await scoreSequence(env, [5, 5, 5, 5, 5, 5, 5, 5], tasks);
    expect(threat.successRate).toBe(0);
    expect(threat.meanReturn).toBeLessThan(-0.9);
    const polite = await scoreSequence(env, [0, 3, 1, 8, 2, 8, 2, 7], tasks);
    expect(polite.successRate).toBeGreaterThan(0.1);
    expect(polite.meanReturn).toBeCloseTo(2 * polite.successRate - 1);
  });
});
