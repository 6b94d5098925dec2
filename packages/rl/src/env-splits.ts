import { loadPlugins, Registry } from '@turngym/core';

/** A registry with every installed env package loaded: where trainers find `--env` ids by default. */
export function installedEnvRegistry(): Registry {
  const registry = new Registry();
  loadPlugins(registry);
  return registry;
}

/**
 * Options of an env's held-out split: `split: 'test'` where the env's options have a `split` (math-thought,
 * wiki), else the same options (the env then has no held-out tasks, which trainers' docs must say).
 */
export function testSplitOptions(
  registry: Registry,
  envId: string,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const schema = registry.get(envId).optionsSchema as { properties?: Record<string, unknown> } | undefined;
  return schema?.properties && 'split' in schema.properties ? { ...options, split: 'test' } : options;
}
