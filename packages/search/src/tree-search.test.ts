import { InvalidOptionsError, TimeLimit } from '@turngym/core';
import type { Env } from '@turngym/spec';
import { GreedyTrapEnv } from './__fixtures__/greedy-trap-env';
import { SayWordEnv } from './__fixtures__/say-word-env';
import { SearchNode, TreeSearch, type SearchState } from './tree-search';
import { TreeSearchError } from './tree-search-error';

type Trap = Env<string, number>;

async function trap(prize = 1): Promise<Trap> {
  const env = new GreedyTrapEnv(prize);
  await env.reset({ seed: 0 });
  return env as unknown as Trap;
}

const ROOT_INFO = { actionMask: [true, true, false] };

/** Every node's statistics, depth first, for comparing whole trees. */
function shape(node: SearchNode<number>): unknown {
  return {
    visits: node.visits,
    total: node.total,
    priors: node.priors,
    children: [...node.children.entries()].map(([action, child]) => [action, shape(child)]),
  };
}

describe('TreeSearch (UCT / PUCT through fork)', () => {
  it('UCT finds the known optimum that greed misses, and never takes a masked action', async () => {
    const env = await trap();
    const result = await new TreeSearch({ simulations: 300, seed: 1 }).search(env, { info: ROOT_INFO });
    expect(result.action).toBe(1);
    expect(result.children.map((child) => child.action)).toEqual([0, 1]);
    expect(result.tree.legal).toEqual([0, 1]);
    // Under action 1, the prize action is the most visited grandchild, and its mean is the prize.
    const after = result.tree.children.get(1) as SearchNode<number>;
    const best = [...after.children.entries()].sort((a, b) => b[1].visits - a[1].visits)[0]!;
    expect(best[0]).toBe(2);
    expect(best[1].total / best[1].visits).toBe(1);
    expect(result.policy[1]).toBeGreaterThan(0.5);
    expect(result.rootValue).toBeGreaterThan(0.6);
  });

  it('PUCT with uniform priors and rollout values converges to the same optimum', async () => {
    const env = await trap();
    const result = await new TreeSearch({ simulations: 300, rule: 'puct', seed: 2 }).search(env, { info: ROOT_INFO });
    expect(result.action).toBe(1);
    expect(result.rootPriors).toEqual([0.5, 0.5]);
  });

  it('the discount changes the optimum: with γ = 0.5 the later prize is worth 0.5 < 0.6', async () => {
    const env = await trap();
    const result = await new TreeSearch({ simulations: 300, discount: 0.5, seed: 1 }).search(env, { info: ROOT_INFO });
    expect(result.action).toBe(0);
    const prizePath = result.tree.children.get(1)!.children.get(2)!;
    expect(prizePath.total / prizePath.visits).toBe(1);
    expect(result.tree.children.get(1)!.total / result.tree.children.get(1)!.visits).toBeLessThanOrEqual(0.5);
  });

  it('priors steer the visits of PUCT', async () => {
    // Values say little here (every leaf is worth 0; only the trap's 0.6 shows): the root prior decides.
    const run = async (rootPrior: number[]) =>
      new TreeSearch<string, number>(
        { simulations: 60, rule: 'puct', seed: 3 },
        { prior: (state) => (state.actions.length === 2 ? rootPrior : [1, 1, 1]), value: () => 0 },
      ).search(await trap(0), { info: ROOT_INFO });
    const visits = (result: Awaited<ReturnType<typeof run>>) => result.children.map((child) => child.visits);
    const towardsOne = visits(await run([0.05, 0.95]));
    const towardsZero = visits(await run([0.95, 0.05]));
    expect(towardsOne[1]).toBeGreaterThan(2 * towardsZero[1]!);
    expect(towardsZero[0]).toBeGreaterThan(towardsOne[0]!);
  });

  it('Dirichlet noise enters the root priors only, and is seeded', async () => {
    const env = await trap();
    const hookPriors = [0.7, 0.3];
    const run = async (seed: number, dirichletWeight: number) =>
      new TreeSearch<string, number>(
        { simulations: 40, rule: 'puct', dirichletWeight, dirichletAlpha: 0.3, seed },
        { prior: (state) => (state.actions.length === 2 ? hookPriors : [0.2, 0.3, 0.5]) },
      ).search(env, { info: ROOT_INFO });
    const plain = await run(5, 0);
    const noisy = await run(5, 0.25);
    expect(plain.rootPriors).toEqual(hookPriors);
    expect(noisy.rootPriors).not.toEqual(hookPriors);
    expect(noisy.rootPriors!.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 12);
    // Each noisy prior keeps at least (1 − w) of the clean one.
    noisy.rootPriors!.forEach((p, index) => expect(p).toBeGreaterThanOrEqual(0.75 * hookPriors[index]! - 1e-12));
    // The tree stores the clean root priors; every deeper node has exactly the hook's priors.
    expect(noisy.tree.priors).toEqual(hookPriors);
    for (const child of noisy.tree.children.values()) expect(child.priors).toEqual([0.2, 0.3, 0.5]);
    // Same seed, same noise; another seed, other noise.
    expect((await run(5, 0.25)).rootPriors).toEqual(noisy.rootPriors);
    expect((await run(6, 0.25)).rootPriors).not.toEqual(noisy.rootPriors);
  });

  it('same seed, same tree; another seed, another tree (random ties and rollouts)', async () => {
    const env = await trap();
    const tree = async (seed: number) =>
      shape((await new TreeSearch({ simulations: 80, seed }).search(env, { info: ROOT_INFO })).tree);
    expect(await tree(7)).toEqual(await tree(7));
    expect(await tree(7)).not.toEqual(await tree(8));
  });

  it('breaks ties with the seeded stream (random) or by list order (first)', async () => {
    const env = await trap(0);
    // A constant value and uniform priors: the first simulation faces a tie between both root actions.
    const chosen = async (tieBreak: 'random' | 'first', seed: number) =>
      (
        await new TreeSearch<string, number>(
          { simulations: 1, rule: 'puct', tieBreak, seed },
          { value: () => 0 },
        ).search(env, { info: { actionMask: [true, true, true] } })
      ).children[0]!.action;
    const seeds = Array.from({ length: 12 }, (_, seed) => seed);
    const first = await Promise.all(seeds.map((seed) => chosen('first', seed)));
    const random = await Promise.all(seeds.map((seed) => chosen('random', seed)));
    expect(new Set(first)).toEqual(new Set([0]));
    expect(new Set(random).size).toBeGreaterThan(1);
    expect(await Promise.all(seeds.map((seed) => chosen('random', seed)))).toEqual(random);
  });

  it('chooses by visits, by sampling with a temperature, or by the best mean', async () => {
    const env = await trap();
    const base = { simulations: 40, seed: 4 } as const;
    const byVisits = await new TreeSearch(base).search(env, { info: ROOT_INFO });
    const most = byVisits.children.reduce((a, b) => (b.visits > a.visits ? b : a));
    expect(byVisits.action).toBe(most.action);
    expect(byVisits.policy.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 12);
    const sampled = new Set<number>();
    for (let seed = 0; seed < 20; seed++)
      sampled.add((await new TreeSearch({ ...base, seed, temperature: 5 }).search(env, { info: ROOT_INFO })).action);
    expect(sampled).toEqual(new Set([0, 1]));
    // A score that always descends through action 1: it gets the visits, while action 0 keeps the best mean.
    const lopsided = (choose: 'visits' | 'mean') =>
      new TreeSearch<string, number>(
        { simulations: 10, choose, seed: 0 },
        { score: (edge) => (edge.action === 1 ? 1 : 0), value: () => 0 },
      ).search(trapWithoutPrize, { info: ROOT_INFO });
    const trapWithoutPrize = await trap(0);
    expect((await lopsided('visits')).action).toBe(1);
    const byMean = await lopsided('mean');
    expect(byMean.children.map((child) => [child.action, child.visits, child.mean])).toEqual([
      [0, 1, 0.6],
      [1, 9, 0],
    ]);
    expect(byMean.action).toBe(0);
  });

  it('keeps growing a tree handed back, and closes every fork it makes', async () => {
    const env = await trap();
    const open = GreedyTrapEnv.open;
    const search = new TreeSearch<string, number>({ simulations: 30, rule: 'puct', seed: 1 });
    const first = await search.search(env, { info: ROOT_INFO });
    const again = await search.search(env, { info: ROOT_INFO, tree: first.tree });
    expect(again.tree).toBe(first.tree);
    expect(again.tree.visits).toBe(60);
    expect(GreedyTrapEnv.open).toBe(open);
  });

  it('searches a text env over a finite list given by the actions hook', async () => {
    const env = new SayWordEnv('7');
    await env.reset({ seed: 0 });
    const search = new TreeSearch<string, string>({ simulations: 30, seed: 0 }, { actions: () => ['3', '7', '9'] });
    const result = await search.search(env as unknown as Env<string, string>);
    expect(result.action).toBe('7');
    await env.close();
  });

  it('rejects what it cannot search, naming the fix', async () => {
    const text = new SayWordEnv('7');
    await text.reset({ seed: 0 });
    await expect(new TreeSearch({ simulations: 5 }).search(text as unknown as Env<unknown, number>)).rejects.toThrow(
      new TreeSearchError('TreeSearch needs a discrete action space or an actions hook; test/say-word-v1 has text'),
    );
    await text.close();
    expect(() => new TreeSearch({ simulations: 0 })).toThrow(InvalidOptionsError);
    expect(() => new TreeSearch({ simulations: 5, rule: 'alphago' as 'uct' })).toThrow(/rule must be one of/);
    // Settings the rule or the choice would silently ignore.
    expect(() => new TreeSearch({ simulations: 5, choose: 'mean', temperature: 1 })).toThrow(
      new InvalidOptionsError('tree search', [
        'options.temperature (1) samples by visits: it needs choose "visits", not "mean"',
      ]),
    );
    expect(() => new TreeSearch({ simulations: 5, rule: 'uct', dirichletWeight: 0.25 })).toThrow(
      /options.dirichletWeight \(0.25\) adds noise to priors, which only rule "puct" reads/,
    );
    expect(new TreeSearch({ simulations: 5, rule: 'puct', dirichletWeight: 0.25, temperature: 1 }).options).toEqual(
      expect.objectContaining({ dirichletWeight: 0.25, temperature: 1 }),
    );
    const none = new SayWordEnv('7');
    Object.assign(none, { spec: { ...none.spec, id: 'test/no-action-v1', actionSpace: { type: 'discrete', n: 0 } } });
    await none.reset({ seed: 0 });
    await expect(new TreeSearch({ simulations: 5 }).search(none as unknown as Trap)).rejects.toThrow(
      new TreeSearchError('test/no-action-v1 has a discrete space of 0 actions: nothing to search'),
    );
    await none.close();
    const env = await trap();
    const badPrior = new TreeSearch<string, number>(
      { simulations: 5, rule: 'puct' },
      { prior: (state: SearchState<string, number>) => state.actions.map(() => -1) },
    );
    await expect(badPrior.search(env, { info: ROOT_INFO })).rejects.toThrow(TreeSearchError);
  });

  it('rejects a value hook that gives NaN or an infinity, instead of choosing from poisoned statistics', async () => {
    for (const choose of ['mean', 'visits'] as const) {
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
        const env = await trap();
        const search = new TreeSearch<string, number>({ simulations: 10, choose, seed: 1 }, { value: () => bad });
        await expect(search.search(env, { info: ROOT_INFO })).rejects.toThrow(
          new TreeSearchError(
            `the value hook must give a finite number for a state of test/greedy-trap-v1, got ${bad}`,
          ),
        );
      }
    }
  });

  it('rejects an actions hook that lists an action twice (the policy would count its visits twice)', async () => {
    const env = new SayWordEnv('7');
    await env.reset({ seed: 0 });
    const search = new TreeSearch<string, string>({ simulations: 5 }, { actions: () => ['3', '7', '3'] });
    await expect(search.search(env as unknown as Env<string, string>)).rejects.toThrow(
      new TreeSearchError('the actions hook listed "3" twice for a state of test/say-word-v1'),
    );
    await env.close();
  });

  describe('a truncated state (a time limit cut the episode there) keeps its value', () => {
    // The trap cut after its first turn by TimeLimit(1): both first actions are truncated, not terminated. With
    // V(turn 1 after 1) = 1 (the prize is still to claim) and V(turn 1 after 0) = 0, Q(0) = 0.6 + 0 and
    // Q(1) = 0 + γ·1: waiting is right for γ = 1, taking the 0.6 for γ = 0.5.
    const cut = async (): Promise<Trap> => {
      const env = new TimeLimit(new GreedyTrapEnv(), 1);
      await env.reset({ seed: 0 });
      return env as unknown as Trap;
    };
    const prizeToGo = (state: SearchState<string, number>) => (state.observation === 'turn 1 after 1' ? 1 : 0);

    it('bootstraps from the value hook, once per truncated state, and backs that value up on every visit', async () => {
      const seen: SearchState<string, number>[] = [];
      const value = (state: SearchState<string, number>) => {
        seen.push(state);
        return prizeToGo(state);
      };
      const result = await new TreeSearch<string, number>({ simulations: 20, seed: 1 }, { value }).search(await cut(), {
        info: ROOT_INFO,
      });
      expect(result.children.map((child) => [child.action, child.mean])).toEqual([
        [0, 0.6],
        [1, 1],
      ]);
      expect(result.action).toBe(1);
      expect(seen.map((state) => [state.observation, state.truncated])).toEqual(
        expect.arrayContaining([
          ['turn 1 after 0', true],
          ['turn 1 after 1', true],
        ]),
      );
      expect(seen).toHaveLength(2);
      const node = result.tree.children.get(1)!;
      expect([node.terminal, node.truncated, node.value, node.children.size]).toEqual([true, true, 1, 0]);
    });

    it('discounts the bootstrapped value like any leaf value', async () => {
      const result = await new TreeSearch<string, number>(
        { simulations: 20, rule: 'puct', discount: 0.5, seed: 1 },
        { value: prizeToGo },
      ).search(await cut(), { info: ROOT_INFO });
      const [taken, waited] = result.children.map((child) => child.mean);
      expect(taken).toBeCloseTo(0.6, 12);
      expect(waited).toBe(0.5);
      expect(result.action).toBe(0);
    });

    it('the default rollout, which cannot step past the cut, values it 0 instead of failing', async () => {
      const result = await new TreeSearch<string, number>({ simulations: 10, seed: 1 }).search(await cut(), {
        info: ROOT_INFO,
      });
      expect(result.children.map((child) => child.mean)).toEqual([0.6, 0]);
    });
  });

  it('gives finite root priors for a tiny Dirichlet alpha, whose gamma draws all underflow to 0', async () => {
    const env = await trap();
    for (const dirichletAlpha of [1e-5, 1e-30]) {
      const result = await new TreeSearch<string, number>({
        simulations: 20,
        rule: 'puct',
        dirichletWeight: 0.5,
        dirichletAlpha,
        seed: 1,
      }).search(env, { info: ROOT_INFO });
      const priors = result.rootPriors!;
      expect(priors.every((p) => Number.isFinite(p) && p >= 0.25)).toBe(true);
      expect(priors[0]! + priors[1]!).toBeCloseTo(1, 12);
      // Dir(α → 0) is all its mass on one action: the noise gives that one 0.5 on top of half its prior.
      expect([...priors].sort()).toEqual([0.25, 0.75]);
    }
  });

  it('rejects a score hook that gives NaN, instead of never choosing that action', async () => {
    const search = new TreeSearch<string, number>(
      { simulations: 10, seed: 1 },
      { score: (edge) => (edge.action === 1 ? Number.NaN : edge.total) },
    );
    await expect(search.search(await trap(), { info: ROOT_INFO })).rejects.toThrow(
      new TreeSearchError('the score hook gave NaN for action 1'),
    );
  });

  it('a temperature so small that n^(1/τ) overflows takes the most visited child, ties by the seeded stream', async () => {
    // Every leaf worth 0 and no reward at the root's children: UCT alternates, 2 visits each after 4 simulations.
    const chosen = new Set<string>();
    for (let seed = 0; seed < 8; seed++) {
      const env = new SayWordEnv('7', 3);
      await env.reset({ seed: 0 });
      const result = await new TreeSearch<string, string>(
        { simulations: 4, temperature: 1e-310, seed },
        { value: () => 0, actions: () => ['3', '9'] },
      ).search(env as unknown as Env<string, string>);
      expect(result.children.map((child) => child.visits)).toEqual([2, 2]);
      chosen.add(result.action);
      await env.close();
    }
    expect(chosen).toEqual(new Set(['3', '9']));
  });

  it('a value hook that throws leaves no unevaluated node in a tree handed to the search', async () => {
    const env = await trap();
    const { tree } = await new TreeSearch<string, number>({ simulations: 1, seed: 1 }, { value: () => 0 }).search(env, {
      info: ROOT_INFO,
    });
    expect(tree.children.size).toBe(1);
    // UCT tries the root's other action next: that new leaf's evaluation fails.
    const failing = new TreeSearch<string, number>(
      { simulations: 1, seed: 1 },
      {
        value: () => {
          throw new Error('value network unavailable');
        },
      },
    );
    await expect(failing.search(env, { info: ROOT_INFO, tree })).rejects.toThrow('value network unavailable');
    // Kept, the node would never be evaluated: the next search would find it "tried" and descend through it.
    expect([...tree.children.values()].map((child) => child.visits)).toEqual([1]);
    expect(tree.visits).toBe(1);
  });
});
