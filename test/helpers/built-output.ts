import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');

/** Where `tsc -b` records a build; it rewrites this file whenever it looks at a changed project. */
const BUILD_INFO = join('dist', '.tsbuildinfo');

interface WorkspacePackage {
  readonly dir: string;
  /** The workspace packages it depends on, by name. */
  readonly dependencies: readonly string[];
  /** An env plugin (a `turngym.register` field): the CLI discovers and loads it without being asked. */
  readonly plugin: boolean;
}

/** The packages `npm run build` builds (tsconfig.build.json's references), by package name. */
function builtPackages(root: string): Map<string, WorkspacePackage> {
  const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as {
    references: { path: string }[];
  };
  const packages = new Map<string, WorkspacePackage>();
  for (const { path: dir } of build.references) {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      turngym?: { register?: string };
    };
    packages.set(manifest.name, {
      dir,
      dependencies: Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }),
      plugin: typeof manifest.turngym?.register === 'string',
    });
  }
  return packages;
}

/**
 * The built packages a test runs when it runs the packages in `dirs`: those, every workspace package they
 * depend on (transitively), and with `plugins` the env plugins the CLI and `loadPlugins` discover by themselves.
 */
export function builtPackageDirs(
  dirs: readonly string[],
  { plugins = false, root = REPO_ROOT }: { plugins?: boolean; root?: string } = {},
): string[] {
  const packages = builtPackages(root);
  const byDir = new Map([...packages.values()].map((workspacePackage) => [workspacePackage.dir, workspacePackage]));
  const pending = dirs.map((dir) => {
    const found = byDir.get(dir);
    if (!found) throw new Error(`${dir} is not a package that npm run build builds (tsconfig.build.json)`);
    return found;
  });
  if (plugins) pending.push(...[...packages.values()].filter((workspacePackage) => workspacePackage.plugin));
  const seen = new Set<string>();
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next.dir)) continue;
    seen.add(next.dir);
    for (const name of next.dependencies) {
      const dependency = packages.get(name);
      if (dependency) pending.push(dependency);
    }
  }
  return [...seen].sort();
}

/** The newest file under `src/` that the build compiles (tests and test fixtures need no rebuild). */
function newestSource(dir: string): { file: string; mtimeMs: number } | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  const walk = (relativeDir: string): void => {
    for (const entry of readdirSync(join(dir, relativeDir), { withFileTypes: true })) {
      const file = join(relativeDir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '__fixtures__') walk(file);
      } else if (/\.[cm]?tsx?$/.test(entry.name) && !/\.test\.[cm]?tsx?$/.test(entry.name)) {
        const { mtimeMs } = statSync(join(dir, file));
        if (!newest || mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
      }
    }
  };
  if (existsSync(join(dir, 'src'))) walk('src');
  return newest;
}

/** One line per package whose built output is missing or older than a source file it is built from. */
export function staleBuilds(dirs: readonly string[], root: string = REPO_ROOT): string[] {
  const stale: string[] = [];
  for (const dir of dirs) {
    const buildInfo = join(root, dir, BUILD_INFO);
    if (!existsSync(buildInfo)) {
      stale.push(`${dir}: not built (no ${BUILD_INFO})`);
      continue;
    }
    const source = newestSource(join(root, dir));
    if (source && source.mtimeMs > statSync(buildInfo).mtimeMs)
      stale.push(`${dir}: ${source.file} changed after the last build`);
  }
  return stale;
}

/**
 * Throws unless every package in `dirs` was built after its sources last changed. Tests of the built output
 * (`dist/`) would otherwise test yesterday's code: pass over a bug already in src, or fail over one fixed there.
 */
export function assertBuiltUpToDate(dirs: readonly string[], root: string = REPO_ROOT): void {
  const stale = staleBuilds(dirs, root);
  if (stale.length > 0) {
    throw new Error(
      `These tests run the built output, which is older than the sources:\n  ${stale.join('\n  ')}\nrun npm run build`,
    );
  }
}
