import type { Info, ResetResult, StepResult } from '@turngym/spec';
import type { ObservationData, WireObservation } from './protocol';

export function encodeObservation(observation: unknown): WireObservation {
  return typeof observation === 'string' ? { text: observation } : { value: observation };
}

export function decodeObservation(wire: unknown): unknown {
  if (typeof wire === 'object' && wire !== null) {
    if ('text' in wire) return (wire as { text: unknown }).text;
    if ('value' in wire) return (wire as { value: unknown }).value;
  }
  return wire;
}

/**
 * A reset as OpenEnv's `observation` data. `anchor` rides along only when the info has none, so that
 * `RemoteEnv.anchor()` answers from the last reply for envs that do not report it themselves.
 */
export function encodeReset(result: ResetResult<unknown>, anchor: () => string): ObservationData {
  const info = result.info ?? {};
  return {
    observation: encodeObservation(result.observation),
    reward: null,
    done: false,
    metadata: info,
    terminated: false,
    truncated: false,
    ...(typeof info.anchor === 'string' ? {} : { anchor: anchor() }),
  };
}

export function encodeStep(result: StepResult<unknown>, anchor: () => string): ObservationData {
  const info = result.info ?? {};
  return {
    observation: encodeObservation(result.observation),
    reward: result.reward,
    done: result.terminated || result.truncated,
    metadata: info,
    terminated: result.terminated,
    truncated: result.truncated,
    ...(typeof info.anchor === 'string' ? {} : { anchor: anchor() }),
  };
}

function infoOf(data: ObservationData): Info {
  return (typeof data.metadata === 'object' && data.metadata !== null ? data.metadata : {}) as Info;
}

export function decodeReset(data: ObservationData): ResetResult<unknown> {
  return { observation: decodeObservation(data.observation), info: infoOf(data) };
}

export function decodeStep(data: ObservationData): StepResult<unknown> {
  // A server that only speaks OpenEnv sends `done`: read it as terminated.
  const terminated = typeof data.terminated === 'boolean' ? data.terminated : data.done === true;
  return {
    observation: decodeObservation(data.observation),
    // JSON has no NaN: a null reward stays visibly wrong instead of becoming 0.
    reward: typeof data.reward === 'number' ? data.reward : Number.NaN,
    terminated,
    truncated: data.truncated === true,
    info: infoOf(data),
  };
}
