import { isDeepStrictEqual } from 'node:util';
import type { Action, Agent, Env, Info, StepResult } from '@turngym/spec';

/** Makes a fresh env of the one under check. */
export type MakeEnv = () => Promise<Env<unknown, Action>>;

/** Builds the agent whose actions form the scripted sequence, for the env it plays in. */
export type MakeAgent = (env: Env<unknown, Action>, agentSeed: number) => Agent<unknown, Action>;

/** One run as the checker compares it: the reset and every step after it. */
export interface Trace {
  observation: unknown;
  info: Info;
  steps: Array<Pick<StepResult<unknown>, 'observation' | 'reward' | 'terminated' | 'truncated' | 'info'>>;
}

/** Wall time is the one part of an info that may differ run to run. */
function comparable(info: Info): Info {
  if (!info.cost) return info;
  return { ...info, cost: { ...info.cost, wallMs: 0 } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The first field in which two infos differ, as `info.key (a vs b)`, into nested objects (`info.cost.toolCalls`):
 * "info differs" alone leaves an env author diffing two dumps by hand.
 */
function infoDifference(a: Info, b: Info): string {
  const walk = (x: Record<string, unknown>, y: Record<string, unknown>, path: string): string => {
    for (const key of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      const [left, right] = [x[key], y[key]];
      if (isDeepStrictEqual(left, right)) continue;
      if (isPlainObject(left) && isPlainObject(right)) return walk(left, right, `${path}.${key}`);
      return `${path}.${key} differs (${preview(left)} vs ${preview(right)})`;
    }
    return `${path} differs`; // the same keys and values, another prototype or symbol keys
  };
  return walk(comparable(a), comparable(b), 'info');
}

/** Where two runs first differ, in words; undefined when they are the same. */
export function firstDifference(a: Trace, b: Trace): string | undefined {
  if (!isDeepStrictEqual(a.observation, b.observation)) return 'the reset observations differ';
  if (!isDeepStrictEqual(comparable(a.info), comparable(b.info))) return `reset: ${infoDifference(a.info, b.info)}`;
  const length = Math.max(a.steps.length, b.steps.length);
  for (let i = 0; i < length; i++) {
    const x = a.steps[i];
    const y = b.steps[i];
    if (!x || !y) return `one run ended after ${Math.min(a.steps.length, b.steps.length)} steps, the other did not`;
    for (const key of ['observation', 'reward', 'terminated', 'truncated'] as const) {
      if (!isDeepStrictEqual(x[key], y[key]))
        return `step ${i + 1}: ${key} differs (${preview(x[key])} vs ${preview(y[key])})`;
    }
    if (!isDeepStrictEqual(comparable(x.info), comparable(y.info)))
      return `step ${i + 1}: ${infoDifference(x.info, y.info)}`;
  }
  return undefined;
}

/** A value as JSON, cut to 80 characters for a message. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value); // a BigInt or a circular value, which the JSON check reports on its own
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Collects a scripted action sequence by letting an agent play one episode from `seed`. */
export async function scriptActions(
  make: MakeEnv,
  agentFor: MakeAgent,
  seed: number,
  maxSteps: number,
): Promise<Action[]> {
  const env = await make();
  try {
    // The agent is built for the env it plays in: privileged experts read the unwrapped env's task.
    const agent = agentFor(env, seed);
    const reset = await env.reset({ seed });
    await agent.start({ seed, spec: env.spec, observation: reset.observation, info: reset.info });
    const actions: Action[] = [];
    let observation = reset.observation;
    let info = reset.info;
    while (actions.length < maxSteps) {
      const action = await agent.act(observation, info);
      actions.push(action);
      const result = await env.step(action);
      if (result.terminated || result.truncated) break;
      observation = result.observation;
      info = result.info;
    }
    return actions;
  } finally {
    await env.close();
  }
}

/** Resets `env` with `seed` and replays `actions` until the episode ends. */
export async function play(env: Env<unknown, Action>, seed: number, actions: readonly Action[]): Promise<Trace> {
  const reset = await env.reset({ seed });
  return { observation: reset.observation, info: reset.info, steps: await continueWith(env, actions) };
}

/** Steps `env` from where it is with `actions` until the episode ends. */
export async function continueWith(env: Env<unknown, Action>, actions: readonly Action[]): Promise<Trace['steps']> {
  const steps: Trace['steps'] = [];
  for (const action of actions) {
    const result = await env.step(action);
    steps.push(result);
    if (result.terminated || result.truncated) break;
  }
  return steps;
}
