import { TreeSearch } from '@turngym/search';
import type { Env } from '@turngym/spec';
import { FixedRewardDemoEnv } from './fixed-reward-demo-env';

describe("FixedRewardDemoEnv with @turngym/search's TreeSearch (the reference's convergence check)", () => {
  it.each(['uct', 'puct'] as const)('%s converges to the best of the 4 fixed-reward actions', async (rule) => {
    const env = new FixedRewardDemoEnv([0.2, 0.9, 0.5, 0.1]);
    const reset = await env.reset({ seed: 0 });
    const result = await new TreeSearch({ simulations: 200, rule, seed: 1 }).search(env as Env<string, number>, {
      info: reset.info,
    });
    expect(result.action).toBe(1);
    const visits = result.children.map((child) => child.visits);
    expect(visits[1]).toBeGreaterThan(visits[0]! + visits[2]! + visits[3]!);
    // One step: each tried action's mean is its fixed reward exactly.
    for (const child of result.children) expect(child.mean).toBeCloseTo(env.rewards[child.action]!, 12);
    expect(result.policy[1]).toBeGreaterThan(0.5);
  });

  it("plans the 3-step horizon: the best action's subtree repeats it", async () => {
    const env = new FixedRewardDemoEnv([0.2, 0.1, 0.7, 0.3], 3);
    const reset = await env.reset({ seed: 0 });
    const result = await new TreeSearch({ simulations: 400, seed: 2 }).search(env as Env<string, number>, {
      info: reset.info,
    });
    expect(result.action).toBe(2);
    const next = result.tree.children.get(2)!;
    const mostVisited = [...next.children.entries()].sort((a, b) => b[1].visits - a[1].visits)[0]![0];
    expect(mostVisited).toBe(2);
  });
});
