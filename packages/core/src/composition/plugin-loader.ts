import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { loadPlugins, type PluginLoadResult } from '../plugins/discover-plugins';
import type { Registry } from '../registry';
import type { Logger } from './logger';
import { TOKENS } from './tokens';

/** Loads installed env packages into the run's registry once, and logs the ones that failed. */
@injectable()
export class PluginLoader {
  private result: PluginLoadResult | undefined;

  constructor(
    @inject(TOKENS.Registry) private readonly registry: Registry,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  /**
   * Discovered packages that fail are logged as warnings (one broken install must not stop every command);
   * a module the caller named in `modules` that fails throws its `PluginLoadError`: it was asked for.
   */
  load(options: { searchFrom?: readonly string[]; modules?: readonly string[] } = {}): PluginLoadResult {
    if (this.result && !options.modules?.length) return this.result;
    this.result = loadPlugins(this.registry, options);
    const requested = this.result.failed.find((failure) => failure.requested);
    if (requested) throw requested.error;
    for (const failure of this.result.failed) this.logger.warn(failure.error.message);
    for (const plugin of this.result.loaded) this.logger.debug(`loaded ${plugin.packageName}@${plugin.version}`);
    return this.result;
  }
}
