import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRAJECTORY_SCHEMA_ID, type Trajectory, type TreePosition } from '@turngym/rl';

/**
 * Run directories as the trainers write them (run.json, metrics.jsonl, trajectories.jsonl), made by hand
 * for the report's tests. Numbers are closed-form, so a test can compute what the page must show.
 */

/** Text a model could write: it must reach the page as text, never as markup or script. */
export const HOSTILE_ACTION = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>';

export interface FakeTurn {
  readonly node: string;
  readonly action: string;
  readonly observation?: string;
  readonly reward?: number;
}

/** A schema-valid trajectory: one prompt token, then 2 action tokens and 1 observation token a turn. */
export function fakeTrajectory(fields: {
  id: string;
  group: number;
  seed?: number;
  tree?: TreePosition;
  turns: readonly FakeTurn[];
  reward: number;
  success?: boolean;
}): Trajectory {
  const segments: Trajectory['segments'][number][] = [{ kind: 'prompt', tokenCount: 1 }];
  for (let turn = 0; turn < fields.turns.length; turn++) {
    segments.push({ kind: 'action', tokenCount: 2 }, { kind: 'observation', tokenCount: 1 });
  }
  const length = 1 + 3 * fields.turns.length;
  const steps = fields.turns.map((turn) => ({
    action: turn.action,
    observation: turn.observation ?? `observation after ${turn.action}`,
    reward: turn.reward ?? 0,
    terminated: false,
    truncated: false,
    info: {},
    node: turn.node,
    actionTokens: 2,
  }));
  return {
    schema: TRAJECTORY_SCHEMA_ID,
    episodeId: fields.id,
    envId: 'turngym/example-v1',
    envVersion: null,
    seed: fields.seed ?? 100 + fields.group,
    resetOptions: null,
    agent: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    instructions: null,
    initialObservation: 'the task',
    steps,
    turns: steps.length,
    totalReward: fields.reward,
    success: fields.success ?? fields.reward > 0,
    terminated: true,
    truncated: false,
    complete: true,
    cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
    forkOf: null,
    group: fields.group,
    ...(fields.tree ? { tree: fields.tree } : {}),
    tokens: Array.from({ length }, (_, index) => index % 50),
    segments,
    logprobs: Array.from({ length }, () => 0),
    stopReason: 'terminated',
    generatedTokens: 2 * fields.turns.length,
    computedTokens: length,
  };
}

/**
 * One prompt's Tree-GRPO rollouts with M = 2 trees, N = 2 branches, L = 1 round. Per tree t:
 * the round-0 chain n0 → n1 → n2 → n3; branch b0 from n1 (1 shared turn) → n4 → n5; branch b1 from the
 * root n0 → n6 → n7. So each tree has 8 nodes (the root and 7 turns), 3 leaves (n3, n5, n7) and 7 edges;
 * n1 is shared by 2 rollouts and the root by 3.
 */
export function fakeTreeGroup(
  prefix: string,
  group: number,
  rewardOf: (tree: number, leaf: number) => number,
): Trajectory[] {
  const trajectories: Trajectory[] = [];
  for (let tree = 0; tree < 2; tree++) {
    const node = (n: number): string => `g${group}/t${tree}/n${n}`;
    const turn = (n: number, action: string): FakeTurn => ({ node: node(n), action, reward: 0 });
    const head = `${prefix}g${group}/t${tree}`;
    trajectories.push(
      fakeTrajectory({
        id: `${head}/r0/b0`,
        group,
        tree: { tree, branchedFrom: node(0), sharedTurns: 0, round: 0 },
        turns: [turn(1, `t${tree} first move`), turn(2, `t${tree} chain move 2`), turn(3, `t${tree} chain answer`)],
        reward: rewardOf(tree, 0),
      }),
      fakeTrajectory({
        id: `${head}/r1/b0`,
        group,
        tree: { tree, branchedFrom: node(1), sharedTurns: 1, round: 1 },
        turns: [
          turn(1, `t${tree} first move`),
          turn(4, `t${tree} branch A move`),
          turn(5, tree === 0 ? HOSTILE_ACTION : `t${tree} branch A answer`),
        ],
        reward: rewardOf(tree, 1),
      }),
      fakeTrajectory({
        id: `${head}/r1/b1`,
        group,
        tree: { tree, branchedFrom: node(0), sharedTurns: 0, round: 1 },
        turns: [turn(6, `t${tree} other opening`), turn(7, `t${tree} branch B answer`)],
        reward: rewardOf(tree, 2),
      }),
    );
  }
  return trajectories;
}

/** Chain rollouts of one prompt (GRPO): `size` independent episodes of 2 turns. */
export function fakeChainGroup(
  prefix: string,
  group: number,
  size: number,
  rewardOf: (index: number) => number,
): Trajectory[] {
  return Array.from({ length: size }, (_, index) => {
    const id = `${prefix}g${group}/r${index}`;
    return fakeTrajectory({
      id,
      group,
      turns: [
        { node: `${id}/0`, action: `chain ${index} look` },
        { node: `${id}/1`, action: `chain ${index} answer` },
      ],
      reward: rewardOf(index),
    });
  });
}

export interface FakeRunSpec {
  readonly dir: string;
  readonly algorithm: string;
  readonly seed: number;
  readonly label?: string;
  readonly iterations: number;
  /** Prompts per iteration. */
  readonly groups: number;
  /** Tree rollouts (M = 2, N = 2, L = 1) or chains of 4. */
  readonly tree: boolean;
  /** Extra metrics on every line, by name: value at iteration i. */
  readonly extra?: Record<string, (iteration: number) => number>;
}

/** Success rate of seed s at iteration i: rises with i, offset by seed, so seeds differ. */
export function fakeSuccess(seed: number, iteration: number): number {
  return Math.min(1, 0.1 + 0.08 * iteration + 0.05 * seed);
}

/** Writes one fake run: 8 env steps an iteration, an evaluation every 5th iteration (4, 9, …). */
export function writeFakeRun(spec: FakeRunSpec): void {
  mkdirSync(spec.dir, { recursive: true });
  const info = {
    algorithm: spec.algorithm,
    envId: 'turngym/example-v1',
    seed: spec.seed,
    ...(spec.label ? { label: spec.label } : {}),
    args: { iterations: spec.iterations, learningRate: 1e-4 },
    startedAt: '2026-11-01T10:00:00.000Z',
  };
  writeFileSync(join(spec.dir, 'run.json'), `${JSON.stringify(info, null, 2)}\n`);
  const metrics: string[] = [];
  const trajectories: string[] = [];
  for (let iteration = 0; iteration < spec.iterations; iteration++) {
    const success = fakeSuccess(spec.seed, iteration);
    const row: Record<string, number> = {
      iteration,
      global_step: 8 * (iteration + 1),
      'charts/success_rate': success,
      'charts/episodic_return': success * 2,
      'losses/policy_loss': 0.5 / (iteration + 1),
      'budget/generated_tokens': 100 * (iteration + 1) + 7 * spec.seed,
    };
    if (iteration % 5 === 4) row['eval/success_rate'] = success;
    for (const [name, value] of Object.entries(spec.extra ?? {})) row[name] = value(iteration);
    metrics.push(JSON.stringify(row));
    const prefix = `it${iteration}/`;
    for (let group = 0; group < spec.groups; group++) {
      const batch = spec.tree
        ? fakeTreeGroup(prefix, group, (tree, leaf) => ((tree + leaf + iteration) % 3 === 0 ? 1 : 0))
        : fakeChainGroup(prefix, group, 4, (index) => ((index + iteration) % 2 === 0 ? 1 : 0));
      trajectories.push(...batch.map((trajectory) => JSON.stringify(trajectory)));
    }
  }
  writeFileSync(join(spec.dir, 'metrics.jsonl'), `${metrics.join('\n')}\n`);
  writeFileSync(join(spec.dir, 'trajectories.jsonl'), `${trajectories.join('\n')}\n`);
}

/**
 * The standard fake experiment under `root`: Tree-GRPO with seeds 0 and 1 (tree rollouts, 2 prompts an
 * iteration), GRPO with seeds 0, 1 and 2 (chains, and a metric no trainer knows: `custom/odd_metric`),
 * 10 iterations each. Returns the run directories.
 */
export function writeFakeExperiment(root: string): string[] {
  const specs: FakeRunSpec[] = [
    ...[0, 1].map((seed) => ({
      dir: join(root, `tree-grpo-s${seed}`),
      algorithm: 'tree-grpo',
      seed,
      iterations: 10,
      groups: 2,
      tree: true,
    })),
    ...[0, 1, 2].map((seed) => ({
      dir: join(root, `grpo-s${seed}`),
      algorithm: 'grpo',
      seed,
      iterations: 10,
      groups: 2,
      tree: false,
      extra: { 'custom/odd_metric': (iteration: number) => iteration * iteration + seed },
    })),
  ];
  specs.forEach(writeFakeRun);
  return specs.map((spec) => spec.dir);
}
