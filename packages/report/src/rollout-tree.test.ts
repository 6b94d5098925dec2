import { fakeChainGroup, fakeTrajectory, fakeTreeGroup } from './__fixtures__/fake-runs';
import type { Trajectory } from '@turngym/rl';
import { toRolloutRecord, type RolloutRecord } from './rollout-records';
import { buildPromptGroups, type PromptGroupView } from './rollout-tree';

const records = (trajectories: readonly Trajectory[]): RolloutRecord[] => trajectories.map(toRolloutRecord);

/** A node's id → its parent's id, children's ids, through-count, depth and x, for readable asserts. */
function shape(
  group: PromptGroupView,
): Record<string, { parent: string | null; through: number; depth: number; x: number }> {
  return Object.fromEntries(
    group.nodes.map((node) => [
      node.id,
      {
        parent: node.parent < 0 ? null : group.nodes[node.parent]!.id,
        through: node.through,
        depth: node.depth,
        x: node.x,
      },
    ]),
  );
}

describe('buildPromptGroups: trees from tree rollouts (M = 2, N = 2, L = 1)', () => {
  const rewards = (tree: number, leaf: number): number => tree * 10 + leaf;
  const [group] = buildPromptGroups(records(fakeTreeGroup('it3/', 0, rewards)));

  it('is the union of the leaves’ node paths, rooted at the round-0 branchedFrom', () => {
    expect(group!.kind).toBe('tree');
    expect(group!.nodes).toHaveLength(16); // 2 roots + 2 × 7 turns
    expect(group!.warnings).toEqual([]);
    const tree0 = Object.fromEntries(Object.entries(shape(group!)).filter(([id]) => id.startsWith('g0/t0/')));
    expect(tree0).toEqual({
      'g0/t0/n0': { parent: null, through: 3, depth: 0, x: 1.25 },
      'g0/t0/n1': { parent: 'g0/t0/n0', through: 2, depth: 1, x: 0.5 },
      'g0/t0/n2': { parent: 'g0/t0/n1', through: 1, depth: 2, x: 0 },
      'g0/t0/n3': { parent: 'g0/t0/n2', through: 1, depth: 3, x: 0 },
      'g0/t0/n4': { parent: 'g0/t0/n1', through: 1, depth: 2, x: 1 },
      'g0/t0/n5': { parent: 'g0/t0/n4', through: 1, depth: 3, x: 1 },
      'g0/t0/n6': { parent: 'g0/t0/n0', through: 1, depth: 1, x: 2 },
      'g0/t0/n7': { parent: 'g0/t0/n6', through: 1, depth: 2, x: 2 },
    });
    // The second tree sits to the right, one empty slot after the first: leaves at 4, 5, 6.
    expect(shape(group!)['g0/t1/n0']!.x).toBe(5.25);
    expect(group!.width).toBe(7);
    expect(group!.depth).toBe(3);
  });

  it('shares a shared prefix: the branch’s first turn is the chain’s node, stored once', () => {
    const n1 = group!.nodes.find((node) => node.id === 'g0/t0/n1')!;
    expect(n1.children.map((child) => group!.nodes[child]!.id)).toEqual(['g0/t0/n2', 'g0/t0/n4']);
    expect(group!.nodes.filter((node) => node.id === 'g0/t0/n1')).toHaveLength(1);
  });

  it('ends each rollout at its own leaf, whose reward colours it', () => {
    const leaves = group!.nodes.filter((node) => node.children.length === 0);
    expect(leaves.map((leaf) => leaf.id)).toEqual([
      'g0/t0/n3',
      'g0/t0/n5',
      'g0/t0/n7',
      'g0/t1/n3',
      'g0/t1/n5',
      'g0/t1/n7',
    ]);
    expect(leaves.map((leaf) => leaf.endOf.map((index) => group!.rollouts[index]!.reward))).toEqual([
      [0],
      [1],
      [2],
      [10],
      [11],
      [12],
    ]);
    const branch = group!.rollouts.find((rollout) => rollout.id === 'it3/g0/t0/r1/b0')!;
    expect(branch.path.map((index) => group!.nodes[index]!.id)).toEqual([
      'g0/t0/n0',
      'g0/t0/n1',
      'g0/t0/n4',
      'g0/t0/n5',
    ]);
  });

  it('keeps the turn text on the node it leads to', () => {
    const n6 = group!.nodes.find((node) => node.id === 'g0/t1/n6')!;
    expect(n6.turn).toEqual({
      action: 't1 other opening',
      observation: 'observation after t1 other opening',
      reward: 0,
    });
    expect(group!.nodes.find((node) => node.id === 'g0/t1/n0')!.turn).toBeNull();
  });

  it('splits an iteration by prompt group, in group order', () => {
    const groups = buildPromptGroups(
      records([...fakeTreeGroup('it0/', 1, rewards), ...fakeTreeGroup('it0/', 0, rewards)]),
    );
    expect(groups.map((view) => [view.group, view.seed, view.rollouts.length])).toEqual([
      [0, 100, 6],
      [1, 101, 6],
    ]);
  });
});

describe('buildPromptGroups: inconsistent trees are drawn with warnings', () => {
  it('reports a branchedFrom that is not where the shared turns end', () => {
    const trajectories = fakeTreeGroup('it0/', 0, () => 0).map((trajectory) =>
      trajectory.episodeId === 'it0/g0/t0/r1/b0'
        ? { ...trajectory, tree: { ...trajectory.tree!, branchedFrom: 'g0/t0/n2' } }
        : trajectory,
    );
    const [group] = buildPromptGroups(records(trajectories));
    expect(group!.warnings).toEqual([
      'it0/g0/t0/r1/b0: branchedFrom is g0/t0/n2 but its 1 shared turns end at g0/t0/n1',
    ]);
  });

  it('reports a node reached from two parents and keeps the first', () => {
    const trajectories = [
      fakeTrajectory({
        id: 'it0/g0/t0/r0/b0',
        group: 0,
        tree: { tree: 0, branchedFrom: 'n0', sharedTurns: 0, round: 0 },
        turns: [
          { node: 'n1', action: 'a' },
          { node: 'n2', action: 'b' },
        ],
        reward: 1,
      }),
      fakeTrajectory({
        id: 'it0/g0/t0/r1/b0',
        group: 0,
        tree: { tree: 0, branchedFrom: 'n0', sharedTurns: 0, round: 1 },
        turns: [
          { node: 'n3', action: 'c' },
          { node: 'n2', action: 'b' },
        ],
        reward: 0,
      }),
    ];
    const [group] = buildPromptGroups(records(trajectories));
    expect(group!.warnings).toEqual(['it0/g0/t0/r1/b0: node n2 follows n3 here but n1 in an earlier rollout']);
    expect(shape(group!)['n2']!.parent).toBe('n1');
  });
});

describe('buildPromptGroups: chains', () => {
  it("keeps each turn's role and whether it reached the env (rollouts with several roles)", () => {
    const [first] = fakeChainGroup('it2/', 0, 1, () => 1);
    const steps = first!.steps.map((step, index) =>
      index === 0 ? { ...step, role: 'planner', envStep: false } : { ...step, role: 'actor', envStep: true },
    );
    const [group] = buildPromptGroups(records([{ ...first!, steps }]));
    expect(group!.nodes.filter((node) => node.turn).map((node) => [node.turn!.role, node.turn!.envStep])).toEqual([
      ['planner', false],
      ['actor', true],
    ]);
    const [plain] = buildPromptGroups(records([first!]));
    expect(plain!.nodes.every((node) => node.turn === null || !('role' in node.turn))).toBe(true);
  });

  it('keeps chain rollouts as independent lists of turns', () => {
    const [group] = buildPromptGroups(records(fakeChainGroup('it2/', 0, 4, (index) => index)));
    expect(group!.kind).toBe('chain');
    expect(group!.rollouts.map((rollout) => [rollout.id, rollout.reward, rollout.path.length])).toEqual([
      ['it2/g0/r0', 0, 2],
      ['it2/g0/r1', 1, 2],
      ['it2/g0/r2', 2, 2],
      ['it2/g0/r3', 3, 2],
    ]);
    const last = group!.rollouts[3]!;
    expect(last.path.map((index) => group!.nodes[index]!.turn!.action)).toEqual(['chain 3 look', 'chain 3 answer']);
    expect(group!.warnings).toEqual([]);
  });

  it('lists a group that mixes tree and chain rollouts as chains, with a warning', () => {
    const mixed = [...fakeTreeGroup('it0/', 0, () => 0).slice(0, 1), ...fakeChainGroup('it0/', 0, 1, () => 0)];
    const [group] = buildPromptGroups(records(mixed));
    expect(group!.kind).toBe('chain');
    expect(group!.warnings).toEqual(['1 of 2 rollouts have a tree position; all are listed as chains']);
  });
});
