import 'reflect-metadata';
import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import { Registry } from '../registry';
import { ConsoleLogger } from './logger';
import { PluginLoader } from './plugin-loader';
import { TOKENS } from './tokens';

/**
 * The root container: process-wide defaults. Callers `import 'reflect-metadata'` first (entry points and
 * jest setupFiles do). Environments and trainers never see the container: they get plain objects.
 */
export function createRootContainer(options: { verbose?: boolean } = {}): DependencyContainer {
  const root = globalContainer.createChildContainer();
  root.register(TOKENS.Logger, { useValue: new ConsoleLogger(options.verbose ?? false) });
  return root;
}

/**
 * A container per run (one CLI command, one test): its own registry, so runs never see each other's
 * registrations, and its own plugin loader bound to that registry.
 */
export function createRunContainer(parent: DependencyContainer = createRootContainer()): DependencyContainer {
  const run = parent.createChildContainer();
  run.register(TOKENS.Registry, { useValue: new Registry() });
  run.registerSingleton(TOKENS.PluginLoader, PluginLoader);
  return run;
}
