import { join } from 'node:path';
import type { Trajectory } from '@turngym/rl';
import { digitRegistry, readMetricsRows, smokeSetup } from '../../../packages/rl/src/__fixtures__/trainer-smoke';
import { gigpoAlgorithm, stepStates, trainGigpo, type GigpoArgs } from './gigpo';
import { combineGigpo, gigpoGroupAdvantages } from './gigpo-advantages';

function rollout(group: number, observations: string[], rewards: number[]): Trajectory {
  return {
    episodeId: `g${group}/${observations.join('')}`,
    group,
    stopReason: 'terminated',
    initialObservation: 'task',
    totalReward: rewards.reduce((a, b) => a + b, 0),
    steps: rewards.map((reward, t) => ({ reward, observation: observations[t], info: { anchor: `loc${t}` } })),
    segments: [{ kind: 'prompt', tokenCount: 2 }, ...rewards.map(() => ({ kind: 'action', tokenCount: 1 }))],
  } as unknown as Trajectory;
}

// The loop, resume, budget and metrics are the runner's (tested in @turngym/rl); this is GiGPO's own.
describe('GiGPO', () => {
  const smoke = smokeSetup('turngym-gigpo-');
  const registry = digitRegistry();

  it('keys a step by the observation it acted on (the task for the first step), or by the env’s anchor', () => {
    const t = rollout(0, ['x', 'y', ''], [0, 0, 1]);
    expect(stepStates(t, 'observation')).toEqual(['obs:task', 'obs:x', 'obs:y']);
    expect(stepStates(t, 'anchor')).toEqual(['anchor:^', 'anchor:loc0', 'anchor:loc1']);
  });

  it('keys object anchors by their content whatever their key order, and falls back to the observation without one', () => {
    // Step t acted in the state step t − 1 reached: its info.anchor, here anchors[t − 1].
    const withAnchors = (anchors: unknown[]): Trajectory => {
      const base = rollout(
        0,
        [...anchors, null].map((_, t) => `o${t}`),
        [...anchors, null].map(() => 0),
      );
      return { ...base, steps: base.steps.map((step, t) => ({ ...step, info: { anchor: anchors[t] } })) };
    };
    const [start, ...states] = stepStates(
      withAnchors([{ room: 'hall', floor: 1 }, { floor: 1, room: 'hall' }, { floor: 2, room: 'hall' }, Number.NaN, 3]),
      'anchor',
    );
    expect(start).toBe('anchor:^');
    // The same state written with its keys in another order is the same state; another floor is not.
    expect(states[0]).toBe(states[1]);
    expect(states[2]).not.toBe(states[0]);
    // NaN is no anchor (JSON would make it null): the step is keyed by its observation, as without the hook.
    expect(states[3]).toBe('obs:o3');
    expect(states[4]).toBe('anchor:3');
  });

  it('trains each turn on A_episode + ω·A_step within each task group, and counts singleton groups', () => {
    const trajectories = [rollout(0, ['x', ''], [0, 1]), rollout(0, ['y', ''], [0, 0]), rollout(1, ['z'], [1])];
    const algorithm = gigpoAlgorithm();
    const context = {
      args: { promptsPerIteration: 2, gamma: 0.95, omega: 1, stepGroupKey: 'observation' } as GigpoArgs,
      iteration: 0,
      trainers: {},
      stores: {},
    };
    const samples = algorithm.advantages({ trajectories }, context);
    const levels = gigpoGroupAdvantages([
      { episodeReturn: 1, anchors: ['obs:task', 'obs:x'], rewards: [0, 1] },
      { episodeReturn: 0, anchors: ['obs:task', 'obs:y'], rewards: [0, 0] },
    ]);
    // Group 1 has one rollout: A_episode = R/(1 + 1e-6) and its only step is a singleton.
    expect(samples.map((s) => s.turnAdvantages)).toEqual([
      combineGigpo(levels.episode[0]!, levels.step[0]!, 1),
      combineGigpo(levels.episode[1]!, levels.step[1]!, 1),
      [1 / (1 + 1e-6)],
    ]);
    // Groups: task (2 steps), x, y in group 0; task in group 1 — three of four are singletons.
    expect(algorithm.metrics!({ trajectories }, context)).toMatchObject({
      'gigpo/step_groups': 4,
      'gigpo/singleton_group_share': 0.75,
      'gigpo/singleton_step_share': 3 / 5,
    });
  });

  it('trains end to end and logs the singleton share every iteration; bad arguments name the field', async () => {
    const result = await trainGigpo({ ...smoke.args('run'), groupSize: 3 }, { registry });
    result.model.dispose();
    const rows = await readMetricsRows(join(smoke.dir, 'run'));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row['gigpo/singleton_group_share']).toBeGreaterThanOrEqual(0);
      expect(row['gigpo/singleton_group_share']).toBeLessThanOrEqual(1);
      expect(row['gigpo/step_groups']).toBeGreaterThan(0);
    }
    expect(rows.some((row) => Number.isFinite(row['losses/policy_loss']))).toBe(true);
    await expect(trainGigpo({ ...smoke.args('bad'), stepGroupKey: 'history' as never })).rejects.toThrow(
      /stepGroupKey/,
    );
  });
});
