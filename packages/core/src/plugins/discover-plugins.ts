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
  /** `requested`: the caller named it in `modules` (a broken discovered package is only a warning). */
  readonly failed: { packageName: string; error: Error; requested: boolean }[];
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
    // Node appends its "Require stack:" lines to the message; --verbose shows them with the cause.
    const message = String((error as Error)?.message ?? error).split('\nRequire stack:')[0] as string;
    // `--plugin data.txt` said only "Unexpected token ':'": name the file and that it is not JavaScript.
    if (error instanceof SyntaxError) {
      throw new PluginLoadError(
        plugin.packageName,
        `${plugin.registerPath} is not a JavaScript module (SyntaxError: ${message})`,
        error,
      );
    }
    throw new PluginLoadError(plugin.packageName, message, error);
  }
  if (typeof module.register !== 'function')
    throw new PluginLoadError(plugin.packageName, `${plugin.registerPath} does not export register(registry)`);
  try {
    (module.register as (registry: Registry) => void)(registry);
  } catch (error) {
    if (error instanceof PluginLoadError) throw error;
    throw new PluginLoadError(plugin.packageName, `register() threw: ${(error as Error).message}`, error);
  }
}

/**
 * Discovers and loads every installed env package, plus explicit `modules` (a package directory or a
 * register module path). One broken package does not stop the others: it is reported in `failed`, with
 * `requested` set for one of `modules` (a caller that asked for it should treat that as an error).
 * Ids already registered (a package loaded twice through two paths) are skipped, not errors — except where a
 * requested module registers an id another package already holds: it fails naming both. A contributor's copy of
 * an env under a new package name, loaded with `--plugin .`, was silently skipped, and `turngym check` reported
 * the installed env's checks as theirs.
 */
export function loadPlugins(
  registry: Registry,
  options: { searchFrom?: readonly string[]; modules?: readonly string[] } = {},
): PluginLoadResult {
  const plugins = discoverPlugins(options.searchFrom ? { searchFrom: options.searchFrom } : {});
  const requested = new Set<DiscoveredPlugin>();
  const failed: PluginLoadResult['failed'] = [];
  for (const module of options.modules ?? []) {
    let plugin: DiscoveredPlugin;
    try {
      plugin = requestedPlugin(module);
    } catch (error) {
      failed.push({ packageName: module, error: error as Error, requested: true });
      continue;
    }
    // The same package named by its directory, or by its register module's path.
    const index = plugins.findIndex(
      (other) => other.packageName === plugin.packageName || samePath(other.registerPath, plugin.registerPath),
    );
    if (index >= 0) plugins.splice(index, 1);
    plugins.push(plugin);
    requested.add(plugin);
  }
  const loaded: DiscoveredPlugin[] = [];
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    try {
      loadPlugin(guardDuplicates(registry, plugin, requested.has(plugin), owners), plugin);
      loaded.push(plugin);
    } catch (error) {
      failed.push({ packageName: plugin.packageName, error: error as Error, requested: requested.has(plugin) });
    }
  }
  return { loaded, failed };
}

/**
 * A plugin the caller named: a package directory that declares its register module, or that module's path.
 * What is wrong with the path is said here, in the caller's own words, rather than as a require() failure.
 */
function requestedPlugin(module: string): DiscoveredPlugin {
  const path = resolve(module);
  if (!existsSync(path)) throw new PluginLoadError(module, `${path} does not exist`);
  if (statSync(path).isDirectory()) {
    const asPackage = pluginAt(path);
    if (asPackage) return asPackage;
    throw new PluginLoadError(
      module,
      `${path} is a directory without a package.json that declares "turngym": { "register": "./dist/register.js" } ` +
        '(name the package directory, or its register module)',
    );
  }
  return { packageName: module, version: '0.0.0', directory: dirname(path), registerPath: path };
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}

/**
 * A view of the registry whose `register` skips ids that are already there (same package, two paths), and refuses
 * one a requested plugin registers over another package's. `owners`: which package registered each id so far.
 */
function guardDuplicates(
  registry: Registry,
  plugin: DiscoveredPlugin,
  requested: boolean,
  owners: Map<string, string>,
): Registry {
  return new Proxy(registry, {
    get(target, property, receiver) {
      if (property === 'register') {
        return (registration: { id: string }) => {
          if (!target.has(registration.id)) {
            target.register(registration as never);
            owners.set(registration.id, plugin.packageName);
            return;
          }
          const owner = owners.get(registration.id);
          if (requested && owner !== plugin.packageName)
            throw new PluginLoadError(
              plugin.packageName,
              `it registers ${registration.id}, which ${owner ?? 'another registration'} already registers: ` +
                "the installed env would be used in its place. Give your env an id of its own (its register()'s id).",
            );
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
