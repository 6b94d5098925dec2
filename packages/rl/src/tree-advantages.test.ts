import { groupAdvantageSamples } from './group-advantage-samples';
import { lossMask } from './loss-mask';
import { NonFiniteRewardError } from './trainer-kit/trainer-errors';
import { fixtureTrajectory } from './__fixtures__/trajectory-fixture';
import type { StopReason } from './trajectory';
import {
  checkTreePaths,
  leafTokenAdvantages,
  leafTurnAdvantages,
  sharedTurnWeights,
  treeAdvantages,
  treeAdvantageSamples,
  isStarvedBranch,
} from './tree-advantages';

const rounded = (values: Float64Array) => Array.from(values).map((value) => Number(value.toFixed(5)));

describe('treeAdvantages (Tree-GRPO, ALGORITHMS.md §1)', () => {
  it('adds the inter-tree and intra-tree z-scores (hand-computed, M = 2)', () => {
    // Tree 0 leaves [1, 0, 1], tree 1 leaves [0, 0, 0]; the prompt's group is all six.
    // Inter: mean 1/3; devs 2/3 (×2), −1/3 (×4); Σ dev² = 8/9 + 4/9 = 4/3; var = (4/3)/5 = 4/15;
    //   std = 0.5163978 → R=1: (2/3)/0.5163988 = 1.29099; R=0: −(1/3)/0.5163988 = −0.64550.
    // Intra tree 0: mean 2/3; devs 1/3, −2/3, 1/3; Σ dev² = 2/3; var = 1/3; std = 0.5773503
    //   → 0.57735, −1.15470, 0.57735. Intra tree 1: all equal → 0.
    // Sum: tree 0 [1.86834, −1.80019, 1.86834]; tree 1 [−0.64550 ×3].
    const [first, second] = treeAdvantages({
      trees: [
        { leaves: [{ reward: 1 }, { reward: 0 }, { reward: 1 }] },
        { leaves: [{ reward: 0 }, { reward: 0 }, { reward: 0 }] },
      ],
    });
    expect(rounded(first!.inter)).toEqual([1.29099, -0.6455, 1.29099]);
    expect(rounded(first!.intra)).toEqual([0.57735, -1.1547, 0.57735]);
    expect(rounded(first!.advantage)).toEqual([1.86834, -1.80019, 1.86834]);
    expect(rounded(second!.intra)).toEqual([0, 0, 0]);
    expect(rounded(second!.advantage)).toEqual([-0.6455, -0.6455, -0.6455]);
  });

  it('reduces to twice the GRPO advantage with one tree, and to R/(1+1e-6) twice for one leaf', () => {
    // One tree: inter and intra are the same group. [1, 0]: ±(0.5/0.7071078) = ±0.70711, doubled.
    expect(rounded(treeAdvantages({ trees: [{ leaves: [{ reward: 1 }, { reward: 0 }] }] })[0]!.advantage)).toEqual([
      1.41421, -1.41421,
    ]);
    // A lone leaf in a lone tree: both groups of one (mean 0, std 1) → 2 · 0.5/(1 + 1e-6).
    expect(treeAdvantages({ trees: [{ leaves: [{ reward: 0.5 }] }] })[0]!.advantage[0]).toBeCloseTo(0.999999, 6);
  });

  it("gives a one-leaf tree §1's group-of-one intra term R/(1 + 1e-6) beside a full tree", () => {
    // Trees [1, 0, 0] and [0.5] (the second's branches all failed in the env, say).
    // Inter over [1, 0, 0, 0.5]: mean 1.5/4 = 0.375; devs 0.625, −0.375, −0.375, 0.125;
    //   Σ dev² = 0.390625 + 2·0.140625 + 0.015625 = 0.6875; std = √(0.6875/3) = 0.4787136
    //   → 0.625/0.4787146 = 1.30558, −0.375/0.4787146 = −0.78335, 0.125/0.4787146 = 0.26112.
    // Intra tree 0: mean 1/3, std √((4/9 + 1/9 + 1/9)/2) = 0.5773503 → 1.15470, −0.57735, −0.57735.
    // Intra tree 1, a group of one (mean 0, std 1): 0.5/(1 + 1e-6) = 0.5 (to 5 places), not 0.
    const [full, lone] = treeAdvantages({
      trees: [{ leaves: [{ reward: 1 }, { reward: 0 }, { reward: 0 }] }, { leaves: [{ reward: 0.5 }] }],
    });
    expect(rounded(full!.inter)).toEqual([1.30558, -0.78335, -0.78335]);
    expect(rounded(full!.advantage)).toEqual([2.46028, -1.3607, -1.3607]);
    expect(rounded(lone!.inter)).toEqual([0.26112]);
    expect(rounded(lone!.intra)).toEqual([0.5]);
    expect(rounded(lone!.advantage)).toEqual([0.76112]);
  });

  it('rejects empty prompts and empty trees', () => {
    expect(() => treeAdvantages({ trees: [] })).toThrow(/trees is empty/);
    expect(() => treeAdvantages({ trees: [{ leaves: [{ reward: 1 }] }, { leaves: [] }] })).toThrow(
      /trees\[1\]\.leaves is empty/,
    );
  });
});

describe('shared-prefix broadcast', () => {
  // One tree: a → b → d1 (R = 1), branched at b: a → b → d2 (R = 0), branched at a: a → e (R = 0).
  // Rewards [1, 0, 0]: mean 1/3, std 0.5773503; z = [1.15470, −0.57735, −0.57735]; one tree so A = 2z = [2.30940, −1.15470, −1.15470].
  const tree = {
    leaves: [
      { reward: 1, turns: ['a', 'b', 'd1'] },
      { reward: 0, turns: ['a', 'b', 'd2'] },
      { reward: 0, turns: ['a', 'e'] },
    ],
  };
  const advantages = treeAdvantages({ trees: [tree] })[0]!.advantage;

  it('gives each leaf copy of a shared turn that leaf’s own advantage', () => {
    const perTurn = leafTurnAdvantages(tree, advantages);
    expect(perTurn.map(rounded)).toEqual([
      [2.3094, 2.3094, 2.3094],
      [-1.1547, -1.1547, -1.1547],
      [-1.1547, -1.1547],
    ]);
  });

  it('nets the copies of shared turns into a step-level signal', () => {
    const weights = sharedTurnWeights(tree, advantages);
    // a is in all three leaves: 2.30940 − 1.15470 − 1.15470 = 0 (the root step gets no net push).
    expect(weights.get('a')!.copies).toBe(3);
    expect(weights.get('a')!.sum).toBeCloseTo(0, 9);
    // b is shared by the good and the bad branch: 2.30940 − 1.15470 = 1.15470, still positive:
    // b led to a success more often than its sibling e did.
    expect(weights.get('b')!.copies).toBe(2);
    expect(weights.get('b')!.sum).toBeCloseTo(1.1547, 4);
    expect(weights.get('d2')!.sum).toBeCloseTo(-1.1547, 4);
  });

  it('puts each leaf’s advantage on its action tokens only', () => {
    const record = {
      segments: [
        { kind: 'prompt' as const, tokenCount: 3 },
        { kind: 'action' as const, tokenCount: 2 },
        { kind: 'observation' as const, tokenCount: 1 },
        { kind: 'action' as const, tokenCount: 1 },
      ],
    };
    const [first, second] = leafTokenAdvantages([record, record], [0.5, -2]);
    expect(Array.from(first!)).toEqual([0, 0, 0, 0.5, 0.5, 0, 0.5]);
    expect(Array.from(second!)).toEqual([0, 0, 0, -2, -2, 0, -2]);
    // Zero exactly where the loss mask is zero.
    expect(Array.from(first!).map((value) => (value === 0 ? 0 : 1))).toEqual(Array.from(lossMask(record)));
  });

  it('rejects length mismatches and paths that are not one tree', () => {
    expect(() => leafTurnAdvantages(tree, [1, 2])).toThrow(RangeError);
    expect(() => leafTurnAdvantages(tree, [1, 2])).toThrow(/advantages and tree\.leaves/);
    expect(() => leafTokenAdvantages([], [1])).toThrow(/advantages and records/);
    expect(() =>
      checkTreePaths({
        leaves: [
          { reward: 0, turns: ['a', 'b'] },
          { reward: 1, turns: ['c', 'b'] },
        ],
      }),
    ).toThrow(/"b" after "c".*"b" after "a"/);
    expect(() => checkTreePaths({ leaves: [{ reward: 0 }] })).toThrow(/leaves\[0\]\.turns is missing/);
  });
});

describe('treeAdvantageSamples', () => {
  const leaf = (id: string, group: number, tree: number, reward: number, stopReason: StopReason = 'terminated') =>
    fixtureTrajectory({
      episodeId: id,
      envId: 'test/env-v0',
      seed: group,
      group,
      tree: { tree, branchedFrom: 'n0', sharedTurns: 0, round: 0 },
      tokens: [1, 2],
      segments: [
        { kind: 'prompt', tokenCount: 1 },
        { kind: 'action', tokenCount: 1 },
      ],
      logprobs: [0, -1],
      totalReward: reward,
      stopReason,
      generatedTokens: 1,
      computedTokens: 2,
    });

  it('groups the trajectories themselves by prompt and tree, skipping failed rollouts and tied prompts', () => {
    const trajectories = [
      leaf('a', 0, 0, 1),
      leaf('b', 0, 0, 0),
      leaf('c', 0, 1, 1),
      leaf('failed', 0, 1, 5, 'error'),
      leaf('d', 0, 1, 0),
      leaf('tied-1', 1, 0, 1),
      leaf('tied-2', 1, 1, 1),
    ];
    const samples = treeAdvantageSamples(trajectories);
    expect(samples.map((sample) => sample.trajectory.episodeId)).toEqual(['a', 'b', 'c', 'd']);
    const [tree0, tree1] = treeAdvantages({
      trees: [{ leaves: [{ reward: 1 }, { reward: 0 }] }, { leaves: [{ reward: 1 }, { reward: 0 }] }],
    });
    expect(samples.map((sample) => sample.advantage)).toEqual([...tree0!.advantage, ...tree1!.advantage]);
  });

  it('refuses a NaN or infinite return naming the episode, where a group of one or of equal infinities was skipped as tied', () => {
    const withStep = (id: string, group: number, tree: number, reward: number) => ({
      ...leaf(id, group, tree, reward),
      steps: [
        {
          action: 'a',
          observation: '',
          reward,
          terminated: true,
          truncated: false,
          info: {},
          node: `${id}/0`,
          actionTokens: 1,
        },
      ],
      turns: 1,
    });
    // A lone NaN leaf, a NaN beside a good prompt, and two +Infinity leaves (tied: every A would be 0, silently).
    const lone = [withStep('ok-a', 0, 0, 1), withStep('ok-b', 0, 1, 0), withStep('nan', 1, 0, Number.NaN)];
    const infinite = [withStep('inf-a', 0, 0, Infinity), withStep('inf-b', 0, 1, Infinity)];
    for (const build of [treeAdvantageSamples, (t: typeof lone) => groupAdvantageSamples(t, 2)]) {
      expect(() => build(lone)).toThrow(NonFiniteRewardError);
      expect(() => build(lone)).toThrow(/totalReward NaN of episode nan/);
      expect(() => build(infinite)).toThrow(/totalReward Infinity of episode inf-a/);
    }
    // The return is what the statistics read: a record whose steps are finite but whose totalReward is not.
    const total = { ...withStep('total', 0, 0, 1), totalReward: Number.NaN };
    expect(() => groupAdvantageSamples([total, withStep('ok', 0, 0, 0)], 1)).toThrow(
      /totalReward NaN of episode total/,
    );
    // A rollout of a group past `prompts` was dropped without a word.
    expect(() =>
      groupAdvantageSamples([withStep('a', 0, 0, 1), withStep('b', 0, 0, 0), withStep('c', 2, 0, 1)], 2),
    ).toThrow(/episode c is in group 2, outside the 2 prompts/);
    // An errored rollout is never scored: its reward does not stop the others.
    const failed = { ...withStep('failed', 0, 1, Number.NaN), stopReason: 'error' as const };
    expect(treeAdvantageSamples([withStep('a', 0, 0, 1), withStep('b', 0, 0, 0), failed])).toHaveLength(2);
  });

  it('leaves out a branch the budget stopped before its first action: it is no leaf, not one that ended at its node', () => {
    // A branch from node 1 of tree 1 that the per-prompt budget starved: its record is the prefix (one turn, the
    // prefix's reward 0) again. Scored, it was a fourth leaf "ending" at the node with return 0, and its prefix's
    // action was trained with that made-up return.
    const starved = {
      ...leaf('starved', 0, 1, 0, 'prompt-tokens'),
      tree: { tree: 1, branchedFrom: 'g0/t1/n1', sharedTurns: 1, round: 1 },
      turns: 1,
      generatedTokens: 0,
    };
    const samples = treeAdvantageSamples([leaf('a', 0, 0, 1), leaf('b', 0, 0, 0), leaf('c', 0, 1, 1), starved]);
    expect(samples.map((sample) => sample.trajectory.episodeId)).toEqual(['a', 'b', 'c']);
    const [tree0, tree1] = treeAdvantages({
      trees: [{ leaves: [{ reward: 1 }, { reward: 0 }] }, { leaves: [{ reward: 1 }] }],
    });
    expect(samples.map((sample) => sample.advantage)).toEqual([...tree0!.advantage, ...tree1!.advantage]);
    expect([isStarvedBranch(starved), isStarvedBranch({ ...starved, turns: 2 })]).toEqual([true, false]);
    // A chain is never a starved branch (its own zero-turn record is scored, as GRPO scores it).
    expect(isStarvedBranch({ ...starved, tree: { ...starved.tree, round: 0, sharedTurns: 0 }, turns: 0 })).toBe(false);
  });

  it('scores a leaf cut before its first action with its tree, but makes no sample of it', () => {
    const cut = { ...leaf('cut', 0, 1, 0, 'prompt-tokens'), segments: [{ kind: 'prompt' as const, tokenCount: 2 }] };
    const samples = treeAdvantageSamples([leaf('a', 0, 0, 1), leaf('b', 0, 0, 0), leaf('c', 0, 1, 1), cut]);
    expect(samples.map((sample) => sample.trajectory.episodeId)).toEqual(['a', 'b', 'c']);
    const [tree0, tree1] = treeAdvantages({
      trees: [{ leaves: [{ reward: 1 }, { reward: 0 }] }, { leaves: [{ reward: 1 }, { reward: 0 }] }],
    });
    expect(samples.map((sample) => sample.advantage)).toEqual([...tree0!.advantage, tree1!.advantage[0]]);
  });
});
