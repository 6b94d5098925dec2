import { collectChains } from './chain-rollouts';
import { DigitEnv } from './__fixtures__/digit-env';
import { countEventLoopTurns } from './__fixtures__/event-loop-turns';
import { useDigitPolicy } from './__fixtures__/digit-policy';
import { withoutWallClock } from './__fixtures__/trajectory-fixture';

// A trainer's SIGINT/SIGTERM handler is a macrotask: it runs only when the event loop does. Rollouts whose envs
// answer at once (resolved promises) ran start to end in microtasks, so Ctrl-C on the cpu backend waited for the
// whole iteration. Here a setImmediate callback stands in for the signal handler.
describe('rollouts let the event loop run between decoder passes', () => {
  const digitPolicy = useDigitPolicy();

  const collect = (schedule: 'turns' | 'continuous') =>
    collectChains({
      policy: digitPolicy(),
      makeEnv: async () => new DigitEnv({ maxTurns: 4 }),
      envId: 'test/digit-v1',
      seeds: [3, 4],
      groupSize: 3,
      options: { maxActionTokens: 8, seed: 11, schedule },
    });

  it.each(['turns', 'continuous'] as const)(
    '%s: a handler queued before the rollouts runs while they run, and the rollouts are the same',
    async (schedule) => {
      const reference = await collect(schedule);
      const { result: trajectories, turns } = await countEventLoopTurns(() => collect(schedule));
      expect(turns).toBeGreaterThan(1);
      expect(trajectories.map(withoutWallClock)).toEqual(reference.map(withoutWallClock));
    },
  );
});
