import { GenerationBatch } from '@turngym/lm';
import type { Action, Env } from '@turngym/spec';
import { collectChains } from './chain-rollouts';
import type { Trajectory } from './trajectory';
import { withoutWallClock } from './__fixtures__/trajectory-fixture';
import { collectTrees } from './tree-rollouts';
import { DigitEnv, type DigitEnvOptions } from './__fixtures__/digit-env';
import { useDigitPolicy } from './__fixtures__/digit-policy';

/** `env` whose steps answer after `delayMs` (and whose forks do too): an env slower for some rollouts than others. */
function slowed(env: Env<string, Action>, delayMs: number): Env<string, Action> {
  return new Proxy(env, {
    get(target, property) {
      if (property === 'step')
        return async (action: Action) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          return target.step(action);
        };
      if (property === 'fork') return async () => slowed(await target.fork(), delayMs);
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('rollout schedules: continuous batching', () => {
  const digitPolicy = useDigitPolicy();
  afterEach(() => jest.restoreAllMocks());

  const chains = (options: Record<string, unknown>, env: Partial<DigitEnvOptions> = {}, delays = false) => {
    let made = 0;
    return collectChains({
      policy: digitPolicy(),
      makeEnv: async () => {
        const digits = new DigitEnv({ maxTurns: 6, ...env });
        // Rollouts whose envs answer at different times: 0–12 ms, by the order they were made.
        return delays ? slowed(digits, (made++ * 7) % 13) : digits;
      },
      envId: 'test/digit-v1',
      seeds: [3, 4, 5],
      groupSize: 3,
      options: { maxActionTokens: 8, seed: 11, ...options },
    });
  };

  /** Trajectories as the trainer reads them: the records without wall clocks, the logprobs to float tolerance. */
  function expectSameRollouts(actual: readonly Trajectory[], expected: readonly Trajectory[]): void {
    const strip = (list: readonly Trajectory[]) => withoutWallClock(list).map((t) => ({ ...t, logprobs: [] }));
    expect(strip(actual)).toEqual(strip(expected));
    actual.forEach((trajectory, i) =>
      trajectory.logprobs.forEach((logprob, t) =>
        expect(Math.abs(logprob - expected[i]!.logprobs[t]!)).toBeLessThan(1e-4),
      ),
    );
  }

  it('samples the rollouts the turn schedule samples, in fewer decoding steps', async () => {
    const steps = jest.spyOn(GenerationBatch.prototype, 'step');
    const turns = await chains({ schedule: 'turns', maxBatch: 4 });
    expect(steps).not.toHaveBeenCalled();
    const continuous = await chains({ schedule: 'continuous', maxBatch: 4 });
    expectSameRollouts(continuous, turns);
    expect(turns.some((trajectory) => trajectory.steps.length > 1)).toBe(true);
    // By turns, each round of at most maxBatch rows lasts as long as its longest action (a pass per token);
    // continuous batching decodes every row in flight once a step — one pass a step on webgpu, where joining rows
    // share it (on a CPU they get a pass of their own, which costs only their tokens).
    const rounds = Math.max(...turns.map((trajectory) => trajectory.steps.length));
    let turnPasses = 0;
    for (let round = 0; round < rounds; round++) {
      const acting = turns.filter((trajectory) => trajectory.steps.length > round);
      for (let from = 0; from < acting.length; from += 4) {
        turnPasses += Math.max(...acting.slice(from, from + 4).map((t) => t.steps[round]!.actionTokens));
      }
    }
    expect(steps.mock.calls.length).toBeLessThan(turnPasses);
  });

  it('does not depend on when each env answers: same seed, same rollouts', async () => {
    const plain = await chains({ schedule: 'continuous', maxBatch: 5 });
    const delayed = await chains({ schedule: 'continuous', maxBatch: 5 }, {}, true);
    expectSameRollouts(delayed, plain);
  });

  it('ends rollouts at an env error, the context limit and the token budget as the turn schedule does', async () => {
    for (const [options, env, reason] of [
      [{}, { failAtTurn: 1 }, 'error'],
      [{ maxRolloutTokens: 1000 }, { maxTurns: 20, feedback: 'x'.repeat(100) }, 'context'],
      [{ maxRolloutTokens: 12 }, { maxTurns: 20 }, 'rollout-tokens'],
    ] as const) {
      const turns = await chains({ ...options, schedule: 'turns', maxBatch: 4 }, env);
      const continuous = await chains({ ...options, schedule: 'continuous', maxBatch: 4 }, env);
      expect(continuous.some((trajectory) => trajectory.stopReason === reason)).toBe(true);
      expectSameRollouts(continuous, turns);
    }
  });

  it('never overspends a per-prompt budget, sharing it among the rollouts still acting', async () => {
    const byPrompt = await chains({ schedule: 'continuous', promptTokenBudget: 40 }, { maxTurns: 20 });
    for (const group of [0, 1, 2]) {
      const spent = byPrompt.filter((t) => t.group === group).reduce((sum, t) => sum + t.generatedTokens, 0);
      expect(spent).toBeLessThanOrEqual(40);
      expect(spent).toBeGreaterThan(20);
    }
    expect(byPrompt.some((trajectory) => trajectory.stopReason === 'prompt-tokens')).toBe(true);
  });

  it('runs tree rollouts deterministically; nodes are numbered in the order turns end', async () => {
    const trees = (schedule: 'turns' | 'continuous') =>
      collectTrees({
        policy: digitPolicy(),
        makeEnv: async () => new DigitEnv({ maxTurns: 6 }),
        envId: 'test/digit-v1',
        seeds: [3, 4],
        shape: { trees: 2, branches: 2, rounds: 2 },
        options: { maxActionTokens: 8, seed: 5, schedule },
      });
    const [turns, a, b] = [await trees('turns'), await trees('continuous'), await trees('continuous')];
    expectSameRollouts(b.trajectories, a.trajectories);
    expect(a.trajectories.some((leaf) => leaf.tree!.round === 2)).toBe(true);
    // Round 0 is one chain per tree, so its nodes and tokens are the turn schedule's.
    const roots = (list: readonly Trajectory[]) => list.filter((leaf) => leaf.tree!.round === 0);
    expectSameRollouts(roots(a.trajectories), roots(turns.trajectories));
    for (const leaf of a.trajectories.filter((t) => t.tree!.round > 0)) {
      // A branch starts at a node its own tree reached, with that episode's turns up to it.
      const forked = a.trajectories.find((other) => other.episodeId === leaf.forkOf!.episodeId)!;
      expect(forked.tree!.tree).toBe(leaf.tree!.tree);
      expect(leaf.steps.slice(0, leaf.forkOf!.turn)).toEqual(forked.steps.slice(0, leaf.forkOf!.turn));
    }
  });
});
