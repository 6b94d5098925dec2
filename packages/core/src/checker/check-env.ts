import { isDeepStrictEqual } from 'node:util';
import type { Action, Agent, Env, Info, Space, StepResult } from '@turngym/spec';
import { RandomAgent } from '../agents/random-agent';
import { ajv } from '../schema-validation';
import { EnvClosedError, ResetNeededError, TurnGymError } from '../errors';
import { parseEnvId } from '../env-id';
import { registry as defaultRegistry, type EnvDependencies, type Registry } from '../registry';

export interface CheckOptions {
  /** Registry to make ids from (default: the process-wide one). */
  registry?: Registry;
  /** Env options for `make()`. */
  options?: Record<string, unknown>;
  dependencies?: EnvDependencies;
  /** First seed used; the checker also uses seed + 1. */
  seed?: number;
  /** Longest scripted action sequence (default 12 steps). */
  maxSteps?: number;
  /** The agent whose actions form the scripted sequence (default: the env's `scripted`, else random). */
  agent?: string;
}

export interface CheckResult {
  readonly name: string;
  readonly passed: boolean;
  readonly detail?: string;
}

export interface CheckReport {
  readonly envId: string;
  readonly passed: boolean;
  readonly results: readonly CheckResult[];
}

type Factory = () => Promise<Env<unknown, Action>>;

/** A step as the checker compares it: wall time is the one part of an info that may differ run to run. */
interface Trace {
  observation: unknown;
  info: Info;
  steps: Array<Pick<StepResult<unknown>, 'observation' | 'reward' | 'terminated' | 'truncated' | 'info'>>;
}

function comparable(info: Info): Info {
  if (!info.cost) return info;
  return { ...info, cost: { ...info.cost, wallMs: 0 } };
}

function firstDifference(a: Trace, b: Trace): string | undefined {
  if (!isDeepStrictEqual(a.observation, b.observation)) return 'the reset observations differ';
  if (!isDeepStrictEqual(comparable(a.info), comparable(b.info))) return 'the reset infos differ';
  const length = Math.max(a.steps.length, b.steps.length);
  for (let i = 0; i < length; i++) {
    const x = a.steps[i];
    const y = b.steps[i];
    if (!x || !y) return `one run ended after ${Math.min(a.steps.length, b.steps.length)} steps, the other did not`;
    for (const key of ['observation', 'reward', 'terminated', 'truncated'] as const) {
      if (!isDeepStrictEqual(x[key], y[key]))
        return `step ${i + 1}: ${key} differs (${preview(x[key])} vs ${preview(y[key])})`;
    }
    if (!isDeepStrictEqual(comparable(x.info), comparable(y.info))) return `step ${i + 1}: info differs`;
  }
  return undefined;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Collects a scripted action sequence by letting an agent play one episode from `seed`. */
async function scriptActions(
  make: Factory,
  agentFor: (env: Env<unknown, Action>, agentSeed: number) => Agent<unknown, Action>,
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

async function play(env: Env<unknown, Action>, seed: number, actions: readonly Action[]): Promise<Trace> {
  const reset = await env.reset({ seed });
  const trace: Trace = { observation: reset.observation, info: reset.info, steps: [] };
  for (const action of actions) {
    const result = await env.step(action);
    trace.steps.push(result);
    if (result.terminated || result.truncated) break;
  }
  return trace;
}

async function continueWith(env: Env<unknown, Action>, actions: readonly Action[]): Promise<Trace['steps']> {
  const steps: Trace['steps'] = [];
  for (const action of actions) {
    const result = await env.step(action);
    steps.push(result);
    if (result.terminated || result.truncated) break;
  }
  return steps;
}

function malformedActions(space: Space): Action[] {
  switch (space.type) {
    case 'discrete':
      return [-1, space.n + 7, 'no-such-option'];
    default:
      return ['', '\u0000}{ not an action ((', 'x'.repeat(20000)];
  }
}

function spaceProblems(space: Space, where: string): string[] {
  const problems: string[] = [];
  switch (space.type) {
    case 'text':
      if (space.examples && !space.examples.every((example) => typeof example === 'string'))
        problems.push(`${where}.examples must be strings`);
      break;
    case 'discrete':
      if (!Number.isInteger(space.n) || space.n < 1) problems.push(`${where}.n must be a positive integer`);
      if (space.labels.length !== space.n)
        problems.push(`${where}.labels has ${space.labels.length} labels for n = ${space.n}`);
      if (new Set(space.labels).size !== space.labels.length) problems.push(`${where}.labels are not unique`);
      break;
    case 'tools':
      if (space.tools.length === 0) problems.push(`${where}.tools is empty`);
      for (const tool of space.tools) {
        try {
          ajv.compile(tool.parameters);
        } catch (error) {
          problems.push(`${where}: tool ${tool.name} has an invalid JSON Schema (${(error as Error).message})`);
        }
      }
      if (new Set(space.tools.map((tool) => tool.name.toLowerCase())).size !== space.tools.length)
        problems.push(`${where}: tool names are not unique`);
      break;
    default:
      problems.push(`${where}.type must be text, discrete or tools`);
  }
  return problems;
}

/**
 * The env checker (Gymnasium's `check_env`, for multi-turn text envs). Every registered env must pass it.
 * Determinism is checked over a scripted action sequence: the env's `scripted` agent (or a seeded random one)
 * plays once, and its actions are replayed; wall time (`info.cost.wallMs`) is the only field allowed to differ.
 */
export async function checkEnv(
  target: string | Env<any, any> | (() => Promise<Env<any, any>>),
  options: CheckOptions = {},
): Promise<CheckReport> {
  const registry = options.registry ?? defaultRegistry;
  const seed = options.seed ?? 7;
  const maxSteps = options.maxSteps ?? 12;
  let make: Factory;
  let agentFor: (env: Env<unknown, Action>, agentSeed: number) => Agent<unknown, Action>;
  if (typeof target === 'string') {
    make = () =>
      registry.make(target, {
        ...(options.options ? { options: options.options } : {}),
        ...(options.dependencies ? { dependencies: options.dependencies } : {}),
      });
    const agents = registry.get(target).agents ?? {};
    const name = options.agent ?? (agents.scripted ? 'scripted' : undefined);
    agentFor = (env, agentSeed) =>
      name ? registry.makeAgent(target, name, { env, seed: agentSeed }) : new RandomAgent(agentSeed);
  } else if (typeof target === 'function') {
    make = target as Factory;
    agentFor = (_env, agentSeed) => new RandomAgent(agentSeed);
  } else {
    // A live instance: fresh copies come from fork() of the instance before it is ever reset.
    const instance = target as Env<unknown, Action>;
    const pristine = await instance.fork();
    make = () => pristine.fork();
    agentFor = (_env, agentSeed) => new RandomAgent(agentSeed);
  }

  const results: CheckResult[] = [];
  const record = (name: string, problem: string | undefined): void => {
    results.push(problem === undefined ? { name, passed: true } : { name, passed: false, detail: problem });
  };
  const attempt = async (name: string, body: () => Promise<string | undefined>): Promise<void> => {
    try {
      record(name, await body());
    } catch (error) {
      const message = TurnGymError.isInstance(error)
        ? `${error.code}: ${error.message}`
        : String((error as Error)?.stack ?? error);
      record(name, `threw ${message}`);
    }
  };

  let envId = typeof target === 'string' ? target : 'env';
  const probe = await make();
  try {
    envId = probe.spec.id;
    await attempt('spec', async () => {
      const spec = probe.spec;
      const problems: string[] = [];
      if (spec.specificationVersion !== 'v1')
        problems.push(`specificationVersion is ${String(spec.specificationVersion)}, expected 'v1'`);
      try {
        parseEnvId(spec.id);
      } catch (error) {
        problems.push((error as Error).message);
      }
      if (!spec.summary) problems.push('summary is empty');
      if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) problems.push('maxTurns must be a positive integer');
      const [low, high] = spec.rewardRange ?? [];
      if (!(typeof low === 'number' && typeof high === 'number' && low <= high))
        problems.push('rewardRange must be [low, high]');
      problems.push(
        ...spaceProblems(spec.actionSpace, 'actionSpace'),
        ...spaceProblems(spec.observationSpace, 'observationSpace'),
      );
      if (spec.actionSpace.type === 'tools' && (spec.tools?.length ?? 0) !== spec.actionSpace.tools.length)
        problems.push('spec.tools must list the tools of the action space');
      return problems.length > 0 ? problems.join('; ') : undefined;
    });
  } finally {
    await probe.close();
  }

  let actions: Action[] = [];
  await attempt('scripted sequence', async () => {
    actions = await scriptActions(make, agentFor, seed, maxSteps);
    return actions.length === 0 ? 'the agent produced no action' : undefined;
  });

  await attempt('reset returns the task and instructions', async () => {
    const env = await make();
    try {
      const { observation, info } = await env.reset({ seed });
      if (observation === undefined || observation === null) return 'reset() returned no observation';
      if (typeof info.instructions !== 'string' || info.instructions.length === 0)
        return 'info.instructions (the system prompt) is missing';
      if (typeof info.anchor !== 'string') return 'info.anchor is missing on reset';
      return undefined;
    } finally {
      await env.close();
    }
  });

  await attempt('seed determinism', async () => {
    const first = await make();
    const second = await make();
    try {
      const a = await play(first, seed, actions);
      const b = await play(second, seed, actions);
      const c = await play(first, seed, actions); // the same instance, reset again
      return firstDifference(a, b) ?? firstDifference(a, c);
    } finally {
      await first.close();
      await second.close();
    }
  });

  await attempt('step results are well-formed', async () => {
    const env = await make();
    try {
      const trace = await play(env, seed, actions);
      const [low, high] = env.spec.rewardRange;
      for (const [i, step] of trace.steps.entries()) {
        if (typeof step.reward !== 'number' || !Number.isFinite(step.reward))
          return `step ${i + 1}: reward is not a finite number`;
        if (step.reward < low - 1e-9 || step.reward > high + 1e-9)
          return `step ${i + 1}: reward ${step.reward} outside rewardRange [${low}, ${high}]`;
        const cost = step.info.cost;
        if (!cost || ![cost.toolCalls, cost.llmTokens, cost.wallMs].every((n) => typeof n === 'number' && n >= 0))
          return `step ${i + 1}: info.cost {toolCalls, llmTokens, wallMs} is missing`;
        if (typeof step.info.fingerprint !== 'string' || typeof step.info.anchor !== 'string')
          return `step ${i + 1}: info.fingerprint / info.anchor missing`;
        const last = step.terminated || step.truncated;
        if (last && typeof step.info.success !== 'boolean')
          return `step ${i + 1}: info.success must be set on the last step`;
      }
      if (env.spec.actionSpace.type === 'discrete' && !Array.isArray(trace.info.actionMask))
        return 'discrete space: info.actionMask missing on reset';
      return undefined;
    } finally {
      await env.close();
    }
  });

  await attempt('fork equivalence', async () => {
    const env = await make();
    const reference = await make();
    try {
      const cut = Math.max(0, Math.min(actions.length - 1, Math.floor(actions.length / 2)));
      const expected = await play(reference, seed, actions);
      await env.reset({ seed });
      const prefix = await continueWith(env, actions.slice(0, cut));
      if (prefix.some((step) => step.terminated || step.truncated))
        return 'the scripted sequence ended before the fork point';
      const fork = await env.fork();
      try {
        // The fork runs to the end first: the original must be unaffected by the fork's steps.
        const forkSteps = await continueWith(fork, actions.slice(cut));
        const originalSteps = await continueWith(env, actions.slice(cut));
        const tail = expected.steps.slice(cut);
        const asTrace = (steps: Trace['steps']): Trace => ({ observation: null, info: {}, steps });
        const forkProblem = firstDifference(asTrace(forkSteps), asTrace(tail));
        if (forkProblem) return `the fork does not continue like the original: ${forkProblem}`;
        const originalProblem = firstDifference(asTrace(originalSteps), asTrace(tail));
        if (originalProblem) return `the original changed after the fork stepped: ${originalProblem}`;
        return undefined;
      } finally {
        await fork.close();
      }
    } finally {
      await env.close();
      await reference.close();
    }
  });

  await attempt('malformed actions are ordinary steps', async () => {
    const env = await make();
    try {
      for (const bad of malformedActions(env.spec.actionSpace)) {
        await env.reset({ seed });
        const result = await env.step(bad);
        if (typeof result.observation === 'undefined')
          return `malformed action ${preview(bad)} returned no observation`;
        if (result.info.invalidAction !== true && typeof result.info.feedback !== 'string') {
          return `malformed action ${preview(bad)} got neither info.invalidAction nor info.feedback`;
        }
      }
      return undefined;
    } finally {
      await env.close();
    }
  });

  await attempt('step after the end raises ResetNeeded', async () => {
    const env = await make();
    try {
      await env.reset({ seed });
      let ended = false;
      for (let i = 0; i < env.spec.maxTurns + 1 && !ended; i++) {
        const action = actions[i] ?? (malformedActions(env.spec.actionSpace)[1] as Action);
        const result = await env.step(action);
        ended = result.terminated || result.truncated;
      }
      if (!ended) return `the episode did not end within maxTurns (${env.spec.maxTurns})`;
      try {
        await env.step(actions[0] as Action);
      } catch (error) {
        return error instanceof ResetNeededError || (TurnGymError.isInstance(error) && error.code === 'RESET_NEEDED')
          ? undefined
          : `step after the end threw ${(error as Error).name}, expected ResetNeededError`;
      }
      return 'step after the end did not raise';
    } finally {
      await env.close();
    }
  });

  await attempt('step before reset raises ResetNeeded', async () => {
    const env = await make();
    try {
      await env.step(actions[0] as Action);
      return 'step before reset did not raise';
    } catch (error) {
      return TurnGymError.isInstance(error) && error.code === 'RESET_NEEDED'
        ? undefined
        : `threw ${(error as Error).name}, expected ResetNeededError`;
    } finally {
      await env.close();
    }
  });

  await attempt('close is idempotent', async () => {
    const env = await make();
    await env.reset({ seed });
    await env.close();
    await env.close();
    try {
      await env.reset({ seed });
      return 'reset after close did not raise';
    } catch (error) {
      return error instanceof EnvClosedError || (TurnGymError.isInstance(error) && error.code === 'ENV_CLOSED')
        ? undefined
        : `reset after close threw ${(error as Error).name}, expected EnvClosedError`;
    }
  });

  await attempt('fingerprint and anchor are pure and stable', async () => {
    const env = await make();
    const other = await make();
    try {
      await env.reset({ seed });
      await other.reset({ seed: seed + 1 });
      const garbage = malformedActions(env.spec.actionSpace)[1] as Action;
      for (const action of [...actions.slice(0, 3), garbage]) {
        const first = env.fingerprint(action);
        if (typeof first !== 'string' || first.length === 0)
          return `fingerprint(${preview(action)}) is not a non-empty string`;
        if (env.fingerprint(action) !== first) return `fingerprint(${preview(action)}) changed between two calls`;
      }
      if (env.fingerprint(garbage) !== other.fingerprint(garbage)) {
        return `the same malformed action fingerprints differently across seeds (${env.fingerprint(garbage)} vs ${other.fingerprint(garbage)})`;
      }
      const anchor = env.anchor();
      if (typeof anchor !== 'string' || anchor.length === 0) return 'anchor() is not a non-empty string';
      if (env.anchor() !== anchor) return 'anchor() changed between two calls';
      // Calling the hooks must not change the episode.
      const reference = await make();
      try {
        const expected = await play(reference, seed, actions);
        await env.reset({ seed });
        const steps: Trace['steps'] = [];
        for (const action of actions) {
          env.fingerprint(action);
          env.anchor();
          const result = await env.step(action);
          steps.push(result);
          if (result.terminated || result.truncated) break;
        }
        const problem = firstDifference(
          { ...expected, steps: expected.steps },
          { observation: expected.observation, info: expected.info, steps },
        );
        return problem ? `calling fingerprint/anchor changed the episode: ${problem}` : undefined;
      } finally {
        await reference.close();
      }
    } finally {
      await env.close();
      await other.close();
    }
  });

  return { envId, passed: results.every((result) => result.passed), results };
}

/** One line per check, ✓ or ✗ with the reason; a last line with the verdict. */
export function formatCheckReport(report: CheckReport): string {
  const lines = report.results.map(
    (result) => `${result.passed ? '✓' : '✗'} ${result.name}${result.detail ? ` — ${result.detail}` : ''}`,
  );
  const failed = report.results.filter((result) => !result.passed).length;
  lines.push(
    failed === 0
      ? `${report.envId}: all ${report.results.length} checks passed`
      : `${report.envId}: ${failed} of ${report.results.length} checks failed`,
  );
  return lines.join('\n');
}
