import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '../registry';
import { discoverPlugins, loadPlugins } from './discover-plugins';

function fakePackage(root: string, name: string, body: string, register = './register.js'): string {
  const directory = join(root, 'node_modules', ...name.split('/'));
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name, version: '1.2.3', turngym: { register } }));
  writeFileSync(join(directory, 'register.js'), body);
  return directory;
}

const REGISTER = (id: string) => `
const { ExampleEnv } = require(${JSON.stringify(join(__dirname, '..', '..', '..', '..', 'templates', 'env', 'src', 'example-env.ts'))});
exports.register = (registry) => registry.register({ id: '${id}', entryPoint: () => new ExampleEnv() });`;

describe('plugin discovery', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-plugins-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds @turngym/env-*, turngym-env-* and scoped contrib packages that declare a register module', () => {
    fakePackage(root, '@turngym/env-alpha', REGISTER('turngym/alpha-v1'));
    fakePackage(root, 'turngym-env-beta', REGISTER('contrib/beta-v1'));
    fakePackage(root, '@acme/turngym-env-gamma', REGISTER('acme/gamma-v1'));
    fakePackage(root, 'lodash-like', 'exports.register = () => {}');
    const plain = join(root, 'node_modules', '@turngym', 'env-undeclared');
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(plain, 'package.json'), JSON.stringify({ name: '@turngym/env-undeclared' }));
    const found = discoverPlugins({ searchFrom: [join(root, 'some', 'nested', 'dir')] });
    expect(found.map((plugin) => plugin.packageName)).toEqual([
      '@acme/turngym-env-gamma',
      '@turngym/env-alpha',
      'turngym-env-beta',
    ]);
  });

  it('loads them into a registry and reports a broken one without stopping the rest', () => {
    fakePackage(root, '@turngym/env-alpha', REGISTER('turngym/alpha-v1'));
    fakePackage(root, '@turngym/env-broken', 'throw new Error("syntax soup")');
    fakePackage(root, '@turngym/env-unbuilt', '', './dist/missing.js');
    const registry = new Registry();
    const result = loadPlugins(registry, { searchFrom: [root] });
    expect(registry.list()).toEqual(['turngym/alpha-v1']);
    expect(result.loaded.map((plugin) => plugin.packageName)).toEqual(['@turngym/env-alpha']);
    expect(result.failed.map((failure) => failure.error.message)).toEqual([
      'Could not load environment package "@turngym/env-broken": syntax soup',
      expect.stringMatching(/"@turngym\/env-unbuilt": .*missing\.js does not exist \(is the package built\?\)/),
    ]);
  });

  it('loads an explicit package directory and skips ids registered twice through a symlink', () => {
    const directory = fakePackage(root, '@turngym/env-alpha', REGISTER('turngym/alpha-v1'));
    const other = mkdtempSync(join(tmpdir(), 'turngym-plugins-link-'));
    try {
      mkdirSync(join(other, 'node_modules', '@turngym'), { recursive: true });
      symlinkSync(directory, join(other, 'node_modules', '@turngym', 'env-alpha'));
      const registry = new Registry();
      const result = loadPlugins(registry, { searchFrom: [other], modules: [directory] });
      expect(result.failed).toEqual([]);
      expect(registry.list()).toEqual(['turngym/alpha-v1']);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  // A contributor's copy of an installed env under a package name of its own (`turngym new-env math-thought
  // --contrib`), loaded with `--plugin .`, was skipped without a word: `turngym check` passed the installed env.
  it("refuses a named package that registers an id another package holds, naming both; its own register module's path is the same package", () => {
    const installed = fakePackage(root, '@turngym/env-alpha', REGISTER('turngym/alpha-v1'));
    const copy = fakePackage(join(root, 'contrib'), 'turngym-env-alpha-copy', REGISTER('turngym/alpha-v1'));
    const registry = new Registry();
    const result = loadPlugins(registry, { searchFrom: [root], modules: [copy] });
    expect(result.failed.map(({ packageName, requested, error }) => [packageName, requested, error.message])).toEqual([
      [
        'turngym-env-alpha-copy',
        true,
        'Could not load environment package "turngym-env-alpha-copy": it registers turngym/alpha-v1, which ' +
          '@turngym/env-alpha already registers: the installed env would be used in its place. Give your env an id ' +
          "of its own (its register()'s id).",
      ],
    ]);
    const again = loadPlugins(new Registry(), { searchFrom: [root], modules: [join(installed, 'register.js')] });
    expect(again.failed).toEqual([]);
  });

  it('reports a named module that cannot load as requested, saying what is wrong with the path', () => {
    const notAPackage = join(root, 'just a folder');
    mkdirSync(notAPackage);
    const broken = join(root, 'broken-register.js');
    writeFileSync(broken, 'throw new Error("syntax soup")');
    const registry = new Registry();
    const result = loadPlugins(registry, {
      searchFrom: [root],
      modules: [join(root, 'missing'), notAPackage, broken],
    });
    expect(result.failed.map(({ requested, error }) => [requested, error.message])).toEqual([
      [true, `Could not load environment package "${join(root, 'missing')}": ${join(root, 'missing')} does not exist`],
      [true, expect.stringContaining(`${notAPackage} is a directory without a package.json that declares "turngym"`)],
      [true, `Could not load environment package "${broken}": syntax soup`],
    ]);
  });

  // `--plugin notes.txt` (a file that is not JavaScript) said only "Unexpected token ':'".
  it('says that a named file which does not parse is not a JavaScript module, naming it', () => {
    const notes = join(root, 'notes.txt');
    writeFileSync(notes, 'root:x:0:0\n');
    const result = loadPlugins(new Registry(), { searchFrom: [root], modules: [notes] });
    expect(result.failed.map(({ error }) => error.message)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Could not load environment package ".*notes\\.txt": .*notes\\.txt is not a JavaScript module \\(SyntaxError: `,
        ),
      ),
    ]);
  });
});
