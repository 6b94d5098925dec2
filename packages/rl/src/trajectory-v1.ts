/**
 * Reading `turngym.trajectory/v1` records (runs written before the trajectory extended the episode record):
 * each is mapped field by field to its v2 equivalent, so old run directories still load in the report and
 * in `readTrajectories`. What v1 did not keep is left empty: no instructions or first observation, no start
 * time (the epoch), no parent episode, and its `toolCalls` (a branch's own) becomes `cost.toolCalls`.
 */
export const TRAJECTORY_V1_SCHEMA_ID = 'turngym.trajectory/v1';

const UNKNOWN_START = new Date(0).toISOString();

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A v1 record as v2; any other value is returned as it is (validation then says what is wrong with it). */
export function upgradeTrajectoryV1(input: unknown): unknown {
  if (!isRecord(input) || input.schema !== TRAJECTORY_V1_SCHEMA_ID) return input;
  const { id, turns, reward, success, toolCalls, error, stopReason, ...rest } = input;
  const stop = typeof stopReason === 'string' ? stopReason : 'truncated';
  const oldTurns: unknown[] = Array.isArray(turns) ? turns : [];
  const steps = oldTurns.map((turn, index) => {
    if (!isRecord(turn)) return turn;
    const { fingerprint, anchor, ...step } = turn;
    const last = index === oldTurns.length - 1;
    return {
      ...step,
      terminated: last && stop === 'terminated',
      truncated: last && stop === 'truncated',
      info: {
        ...(fingerprint !== undefined ? { fingerprint } : {}),
        ...(anchor !== undefined ? { anchor } : {}),
      },
    };
  });
  return {
    ...rest,
    schema: 'turngym.trajectory/v2',
    episodeId: id,
    envVersion: null,
    resetOptions: null,
    agent: null,
    startedAt: UNKNOWN_START,
    instructions: null,
    initialObservation: '',
    // Anything but an array of turns is passed on as it is, for validation to name.
    ...(Array.isArray(turns) ? { steps, turns: steps.length } : turns === undefined ? {} : { steps: turns }),
    totalReward: reward,
    success: success === true,
    terminated: stop === 'terminated',
    truncated: stop === 'truncated',
    complete: stop === 'terminated' || stop === 'truncated',
    cost: { toolCalls, llmTokens: 0, wallMs: 0 },
    forkOf: null,
    ...(typeof error === 'string' ? { error: { code: 'UNKNOWN', message: error, retryable: false } } : {}),
    stopReason,
  };
}
