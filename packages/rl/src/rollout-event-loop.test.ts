import { collectChains } from './chain-rollouts';
import { DigitEnv } from './__fixtures__/digit-env';
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

  afterEach(() => jest.restoreAllMocks());

  it.each(['turns', 'continuous'] as const)(
    '%s: a handler queued before the rollouts runs while they run, and the rollouts are the same',
    async (schedule) => {
      const reference = await collect(schedule);
      // Every look at the clock finds 100 ms of work done since the last: each pause point lets the loop run.
      let clock = 0;
      jest.spyOn(performance, 'now').mockImplementation(() => (clock += 100));
      let finished = false;
      let ranWhileRolling = 0;
      const handler = (): void => {
        if (finished) return;
        ranWhileRolling += 1;
        setImmediate(handler);
      };
      setImmediate(handler);
      const trajectories = await collect(schedule);
      finished = true;
      // More than once: the loop ran again and again inside the rollouts, not once at their start.
      expect(ranWhileRolling).toBeGreaterThan(1);
      expect(trajectories.map(withoutWallClock)).toEqual(reference.map(withoutWallClock));
    },
  );
});
