import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { assertBuiltUpToDate } from './helpers/built-output';

/*
 * A package's published types are what an API user's compiler reads (without skipLibCheck, every file they
 * reach). If a reachable .d.ts names a package that npm does not install with it (an optional peer, a
 * devDependency), their build fails with "Cannot find module" although nothing they call needs it: @turngym/cli's
 * scaffoldEnv options reached the types of @turngym/lm and the eight trainers this way.
 */

const ROOT = join(__dirname, '..');

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly types?: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function workspaceDirs(): string[] {
  const patterns = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] })
    .workspaces;
  const dirs = patterns.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(ROOT, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern],
  );
  return [...new Set(dirs)].filter((dir) => existsSync(join(ROOT, dir, 'package.json')));
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for Node's own modules. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Every bare package the .d.ts files reachable from `entry` import, with one file that imports it. */
function packagesReachedBy(entry: string): Map<string, string> {
  const reached = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const { importedFiles, referencedFiles, typeReferenceDirectives } = ts.preProcessFile(
      readFileSync(file, 'utf8'),
      true,
      true,
    );
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith('.')) {
        const base = resolve(dirname(file), fileName).replace(/\.js$/, '');
        const next = [`${base}.d.ts`, join(base, 'index.d.ts')].find((candidate) => existsSync(candidate));
        if (next !== undefined) queue.push(next);
        continue;
      }
      const name = packageOf(fileName);
      if (name !== undefined && !reached.has(name)) reached.set(name, relative(ROOT, file));
    }
    for (const { fileName } of referencedFiles) queue.push(resolve(dirname(file), fileName));
    for (const { fileName } of typeReferenceDirectives) {
      if (fileName !== 'node' && !reached.has(`@types/${fileName}`))
        reached.set(`@types/${fileName}`, relative(ROOT, file));
    }
  }
  return reached;
}

/*
 * A package without its own declarations is typed by @types/<name>, which the API user's compiler needs as much
 * (an import of `ws` without @types/ws is error TS7016 under `strict`).
 */
function typesPackage(name: string): string {
  const manifestPath = join(ROOT, 'node_modules', name, 'package.json');
  if (!existsSync(manifestPath)) return name;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    types?: string;
    typings?: string;
    exports?: unknown;
  };
  const ownTypes =
    manifest.types !== undefined ||
    manifest.typings !== undefined ||
    JSON.stringify(manifest.exports ?? null).includes('"types"') ||
    existsSync(join(ROOT, 'node_modules', name, 'index.d.ts'));
  return ownTypes || name.startsWith('@types/')
    ? name
    : `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

describe("each package's published types", () => {
  const dirs = workspaceDirs();
  beforeAll(() => assertBuiltUpToDate(dirs.filter((dir) => existsSync(join(ROOT, dir, 'tsconfig.json')))));

  it.each(dirs.map((dir) => [dir]))('%s: its .d.ts files import only packages npm installs with it', (dir) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
    // Private packages (the benchmarks, the template) are never installed from npm.
    if (manifest.types === undefined || manifest.private === true) return;
    const optional = new Set(
      Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional === true)
        .map(([name]) => name),
    );
    const installed = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optional.has(name)),
    ]);
    const entry = join(ROOT, dir, manifest.types);
    expect(existsSync(entry)).toBe(true);
    const missing = [...packagesReachedBy(entry)]
      .flatMap(([name, file]): [string, string][] => [
        [name, file],
        [typesPackage(name), file],
      ])
      .filter(([name], index, all) => all.findIndex(([other]) => other === name) === index)
      .filter(([name]) => name !== manifest.name && !installed.has(name))
      .map(([name, file]) => `${name} (imported by ${file})`);
    expect(missing).toEqual([]);
  });
});

/*
 * What a user's strict compiler reports in our published types, skipLibCheck off: the .d.ts files are compiled as
 * they are published, without the ambient shims under src/types that the build sees. wiki-navigator's types named
 * `Database` from a local better-sqlite3 shim, which a user's compiler resolves to @types/better-sqlite3, where
 * `Database` is not a type (TS2709 in dist/corpus/store-search.d.ts). Errors inside third-party packages' own
 * types (tfjs, @huggingface/jinja) are theirs, not ours, and left out.
 */
describe('the published types, compiled as a strict user compiles them', () => {
  it('have no errors in any package of ours', () => {
    const entries = workspaceDirs().flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
      return manifest.types === undefined || manifest.private === true ? [] : [join(ROOT, dir, manifest.types)];
    });
    const program = ts.createProgram(entries, {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: ['node'],
    });
    const ours = (fileName: string): boolean =>
      !relative(ROOT, fileName).startsWith('..') && !relative(ROOT, fileName).split(/[\\/]/).includes('node_modules');
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file === undefined || ours(diagnostic.file.fileName))
      .map((diagnostic) => {
        const where = diagnostic.file
          ? `${relative(ROOT, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: `
          : '';
        return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
    expect(errors).toEqual([]);
  });
});
