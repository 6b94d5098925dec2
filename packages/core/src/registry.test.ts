import { ExampleEnv, register } from '@turngym/env-example';
import type { EnvSpec } from '@turngym/spec';
import {
  AlreadyRegisteredError,
  InvalidIdError,
  InvalidOptionsError,
  InvalidToolSchemaError,
  NameNotFoundError,
  VersionNotFoundError,
} from './errors';
import { Registry } from './registry';
import { MemoryRecordSink, validateEpisodeRecord } from './episode-record';
import { runEpisode } from './run-episodes';

function registryWithExample(): Registry {
  const registry = new Registry();
  register(registry);
  registry.register({ id: 'turngym/example-v2', entryPoint: (options) => new ExampleEnv(options as never) });
  return registry;
}

describe('Registry', () => {
  it('lists and makes registered ids', async () => {
    const registry = registryWithExample();
    expect(registry.list()).toEqual(['turngym/example-v1', 'turngym/example-v2']);
    const env = await registry.make('turngym/example-v1');
    expect(env.spec.id).toBe('turngym/example-v1');
    expect(env.unwrapped).toBeInstanceOf(ExampleEnv);
    await env.close();
  });

  it('suggests the closest names for an unknown name', async () => {
    const registry = registryWithExample();
    await expect(registry.make('turngym/exampel-v1')).rejects.toThrow(NameNotFoundError);
    await expect(registry.make('turngym/exampel-v1')).rejects.toThrow(/Did you mean: turngym\/example-v1/);
    // The bare name without its namespace is found too.
    await expect(registry.make('example-v1')).rejects.toThrow(/turngym\/example-v1/);
  });

  it('calls an empty id malformed instead of guessing a name for it', async () => {
    const registry = registryWithExample();
    for (const id of ['', '  ']) {
      await expect(registry.make(id)).rejects.toThrow(
        `Malformed environment id "${id}": expected [namespace/]name-vN, e.g. turngym/math-thought-v1.`,
      );
    }
  });

  it('lists the versions that exist for an unknown version', async () => {
    const registry = registryWithExample();
    const error = await registry.make('turngym/example-v9').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VersionNotFoundError);
    expect((error as Error).message).toBe(
      'Environment "turngym/example-v9" has no such version. Available: turngym/example-v1, turngym/example-v2.',
    );
  });

  it('rejects malformed ids and double registration', () => {
    const registry = registryWithExample();
    expect(() => registry.register({ id: 'no version', entryPoint: () => new ExampleEnv() })).toThrow(InvalidIdError);
    expect(() => register(registry)).toThrow(AlreadyRegisteredError);
  });

  it('validates options, naming the field and what it accepts', async () => {
    const registry = registryWithExample();
    await expect(registry.make('turngym/example-v1', { options: { keys: 'many' } })).rejects.toThrow(
      'Invalid options for turngym/example-v1: options.keys must be integer (got "many")',
    );
    await expect(registry.make('turngym/example-v1', { options: { chainLenght: 2 } })).rejects.toThrow(
      /options has unknown field "chainLenght"; allowed fields: keys, chainLength, maxTurns/,
    );
    await expect(registry.make('turngym/example-v1', { options: { keys: 1 } })).rejects.toThrow(
      /options.keys must be >= 2 \(got 1\)/,
    );
    await expect(registry.make('turngym/example-v1', { options: { keys: 1 } })).rejects.toBeInstanceOf(
      InvalidOptionsError,
    );
    // What is not data is refused naming the field (it was a bare DataCloneError, or a TypeError for a BigInt).
    await expect(registry.make('turngym/example-v1', { options: { keys: () => 5 } })).rejects.toThrow(
      'Invalid options for turngym/example-v1: options.keys must be data, not a function',
    );
    await expect(registry.make('turngym/example-v1', { options: { keys: 5n } })).rejects.toThrow(
      'options.keys must be integer (got 5n)',
    );
    expect(registry.resolveOptions('turngym/example-v1', { keys: 5 })).toEqual({
      keys: 5,
      chainLength: 3,
      maxTurns: 10,
    });
  });

  it('checks maxTurns and budget before it builds the env, naming the field', async () => {
    // They were checked by the wrappers after the env was built, which was then never closed (an MCP server
    // process outlived the failed make), and an unknown budget field was silently no limit at all.
    const registry = new Registry();
    let built = 0;
    register(registry);
    const counting = new Registry();
    counting.register({
      ...registry.get('turngym/example-v1'),
      entryPoint: (options, dependencies) => {
        built += 1;
        return registry.get('turngym/example-v1').entryPoint(options, dependencies);
      },
    });
    await expect(counting.make('turngym/example-v1', { maxTurns: 0 })).rejects.toThrow(
      'Invalid options for make(turngym/example-v1): make.maxTurns must be >= 1 (got 0)',
    );
    await expect(counting.make('turngym/example-v1', { maxTurns: 2.5 })).rejects.toThrow(InvalidOptionsError);
    await expect(counting.make('turngym/example-v1', { budget: { maxToolCalls: -1 } })).rejects.toThrow(
      /make.budget.maxToolCalls must be >= 0 \(got -1\)/,
    );
    await expect(counting.make('turngym/example-v1', { budget: { maxTokens: 5 } as never })).rejects.toThrow(
      /make.budget has unknown field "maxTokens"; allowed fields: maxToolCalls, maxLlmTokens/,
    );
    expect(built).toBe(0);
    const env = await counting.make('turngym/example-v1', { maxTurns: 3, budget: { maxToolCalls: 2 } });
    expect(built).toBe(1);
    await env.close();
  });

  it('wraps with a time limit and records episodes that match the record schema', async () => {
    const registry = registryWithExample();
    const sink = new MemoryRecordSink();
    const env = await registry.make('turngym/example-v1', { maxTurns: 2, record: { sink, agent: 'scripted' } });
    const agent = registry.makeAgent('turngym/example-v1', 'scripted', { env, seed: 0 });
    const outcome = await runEpisode(env, agent, 3);
    expect(outcome).toMatchObject({ turns: 2, success: false, truncated: true });
    await env.close();
    expect(sink.records).toHaveLength(1);
    const record = validateEpisodeRecord(sink.records[0]);
    expect(record).toMatchObject({
      envId: 'turngym/example-v1',
      seed: 3,
      agent: 'scripted',
      turns: 2,
      truncated: true,
      complete: true,
      envVersion: '0.1.0',
    });
    expect(record.steps[1]?.info.truncatedBy).toBe('time-limit');
  });

  it('names the known agents when an agent is unknown', async () => {
    const registry = registryWithExample();
    const env = await registry.make('turngym/example-v1');
    expect(() => registry.makeAgent('turngym/example-v1', 'oracle', { env, seed: 0 })).toThrow(
      /Did you mean: scripted, random/,
    );
  });
  it('refuses at make() an env whose tool schema cannot be compiled, naming the tool, and closes it', async () => {
    const registry = new Registry();
    let closed = 0;
    class BrokenToolEnv extends ExampleEnv {
      constructor() {
        super();
        const tools = this.spec.tools!.map((tool) =>
          tool.name === 'SUBMIT'
            ? { ...tool, parameters: { type: 'object', properties: { code: { type: 'strin' } } } }
            : tool,
        );
        (this as { spec: EnvSpec }).spec = { ...this.spec, tools, actionSpace: { type: 'tools', tools } };
      }
      protected override onClose(): void {
        closed += 1;
      }
    }
    registry.register({ id: 'test/broken-tool-v1', entryPoint: () => new BrokenToolEnv() });
    for (const bare of [false, true]) {
      const error = await registry.make('test/broken-tool-v1', { bare }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidToolSchemaError);
      expect((error as Error).message).toMatch(
        /^Environment "turngym\/example-v1": tool "SUBMIT" has a parameters schema that cannot be compiled \(.*type.*\)/,
      );
    }
    expect(closed).toBe(2);
  });
});
