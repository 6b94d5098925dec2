import { ExampleEnv } from '@turngym/env-example';
import type { Registry } from '../registry';
import { createRootContainer, createRunContainer } from './container';
import { PluginLoader } from './plugin-loader';
import { TOKENS } from './tokens';

describe('composition', () => {
  it('gives each run its own registry and a plugin loader bound to it', () => {
    const root = createRootContainer();
    const first = createRunContainer(root);
    const second = createRunContainer(root);
    const registry = first.resolve<Registry>(TOKENS.Registry);
    registry.register({ id: 'test/solo-v1', entryPoint: () => new ExampleEnv() });
    expect(second.resolve<Registry>(TOKENS.Registry).list()).toEqual([]);
    const loader = first.resolve<PluginLoader>(TOKENS.PluginLoader);
    expect(loader).toBeInstanceOf(PluginLoader);
    expect(first.resolve(TOKENS.PluginLoader)).toBe(loader);
    // Constructor injection really happened (decorator metadata survived the transform).
    expect((loader as unknown as { registry: Registry }).registry).toBe(registry);
  });
});
