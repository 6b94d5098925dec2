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

interface Gate {
  reached: () => void;
  readonly wasReached: Promise<void>;
  open: () => void;
  readonly opened: Promise<void>;
}

/**
 * Where a step of `gate:<name>` waits until the test opens the gate: a request certainly in flight (the env is
 * inside its step) for as long as the test needs, instead of a step that sleeps and a test that hopes its
 * next line runs before the sleep ends.
 */
export class Gates {
  private readonly gates = new Map<string, Gate>();

  /** Resolves once a step is waiting at gate `name`. */
  reached(name: string): Promise<void> {
    return this.gate(name).wasReached;
  }

  /** Lets the step waiting at `name` (or the next to reach it) go on. */
  open(name: string): void {
    this.gate(name).open();
  }

  /** For the env: marks the gate reached and waits until it is opened. */
  pass(name: string): Promise<void> {
    const gate = this.gate(name);
    gate.reached();
    return gate.opened;
  }

  private gate(name: string): Gate {
    let gate = this.gates.get(name);
    if (!gate) {
      let reached = (): void => undefined;
      let open = (): void => undefined;
      const wasReached = new Promise<void>((resolve) => (reached = resolve));
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { reached, wasReached, open, opened };
      this.gates.set(name, gate);
    }
    return gate;
  }
}

export const gates = new Gates();

/**
 * `test/echo-v1`: a text env that echoes the action. `gate:<name>` waits at that gate (see `Gates`),
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
    const gate = /^gate:(.+)$/.exec(text);
    if (gate) await gates.pass(gate[1] as string);
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
    packageName: '@turngym/env-example',
    packageVersion: '0.1.0-test',
  });
  registry.register({ id: 'test/echo-v1', entryPoint: () => new EchoEnv() });
  registry.register({ id: 'test/choice-v1', entryPoint: () => new ChoiceEnv() });
  return registry;
}

export const ALL_IDS = ['turngym/example-v1', 'test/echo-v1', 'test/choice-v1'];
