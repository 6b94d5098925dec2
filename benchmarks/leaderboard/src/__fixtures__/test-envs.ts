import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvFaultError, Registry } from '@turngym/core';
import { ExampleSolver, register as registerExample } from '@turngym/env-example';
import { LLMCallError } from '@turngym/llm';
import type { Action, Agent, AgentEpisodeStart } from '@turngym/spec';
import { validateSuite, type LoadedSuite, type SuiteEntry } from '../suite';

/**
 * Seeds on which the `faulty` agent throws, and how: shared with the test that sets them. While `hold` is
 * set, every action waits on it (a run paused at a known point, e.g. for a kill from outside).
 */
export const faults: {
  envFault: Set<number>;
  crash: Set<number>;
  /** Seeds on which the model's context is full from the second turn (a 400 `context_length_exceeded`). */
  contextFull: Set<number>;
  hold: Promise<void> | undefined;
  /** Actions waiting on `hold` now: a test waits for its episodes to be in flight. */
  held: number;
} = {
  envFault: new Set(),
  crash: new Set(),
  contextFull: new Set(),
  hold: undefined,
  held: 0,
};

/**
 * The example env's solver, with faults on demand: an `EnvFaultError` (an episode error: recorded, not
 * scored), or a plain Error (a bug: the run stops, like a crash), on the seeds listed in `faults`.
 */
class FaultyAgent implements Agent<string, Action> {
  readonly name = 'faulty';
  private readonly solver = new ExampleSolver();
  private seed = 0;
  private turn = 0;

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    this.seed = episode.seed;
    this.turn = 0;
    await this.solver.start(episode);
  }

  async act(observation: string): Promise<Action> {
    if (faults.hold) {
      faults.held += 1;
      await faults.hold;
      faults.held -= 1;
    }
    if (faults.crash.has(this.seed)) throw new Error(`simulated crash on seed ${this.seed}`);
    if (faults.envFault.has(this.seed)) throw new EnvFaultError(`simulated env fault on seed ${this.seed}`);
    this.turn += 1;
    if (faults.contextFull.has(this.seed) && this.turn > 1)
      throw new LLMCallError(`openai:tiny: HTTP 400: the prompt outgrew the context on seed ${this.seed}`, {
        failure: 'context-length',
        status: 400,
      });
    return this.solver.act(observation);
  }
}

/** A registry with the example env (`turngym/example-v1`) and `test/faulty-v1`: the example env with a `faulty` agent. */
export function testRegistry(): Registry {
  const registry = new Registry();
  registerExample(registry);
  const example = registry.get('turngym/example-v1');
  registry.register({
    ...example,
    id: 'test/faulty-v1',
    entryPoint: async (options, dependencies) => {
      const env = await example.entryPoint(options, dependencies);
      // Its own id in its spec, so records name the env that was played.
      Object.defineProperty(env, 'spec', { value: { ...env.spec, id: 'test/faulty-v1' } });
      return env;
    },
    agents: { ...example.agents, faulty: () => new FaultyAgent() },
    packageName: '@turngym/test-faulty',
    packageVersion: '1.0.0',
  });
  return registry;
}

/** A tiny suite (validated and expanded like a file would be). */
export function tinySuite(entries: SuiteEntry[], id = 'tiny-v1'): LoadedSuite {
  return validateSuite({ id, description: 'A tiny suite for tests.', entries });
}

export function temporaryDirectory(prefix = 'turngym-leaderboard-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
