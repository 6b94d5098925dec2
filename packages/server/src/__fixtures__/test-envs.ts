import { BaseEnv, RandomAgent, Registry, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import { ExampleEnv, ExampleSolver, exampleOptionsSchema, type ExampleOptions } from '@turngym/env-example';
import type { Action, EnvSpec } from '@turngym/spec';

/** Envs alive right now, over every env these fixtures build (forks included): a leak shows up here. */
export const openEnvs = { count: 0 };

class CountedExampleEnv extends ExampleEnv {
  constructor(options: Partial<ExampleOptions> = {}) {
    super(options);
    openEnvs.count += 1;
  }
  protected override spawn(): CountedExampleEnv {
    return new CountedExampleEnv(this.options);
  }
  protected override onClose(): void {
    openEnvs.count -= 1;
  }
}

/**
 * `test/echo-v1`: a text env that echoes the action. `sleep:<ms>` takes that long (in-flight requests),
 * `crash` throws a plain Error (an env bug), `bigint` puts a BigInt in the info, `bye` ends the episode.
 */
export class EchoEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/echo-v1',
    summary: 'Echoes what you write; "bye" ends it.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text', examples: ['hello', 'bye'] },
    maxTurns: 20,
    rewardRange: [0, 1],
  };
  private said: string[] = [];

  constructor() {
    super();
    openEnvs.count += 1;
  }
  protected spawn(): EchoEnv {
    return new EchoEnv();
  }
  protected onReset(seed: number): EnvResetOutcome<string> {
    this.said = [];
    return { observation: `Say something (seed ${seed}).`, instructions: 'Write anything; "bye" ends the episode.' };
  }
  protected async onStep(action: Action): Promise<EnvStepOutcome<string>> {
    const text = String(action);
    const sleep = /^sleep:(\d+)$/.exec(text);
    if (sleep) await new Promise((resolve) => setTimeout(resolve, Number(sleep[1])));
    if (text === 'crash') throw new Error('the echo env crashed');
    // An info that JSON cannot carry: the reply must become an error, never a server crash.
    if (text === 'bigint') return { observation: 'big', reward: 0, terminated: false, info: { big: 10n } };
    this.said.push(text);
    const bye = text === 'bye';
    return {
      observation: `echo: ${text}`,
      reward: bye ? 1 : 0,
      terminated: bye,
      info: bye ? { success: true } : { feedback: text === '' ? 'say something' : 'ok' },
    };
  }
  fingerprint(action: Action): string {
    return String(action) === 'bye' ? 'BYE' : 'SAY';
  }
  anchor(): string {
    return `said-${this.said.length}`;
  }
  protected override onClose(): void {
    openEnvs.count -= 1;
  }
}

/** `test/choice-v1`: a discrete env; option 2 (`right`) wins. */
export class ChoiceEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/choice-v1',
    summary: 'Pick the right door.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'discrete', n: 3, labels: ['left', 'middle', 'right'] },
    maxTurns: 5,
    rewardRange: [0, 1],
  };
  constructor() {
    super();
    openEnvs.count += 1;
  }
  protected spawn(): ChoiceEnv {
    return new ChoiceEnv();
  }
  protected onReset(): EnvResetOutcome<string> {
    return { observation: 'Three doors.', instructions: 'Pick one.', info: { actionMask: [true, true, true] } };
  }
  protected onStep(action: Action): EnvStepOutcome<string> {
    const index =
      typeof action === 'number'
        ? action
        : this.spec.actionSpace.type === 'discrete'
          ? this.spec.actionSpace.labels.indexOf(String(action))
          : -1;
    if (index < 0 || index > 2)
      return {
        observation: 'No such door.',
        reward: 0,
        terminated: false,
        info: { invalidAction: true, actionMask: [true, true, true] },
      };
    return {
      observation: index === 2 ? 'Treasure!' : 'Empty.',
      reward: index === 2 ? 1 : 0,
      terminated: true,
      info: { success: index === 2 },
    };
  }
  fingerprint(action: Action): string {
    return `OPEN(${String(action)})`;
  }
  anchor(): string {
    return 'hall';
  }
  protected override onClose(): void {
    openEnvs.count -= 1;
  }
}

/** A registry with the template env (counted) and the two test envs. */
export function testRegistry(): Registry {
  const registry = new Registry();
  registry.register<ExampleOptions>({
    id: 'turngym/example-v1',
    entryPoint: (options) => new CountedExampleEnv(options),
    optionsSchema: exampleOptionsSchema,
    clientOptions: { keys: true, chainLength: true, maxTurns: true },
    agents: { scripted: () => new ExampleSolver(), random: ({ seed }) => new RandomAgent(seed) },
  });
  registry.register({ id: 'test/echo-v1', entryPoint: () => new EchoEnv() });
  registry.register({ id: 'test/choice-v1', entryPoint: () => new ChoiceEnv() });
  return registry;
}

export const ALL_IDS = ['turngym/example-v1', 'test/echo-v1', 'test/choice-v1'];

/** Polls until `predicate` holds (sessions close asynchronously); fails after `timeoutMs`. */
export async function eventually(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
