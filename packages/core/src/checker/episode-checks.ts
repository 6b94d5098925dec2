import type { Action, EnvSpec, Info, JsonSchema, Space } from '@turngym/spec';
import { compileToolSchema } from '../schema-validation';
import { continueWith, firstDifference, play, preview, type MakeEnv, type Trace } from './episode-trace';
import { jsonProblem } from './json-problem';

/** What every episode check gets: fresh envs, the seed, and the scripted action sequence to replay. */
export interface CheckContext {
  readonly make: MakeEnv;
  readonly seed: number;
  readonly actions: readonly Action[];
  /** The spec says the same seed may not reproduce an episode: no check may compare two runs. */
  readonly nondeterministic?: boolean;
  /**
   * The episode the fork check cuts: the scripted one where it has two steps or more, else the first of a few
   * further seeds' that has (a fork at reset never shows a fork that forgets what the steps built).
   */
  readonly forkEpisode?: { readonly seed: number; readonly actions: readonly Action[] };
  /** The seeds scripted for `forkEpisode` in vain, for the report: `8–15`. */
  readonly forkSeedsTried?: string;
}

/** A check that passed with a limit the report should name (what it could not look at). */
export interface CheckNote {
  readonly note: string;
}

/** One check: a problem in words, undefined when the env passes, or a note when it passed with a limit. */
export type Check = (context: CheckContext) => Promise<string | CheckNote | undefined>;

/**
 * Actions the space does not allow: out of range for a discrete space; empty, garbage or huge text otherwise;
 * and for tools, calls of an unknown tool or with arguments its schema rejects.
 */
export function malformedActions(space: Space): Action[] {
  switch (space.type) {
    case 'discrete':
      return [-1, space.n + 7, 'no-such-option'];
    case 'tools':
      // Function-calling agents send { name, arguments } objects, not text: those must get feedback too.
      return [
        '',
        '\u0000}{ not an action ((',
        'x'.repeat(20000),
        { name: 'NO_SUCH_TOOL', arguments: {} },
        ...space.tools.slice(0, 1).flatMap((tool) => {
          // Only arguments the tool's own schema rejects are malformed.
          const call = { name: tool.name, arguments: { '\u0000no-such-argument': [[{}]] } };
          return rejects(tool.parameters, call.arguments) ? [call] : [];
        }),
      ];
    default:
      return ['', '\u0000}{ not an action ((', 'x'.repeat(20000)];
  }
}

/** What is wrong with an observation for the spec's observation space, or undefined. */
export function observationProblem(observation: unknown, space: Space): string | undefined {
  if (observation === undefined || observation === null) return 'no observation';
  if (space.type === 'text' && typeof observation !== 'string')
    return `observation is ${Array.isArray(observation) ? 'an array' : typeof observation}, the text observation space needs a string`;
  return undefined;
}

/** What is wrong with one step's reward, observation and info (where: `step 3`), or undefined. */
function stepProblem(step: { observation: unknown; reward: unknown; info: Info }, spec: EnvSpec): string | undefined {
  if (typeof step.reward !== 'number' || !Number.isFinite(step.reward))
    return `reward ${typeof step.reward === 'number' ? String(step.reward) : preview(step.reward)} is not a finite number`;
  const [low, high] = spec.rewardRange;
  if (step.reward < low - 1e-9 || step.reward > high + 1e-9)
    return `reward ${step.reward} outside rewardRange [${low}, ${high}]`;
  return observationProblem(step.observation, spec.observationSpace) ?? jsonProblem(step.info, 'info');
}

function rejects(schema: JsonSchema, value: unknown): boolean {
  try {
    return !compileToolSchema(schema)(value);
  } catch {
    return false; // the spec check reports a schema ajv cannot compile
  }
}

/** reset() gives the task as the observation, the system prompt as info.instructions, and an anchor. */
export async function checkReset({ make, seed }: CheckContext): Promise<string | undefined> {
  const env = await make();
  try {
    const { observation, info } = await env.reset({ seed });
    const problem = observationProblem(observation, env.spec.observationSpace) ?? jsonProblem(info, 'info');
    if (problem) return `reset(): ${problem}`;
    if (typeof info.instructions !== 'string' || info.instructions.length === 0)
      return 'info.instructions (the system prompt) is missing';
    if (typeof info.anchor !== 'string') return 'info.anchor is missing on reset';
    return undefined;
  } finally {
    await env.close();
  }
}

/** The same seed and actions give the same episode: in two instances, and in one instance reset again. */
export async function checkSeedDeterminism({ make, seed, actions }: CheckContext): Promise<string | undefined> {
  const first = await make();
  const second = await make();
  try {
    const a = await play(first, seed, actions);
    const b = await play(second, seed, actions);
    const c = await play(first, seed, actions); // the same instance, reset again
    const acrossInstances = firstDifference(a, b);
    if (acrossInstances)
      return `two fresh envs reset with seed ${seed} and given the same actions differ: ${acrossInstances} (unseeded randomness such as Math.random or Date.now, or state shared between instances?)`;
    const afterReset = firstDifference(a, c);
    if (afterReset)
      return `the same env reset again with seed ${seed} differs from its first episode: ${afterReset} (reset() leaves state from the last episode?)`;
    return undefined;
  } finally {
    await first.close();
    await second.close();
  }
}

/**
 * Every step has a finite reward inside rewardRange, info.cost, a fingerprint and an anchor, and
 * info.success on the last step; a discrete space's reset has an action mask.
 */
export async function checkStepResults({ make, seed, actions }: CheckContext): Promise<string | undefined> {
  const env = await make();
  try {
    const trace = await play(env, seed, actions);
    for (const [i, step] of trace.steps.entries()) {
      const problem = stepProblem(step, env.spec);
      if (problem) return `step ${i + 1}: ${problem}`;
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
}

/**
 * A fork taken halfway through the scripted sequence continues like an unforked run, and stepping it
 * leaves the original unchanged. Where every episode the checker scripted ends in one step, the fork can only
 * be taken at reset, and the check says so.
 */
export async function checkForkEquivalence(context: CheckContext): Promise<string | CheckNote | undefined> {
  const { make } = context;
  const { seed, actions } = context.forkEpisode ?? context;
  const env = await make();
  const reference = await make();
  try {
    const cut = Math.floor(actions.length / 2);
    const where = context.forkEpisode && context.forkEpisode.seed !== context.seed ? ` (seed ${seed})` : '';
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
      if (forkProblem) return `the fork after step ${cut}${where} does not continue like the original: ${forkProblem}`;
      const originalProblem = firstDifference(asTrace(originalSteps), asTrace(tail));
      if (originalProblem) return `the original changed after the fork${where} stepped: ${originalProblem}`;
      // No action at all: the scripted sequence check has failed already.
      if (actions.length !== 1) return undefined;
      const seeds = context.forkSeedsTried ? `seeds ${context.seed} and ${context.forkSeedsTried}` : `seed ${seed}`;
      return {
        note: `checked at reset only: the scripted episodes of ${seeds} end in one step, so a fork that forgets what steps built would pass; check a seed where the expert takes several (--seed)`,
      };
    } finally {
      await fork.close();
    }
  } finally {
    await env.close();
    await reference.close();
  }
}

/** An action the space does not allow is an ordinary step that says so, never an exception. */
export async function checkMalformedActions({ make, seed }: CheckContext): Promise<string | undefined> {
  const env = await make();
  try {
    for (const bad of malformedActions(env.spec.actionSpace)) {
      await env.reset({ seed });
      const result = await env.step(bad);
      const problem = stepProblem(result, env.spec);
      if (problem) return `malformed action ${preview(bad)}: ${problem}`;
      if (result.info.invalidAction !== true && typeof result.info.feedback !== 'string') {
        return `malformed action ${preview(bad)} got neither info.invalidAction nor info.feedback`;
      }
    }
    return undefined;
  } finally {
    await env.close();
  }
}

/**
 * fingerprint() and anchor() are non-empty, give the same answer twice, do not depend on the seed for a
 * malformed action, and calling them does not change the episode.
 */
export async function checkFingerprintHooks({
  make,
  seed,
  actions,
  nondeterministic,
}: CheckContext): Promise<string | undefined> {
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
    // Calling the hooks must not change the episode: seen by comparing with a replay, which a nondeterministic
    // env does not promise to repeat.
    if (nondeterministic) return undefined;
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
      const problem = firstDifference(expected, { observation: expected.observation, info: expected.info, steps });
      return problem ? `calling fingerprint/anchor changed the episode: ${problem}` : undefined;
    } finally {
      await reference.close();
    }
  } finally {
    await env.close();
    await other.close();
  }
}
