import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PluginLoadError } from '../errors';
import type { Registry } from '../registry';

/** An installed package that declares `"turngym": { "register": "./dist/register.js" }`. */
export interface DiscoveredPlugin {
  readonly packageName: string;
  readonly version: string;
  /** The package directory (symlinks resolved). */
  readonly directory: string;
  /** Absolute path of the module exporting `register(registry)`. */
  readonly registerPath: string;
}

export interface PluginLoadResult {
  readonly loaded: DiscoveredPlugin[];
  readonly failed: { packageName: string; error: Error }[];
}

const PLUGIN_NAME = /^(@turngym\/env-[a-z0-9._-]+|turngym-env-[a-z0-9._-]+|@[a-z0-9._-]+\/turngym-env-[a-z0-9._-]+)$/;

interface Manifest {
  name?: string;
  version?: string;
  turngym?: { register?: string };
}

function readManifest(directory: string): Manifest | undefined {
  const path = join(directory, 'package.json');
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Reads one package directory as a plugin; undefined if it does not declare itself. */
export function pluginAt(directory: string): DiscoveredPlugin | undefined {
  const manifest = readManifest(directory);
  const entry = manifest?.turngym?.register;
  if (!manifest?.name || !entry) return undefined;
  const real = realpathSync(directory);
  return {
    packageName: manifest.name,
    version: manifest.version ?? '0.0.0',
    directory: real,
    registerPath: resolve(real, entry),
  };
}

/** Every `node_modules` folder from `start` up to the file system root (Node's own lookup order). */
function nodeModulesChain(start: string): string[] {
  const chain: string[] = [];
  let current = resolve(start);
  for (;;) {
    const candidate = join(current, 'node_modules');
    if (existsSync(candidate)) chain.push(candidate);
    const parent = dirname(current);
    if (parent === current) return chain;
    current = parent;
  }
}

function packagesIn(nodeModules: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    const path = join(nodeModules, name);
    if (name.startsWith('@')) {
      for (const scoped of readdirSync(path)) out.push(join(path, scoped));
    } else {
      out.push(path);
    }
  }
  return out;
}

/**
 * Finds installed environment packages: `@turngym/env-*`, `turngym-env-*` and `@scope/turngym-env-*` in the
 * node_modules chain of each start directory (default: the working directory and this package's location),
 * each declaring `"turngym": { "register": … }` in its package.json. The first found of a name wins.
 */
export function discoverPlugins(options: { searchFrom?: readonly string[] } = {}): DiscoveredPlugin[] {
  const starts = options.searchFrom ?? [process.cwd(), __dirname];
  const found = new Map<string, DiscoveredPlugin>();
  for (const start of starts) {
    for (const nodeModules of nodeModulesChain(start)) {
      for (const directory of packagesIn(nodeModules)) {
        const relative = directory
          .slice(nodeModules.length + 1)
          .split('\\')
          .join('/');
        if (!PLUGIN_NAME.test(relative) || found.has(relative)) continue;
        try {
          if (!statSync(directory).isDirectory()) continue;
          const plugin = pluginAt(directory);
          if (plugin) found.set(plugin.packageName, plugin);
        } catch {
          // A dangling symlink is not a plugin.
        }
      }
    }
  }
  return [...found.values()].sort((a, b) => a.packageName.localeCompare(b.packageName));
}

/** Requires a plugin's register module and calls `register(registry)`. */
export function loadPlugin(registry: Registry, plugin: DiscoveredPlugin): void {
  if (!existsSync(plugin.registerPath)) {
    throw new PluginLoadError(plugin.packageName, `${plugin.registerPath} does not exist (is the package built?)`);
  }
  let module: { register?: unknown };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    module = require(plugin.registerPath) as { register?: unknown };
  } catch (error) {
    throw new PluginLoadError(plugin.packageName, (error as Error).message, error);
  }
  if (typeof module.register !== 'function')
    throw new PluginLoadError(plugin.packageName, `${plugin.registerPath} does not export register(registry)`);
  try {
    (module.register as (registry: Registry) => void)(registry);
  } catch (error) {
    throw new PluginLoadError(plugin.packageName, `register() threw: ${(error as Error).message}`, error);
  }
}

/**
 * Discovers and loads every installed env package, plus explicit `modules` (a package directory or a
 * register module path). One broken package does not stop the others: it is reported in `failed`.
 * Ids already registered (a package loaded twice through two paths) are skipped, not errors.
 */
export function loadPlugins(
  registry: Registry,
  options: { searchFrom?: readonly string[]; modules?: readonly string[] } = {},
): PluginLoadResult {
  const plugins = discoverPlugins(options.searchFrom ? { searchFrom: options.searchFrom } : {});
  for (const module of options.modules ?? []) {
    const path = resolve(module);
    const asPackage = existsSync(path) && statSync(path).isDirectory() ? pluginAt(path) : undefined;
    if (asPackage) {
      const index = plugins.findIndex((plugin) => plugin.packageName === asPackage.packageName);
      if (index >= 0) plugins.splice(index, 1);
      plugins.push(asPackage);
    } else {
      plugins.push({ packageName: module, version: '0.0.0', directory: dirname(path), registerPath: path });
    }
  }
  const loaded: DiscoveredPlugin[] = [];
  const failed: { packageName: string; error: Error }[] = [];
  for (const plugin of plugins) {
    try {
      loadPlugin(guardDuplicates(registry), plugin);
      loaded.push(plugin);
    } catch (error) {
      failed.push({ packageName: plugin.packageName, error: error as Error });
    }
  }
  return { loaded, failed };
}

/** A view of the registry whose `register` skips ids that are already there (same package, two paths). */
function guardDuplicates(registry: Registry): Registry {
  return new Proxy(registry, {
    get(target, property, receiver) {
      if (property === 'register') {
        return (registration: { id: string }) => {
          if (!target.has(registration.id)) target.register(registration as never);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
