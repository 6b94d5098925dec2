import {
  ConsoleLogger,
  createRootContainer,
  createRunContainer,
  TOKENS,
  type Logger,
  type PluginLoader,
  type Registry,
} from '@turngym/core';
import type { CliIo } from './cli-io';
import { registerLazyLocalProvider } from './local-model-provider';

/** Options every command accepts (declared on the root program). */
export interface GlobalOptions {
  verbose?: boolean;
  /** Explicit plugin modules or package directories (`--plugin`, repeatable). */
  plugin?: string[];
}

export interface Environments {
  readonly registry: Registry;
  readonly logger: Logger;
}

/**
 * The composition root of one CLI invocation: a run container from core (its own registry and plugin
 * loader), with a logger on the CLI's stderr. Plugins are loaded on first use, so commands that need no
 * env (`new-env`) never require env packages.
 */
export class CliContext {
  private environments: Environments | undefined;
  /** Set by a command whose work ran but failed (a check that did not pass): exit code 1. */
  exitCode = 0;

  constructor(readonly io: CliIo) {}

  loadEnvironments(global: GlobalOptions): Environments {
    if (this.environments) return this.environments;
    const verbose = global.verbose ?? false;
    const root = createRootContainer({ verbose });
    root.register(TOKENS.Logger, { useValue: new ConsoleLogger(verbose, this.io.stderr) });
    const run = createRunContainer(root);
    const registry = run.resolve<Registry>(TOKENS.Registry);
    const logger = run.resolve<Logger>(TOKENS.Logger);
    run.resolve<PluginLoader>(TOKENS.PluginLoader).load({ modules: global.plugin ?? [] });
    registerLazyLocalProvider(); // env roles may name `local:<checkpoint>` models
    this.environments = { registry, logger };
    return this.environments;
  }
}
