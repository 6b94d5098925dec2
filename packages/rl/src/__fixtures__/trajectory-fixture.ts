import { TRAJECTORY_SCHEMA_ID, type Trajectory } from '../trajectory';

/** The episode-record fields a test's trajectory does not care about. */
type Defaulted =
  | 'schema'
  | 'envVersion'
  | 'resetOptions'
  | 'agent'
  | 'startedAt'
  | 'instructions'
  | 'initialObservation'
  | 'steps'
  | 'turns'
  | 'success'
  | 'terminated'
  | 'truncated'
  | 'complete'
  | 'cost'
  | 'forkOf'
  | 'stopReason';

/** A valid trajectory from the fields a test sets; the rest are an episode that ended with no steps. */
export function fixtureTrajectory(
  fields: Omit<Trajectory, Defaulted> & Partial<Pick<Trajectory, Defaulted>>,
): Trajectory {
  const steps = fields.steps ?? [];
  const stopReason = fields.stopReason ?? 'terminated';
  return {
    schema: TRAJECTORY_SCHEMA_ID,
    envVersion: null,
    resetOptions: null,
    agent: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    instructions: null,
    initialObservation: '',
    success: false,
    terminated: stopReason === 'terminated',
    truncated: stopReason === 'truncated',
    complete: stopReason === 'terminated' || stopReason === 'truncated',
    cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
    forkOf: null,
    ...fields,
    steps,
    turns: steps.length,
    stopReason,
  };
}

/** Keys that differ between two runs of the same episode: when it started and how long the env took. */
const WALL_CLOCK_KEYS = new Set(['startedAt', 'wallMs']);

/** A copy of trajectories (or anything holding them) without wall-clock values, to compare two runs. */
export function withoutWallClock<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner: unknown) => (WALL_CLOCK_KEYS.has(key) ? undefined : inner)));
}
