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

  it('the plugin loader throws for a module the caller named that cannot load', () => {
    const run = createRunContainer(createRootContainer());
    const loader = run.resolve<PluginLoader>(TOKENS.PluginLoader);
    expect(() => loader.load({ searchFrom: [], modules: ['/no/such/plugin'] })).toThrow(
      expect.objectContaining({
        code: 'PLUGIN_LOAD',
        message: expect.stringContaining('/no/such/plugin does not exist'),
      }),
    );
  });
});
