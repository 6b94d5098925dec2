import type { RolloutPolicy } from './rollout-engine';
import type { Trajectory } from './trajectory';
import { collectTrees } from './tree-rollouts';
import { DigitEnv } from './__fixtures__/digit-env';
import { useDigitPolicy } from './__fixtures__/digit-policy';

describe('collectTrees budgets', () => {
  const digitPolicy = useDigitPolicy();
  let policy: RolloutPolicy;
  beforeAll(() => {
    policy = digitPolicy();
  });

  const spentBy = (trajectories: readonly Trajectory[], group: number) =>
    trajectories.filter((t) => t.group === group).reduce((sum, t) => sum + t.generatedTokens, 0);

  it("keeps promptTokenBudget for all of a prompt's leaves together, branches included", async () => {
    const { trajectories } = await collectTrees({
      policy,
      makeEnv: async () => new DigitEnv({ maxTurns: 4 }),
      envId: 'test/digit-v1',
      seeds: [3, 4],
      shape: { trees: 2, branches: 2, rounds: 2 },
      options: { maxActionTokens: 8, seed: 5, promptTokenBudget: 70 },
    });
    // Before the fix each round's branches had a fresh 70 of their own (2 rounds: up to 3 × 70 per prompt).
    for (const group of [0, 1]) expect(spentBy(trajectories, group)).toBeLessThanOrEqual(70);
    // What the chains left went to the branches (shared among a round's branches of the prompt).
    expect(trajectories.some((t) => t.tree!.round === 1 && t.generatedTokens > 0)).toBe(true);
  });

  it('with N·L = 0 forks no env at the nodes no branch will start from', async () => {
    let forks = 0;
    const counted = async () => {
      const env = new DigitEnv({ maxTurns: 4 });
      const fork = env.fork.bind(env);
      env.fork = () => {
        forks += 1;
        return fork();
      };
      return env;
    };
    for (const shape of [
      { trees: 2, branches: 0, rounds: 1 },
      { trees: 2, branches: 3, rounds: 0 },
    ]) {
      const { trajectories } = await collectTrees({
        policy,
        makeEnv: counted,
        envId: 'test/digit-v1',
        seeds: [3, 4],
        shape,
        options: { maxActionTokens: 8, seed: 5 },
      });
      expect(trajectories).toHaveLength(4);
      // Was one env replayed per node reached (the root and every turn that did not end the episode).
      expect(forks).toBe(0);
    }
    // The nodes are still named as the tree's, for the report's viewer.
    const { trajectories } = await collectTrees({
      policy,
      makeEnv: counted,
      envId: 'test/digit-v1',
      seeds: [3],
      shape: { trees: 1, branches: 0, rounds: 1 },
      options: { maxActionTokens: 8, seed: 5 },
    });
    expect(trajectories[0]!.steps.map((step) => step.node)).toEqual(
      trajectories[0]!.steps.map((_, index) => `g0/t0/n${index + 1}`),
    );
  });

  it('draws branches from the root of a tree whose chain the env failed on its first step (§1: {root} ∪ non-leaf)', async () => {
    // The first env made (a chain's) throws on every step; its root snapshot (a fork) and the branches' forks
    // are fresh envs that step normally.
    let made = 0;
    const { trajectories } = await collectTrees({
      policy,
      makeEnv: async () => {
        const env = new DigitEnv({ maxTurns: 4 });
        if (made++ === 0) env.step = () => Promise.reject(new Error('env crashed'));
        return env;
      },
      envId: 'test/digit-v1',
      seeds: [3],
      shape: { trees: 2, branches: 2, rounds: 1 },
      options: { maxActionTokens: 8, seed: 5 },
    });
    const failed = trajectories.find((t) => t.stopReason === 'error')!;
    expect(failed.tree!.round).toBe(0);
    expect(failed.turns).toBe(0);
    // Was none: the root had no child, so the tree had nothing to draw and lost both of its branches.
    const branches = trajectories.filter((t) => t.tree!.tree === failed.tree!.tree && t.tree!.round === 1);
    expect(branches).toHaveLength(2);
    for (const branch of branches) {
      expect(branch.tree!.branchedFrom).toBe(failed.tree!.branchedFrom);
      expect(branch.stopReason).not.toBe('error');
      expect(branch.turns).toBeGreaterThan(0);
    }
    expect(DigitEnv.open).toBe(0);
  });

  /** Two trees of two branches on two seeds: chains, root snapshots and one round of branches. */
  const forkingRequest = () => ({
    policy,
    makeEnv: async () => new DigitEnv({ maxTurns: 4 }),
    envId: 'test/digit-v1',
    seeds: [3, 4],
    shape: { trees: 2, branches: 2, rounds: 1 },
    options: { maxActionTokens: 8, seed: 5 },
  });

  /**
   * Runs `body` with every fork of every DigitEnv (the forks' own forks too) counted, the `failAt()`-th one of a
   * count failing; `restart()` starts the count again.
   */
  async function withFailingFork(
    failAt: () => number,
    body: (forks: { count: () => number; restart: () => void }) => Promise<void>,
  ): Promise<void> {
    const original = DigitEnv.prototype.fork;
    let forks = 0;
    DigitEnv.prototype.fork = function (this: DigitEnv) {
      forks += 1;
      return forks === failAt() ? Promise.reject(new Error('fork failed')) : original.call(this);
    };
    try {
      await body({ count: () => forks, restart: () => (forks = 0) });
    } finally {
      DigitEnv.prototype.fork = original;
    }
  }

  it("closes the branches' env forks when one of them fails, and throws its error", async () => {
    let failAt = 0;
    await withFailingFork(
      () => failAt,
      async (forks) => {
        await collectTrees(forkingRequest());
        // The last fork of a run is a branch's (the branches start after every chain has ended): fail it.
        failAt = forks.count();
        forks.restart();
        await expect(collectTrees(forkingRequest())).rejects.toThrow('fork failed');
        // Was 7: the other branches' forks, never run and never closed.
        expect(DigitEnv.open).toBe(0);
      },
    );
  });

  it("closes the chains' envs when a root snapshot's fork fails, and throws its error", async () => {
    // The first fork of a run is a chain's root snapshot, taken before any chain runs.
    await withFailingFork(
      () => 1,
      async () => {
        await expect(collectTrees(forkingRequest())).rejects.toThrow('fork failed');
        // Was 7: the four chains' envs, and the root forks that settled after the failure, never closed.
        expect(DigitEnv.open).toBe(0);
      },
    );
  });
});
