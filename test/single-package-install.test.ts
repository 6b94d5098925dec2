import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isBuiltin } from 'node:module';
import { dirname, join, posix } from 'node:path';
import { findChromium } from '@turngym/env-wiki-navigator';
import { assertBuiltUpToDate, builtPackageDirs } from './helpers/built-output';

const REPO_ROOT = join(__dirname, '..');

/**
 * The env packages a user can install on their own (`npm i @turngym/env-<name>`). Extend this list as
 * environments land; each must install from its tarball plus spec and core alone, and its scripted agent must
 * solve an episode of every id it registers.
 */
const ENV_PACKAGE_DIRS: readonly string[] = [
  'templates/env',
  'environments/math-thought',
  'environments/coding-sandbox',
  'environments/seller',
  'environments/wiki-navigator',
  'environments/mcp-tools',
];
/** Workspace libraries some env packages depend on (packed and installed alongside, as npm would fetch them). */
const LIBRARY_PACKAGE_DIRS: readonly string[] = ['packages/spec', 'packages/core', 'packages/llm', 'packages/search'];
/** The CLI, added to the same project afterwards, with its workspace dependencies (server, leaderboard, …). */
const CLI_PACKAGE_DIR = 'packages/cli';
/**
 * What `npm i @turngym/cli` must not download: the LM (tfjs, ~290 MB with its backends), the trainers, the
 * report (through @turngym/rl) and the MCP SDK are optional peers that the commands needing them ask for.
 */
const OPTIONAL_CLI_PACKAGES: readonly string[] = [
  '@turngym/lm',
  '@turngym/rl',
  '@turngym/report',
  '@turngym/mcp',
  '@turngym/trainer-alphazero',
  '@turngym/trainer-ccapo',
  '@turngym/trainer-gigpo',
  '@turngym/trainer-grpo',
  '@turngym/trainer-plan-act',
  '@turngym/trainer-self-ac',
  '@turngym/trainer-sft',
  '@turngym/trainer-tree-grpo',
];

/** What a consumer project runs: plain CommonJS, no TurnGym tooling, only the installed packages. */
const CONSUMER_SCRIPT = `
const { Registry, runEpisode } = require('@turngym/core');
(async () => {
  const results = [];
  for (const packageName of process.argv.slice(2)) {
    const resolvedFrom = require.resolve(packageName);
    const { register } = require(packageName);
    const registry = new Registry();
    register(registry);
    for (const id of registry.list()) {
      const env = await registry.make(id);
      const agent = registry.makeAgent(id, 'scripted', { env, seed: 0 });
      const outcome = await runEpisode(env, agent, 0);
      await env.close();
      results.push({ packageName, resolvedFrom, id, success: outcome.success, turns: outcome.turns });
    }
  }
  console.log(JSON.stringify(results));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

/**
 * A package README's TypeScript example that imports the package itself (its quickstart), as a user copies it.
 * No test compiled them, so an example could drift from the published API or types unnoticed.
 */
function readmeQuickstart(packageDir: string, name: string): string {
  const readme = readFileSync(join(REPO_ROOT, packageDir, 'README.md'), 'utf8');
  const example = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)]
    .map((match) => match[1] as string)
    .find((code) => code.includes(`from '${name}'`));
  if (example === undefined) throw new Error(`${packageDir}/README.md has no \`\`\`ts example importing ${name}`);
  return example;
}

/**
 * The native addons the env packages depend on, and where each keeps its binary inside its package. A user
 * online gets them prebuilt: their install script runs prebuild-install, which downloads the binary for the
 * platform from GitHub. These machines reach only the npm registry, so each would compile from source instead
 * (2–3 CPU-minutes apiece, most of this suite's time). The test hands prebuild-install the monorepo's build of
 * the same version as a local prebuild (its `local-prebuilds` setting): it unpacks and loads it exactly as a
 * downloaded one. A version the monorepo does not hold has no such file and compiles as before.
 */
const NATIVE_ADDONS: readonly { name: string; binary: string }[] = [
  { name: 'isolated-vm', binary: 'out/isolated_vm.node' },
  { name: 'better-sqlite3', binary: 'build/Release/better_sqlite3.node' },
];

/**
 * Writes prebuild-install's archive of the monorepo's build of each native addon into `directory`, named as
 * prebuild-install names a download (`<name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`), and points
 * prebuild-install at them from `project`: its rc file, which it looks for from the addon's directory
 * upwards (npm's own `npm_config_*` would make npm warn about a setting it does not know, and an environment
 * variable named `prebuild-install_…` does not survive the shell npm runs install scripts in).
 */
function useLocalPrebuilds(directory: string, project: string): void {
  for (const { name, binary } of NATIVE_ADDONS) {
    const packageDir = dirname(require.resolve(`${name}/package.json`));
    if (!existsSync(join(packageDir, binary))) continue;
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
    const archive = `${name}-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    run('tar', ['-czf', join(directory, archive), '-C', packageDir, binary], packageDir);
  }
  writeFileSync(join(project, '.prebuild-installrc'), `local-prebuilds=${directory}\n`);
}

/** npm without its network chatter: only the registry for third-party packages, the tarballs for ours. */
const NPM_ENV = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

function spawn(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', env: NPM_ENV, maxBuffer: 64 * 1024 * 1024 });
}

function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawn(command, args, cwd);
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** One packed package: what `npm pack --json` reports. */
interface Packed {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly { path: string }[];
}

/**
 * The relative `require('./x')` / `require('../x')` calls of a shipped script that do not land on a file the
 * tarball ships: a script that reaches into the monorepo (`../../../scripts/…`) works in a checkout only.
 */
function unresolvedRequires(packageDir: string, file: string, shipped: ReadonlySet<string>): string[] {
  const text = readFileSync(join(REPO_ROOT, packageDir, file), 'utf8');
  const missing: string[] = [];
  // Not one inside a string (the coding sandbox's adversarial programs are code as data).
  for (const match of text.matchAll(/(?<!['"`])\brequire\((['"])(\.\.?\/[^'"]*)\1\)/g)) {
    const target = posix.normalize(posix.join(posix.dirname(file), match[2] as string));
    const candidates = [target, `${target}.js`, `${target}.json`, `${target}/index.js`];
    if (!candidates.some((candidate) => shipped.has(candidate))) missing.push(`${file}: require('${match[2]}')`);
  }
  return missing;
}

/**
 * Packages a shipped script may require without declaring them: optional, loaded in a try/catch that carries
 * on without them or says what to install.
 */
const OPTIONAL_REQUIRES: Readonly<Record<string, readonly string[]>> = {
  // `local:` agents (@turngym/lm is heavy) and `plan-act:` agents (trainer-plan-act depends on the leaderboard).
  '@turngym/leaderboard': ['@turngym/lm', '@turngym/trainer-plan-act'],
  // The Chrome that a full `puppeteer` install downloaded, if the user has one.
  '@turngym/env-wiki-navigator': ['puppeteer'],
};

/** `x` of `x`, `x/deep/path`, `@scope/x/deep`; undefined for a relative path or a Node built-in. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || isBuiltin(specifier)) return undefined;
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/**
 * The packages a shipped file loads (`.js`) or names in its types (`.d.ts`) that its package.json does not
 * declare: npm installs only what is declared, so in a user's project they are missing (a crash, or with
 * skipLibCheck types that silently become `any`); in the monorepo every workspace package is there.
 */
function undeclaredImports(packageDir: string, packed: Packed, file: string): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, packageDir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const declared = new Set([
    packed.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const types = file.endsWith('.d.ts');
  if (!types) for (const optional of OPTIONAL_REQUIRES[packed.name] ?? []) declared.add(optional);
  const text = readFileSync(join(REPO_ROOT, packageDir, file), 'utf8');
  const pattern = types ? /(?:from |import\()(['"])([^'"]+)\1/g : /require(?:\.resolve)?\((['"])([^'"]+)\1/g;
  const missing = new Set<string>();
  for (const match of text.matchAll(pattern)) {
    const name = packageOf(match[2] as string);
    if (name && !declared.has(name))
      missing.add(`${file}: ${types ? 'types from' : 'require of'} ${name}, not a dependency`);
  }
  return [...missing];
}

/**
 * What is wrong with one tarball's file list: build leftovers, test files, source maps to unshipped sources,
 * scripts that reach outside the package, imports of undeclared packages.
 */
function tarballProblems(packageDir: string, packed: Packed): string[] {
  const shipped = new Set(packed.files.map((file) => file.path));
  const problems: string[] = [];
  // MIT asks that its notice travel with every copy: each tarball carries the repository's LICENSE.
  const license = join(REPO_ROOT, packageDir, 'LICENSE');
  if (!shipped.has('LICENSE')) problems.push('no LICENSE in the tarball');
  else if (readFileSync(license, 'utf8') !== readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8'))
    problems.push('LICENSE differs from the repository root LICENSE');
  for (const file of shipped) {
    if (file.endsWith('.tsbuildinfo')) problems.push(`${file}: tsc's build state (paths of the build machine)`);
    // The CLI's template/ is what `new-env` copies, its test included: a scaffold comes with its test.
    const testFile = /(^|\/)__fixtures__\//.test(file) || /\.test\.[cm]?[jt]s$/.test(file);
    if (testFile && !file.startsWith('template/')) problems.push(`${file}: a test file`);
    // Files that exist only while packing (the CLI's template/, removed by its postpack) are not read.
    if (!existsSync(join(REPO_ROOT, packageDir, file))) continue;
    if (/\.(d\.ts|[cm]?js)$/.test(file)) problems.push(...undeclaredImports(packageDir, packed, file));
    if (file.endsWith('.map')) {
      const { sources = [] } = JSON.parse(readFileSync(join(REPO_ROOT, packageDir, file), 'utf8')) as {
        sources?: string[];
      };
      for (const source of sources) {
        const path = posix.normalize(posix.join(posix.dirname(file), source));
        if (!shipped.has(path)) problems.push(`${file}: maps to ${path}, which is not shipped`);
      }
    }
    if (/\.[cm]?js$/.test(file)) problems.push(...unresolvedRequires(packageDir, file, shipped));
  }
  return problems.map((problem) => `${packed.name}: ${problem}`);
}

describe('TurnGym packages installed from their tarballs, outside the monorepo', () => {
  let directory: string;
  let project: string;
  /** Tarball path by package name, and what each ships, for every package the CLI and the envs need. */
  const tarballs = new Map<string, string>();
  const packedDirs = new Map<string, Packed>();

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-single-install-'));
    // Everything npm would fetch for the CLI and the env packages: each one's workspace dependencies too.
    const packageDirs = builtPackageDirs([...LIBRARY_PACKAGE_DIRS, ...ENV_PACKAGE_DIRS, CLI_PACKAGE_DIR]);
    // `npm pack` packs dist/: the packages must be built since their sources last changed.
    assertBuiltUpToDate(packageDirs);
    const destination = join(directory, 'tarballs');
    mkdirSync(destination);
    // One npm for all of them (an npm start-up costs about a second). Lifecycle scripts run, as on
    // `npm publish`: the CLI's prepack copies the env template into it. --silent keeps their banners out of
    // the JSON on stdout.
    const packed = JSON.parse(
      run(
        'npm',
        [
          'pack',
          ...packageDirs.flatMap((dir) => ['--workspace', dir]),
          '--json',
          '--silent',
          '--pack-destination',
          destination,
        ],
        REPO_ROOT,
      ).stdout,
    ) as Packed[];
    // npm lists them in its own order: match them to their directories by name.
    for (const dir of packageDirs) {
      const { name } = JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as { name: string };
      const entry = packed.find((candidate) => candidate.name === name);
      if (!entry) throw new Error(`npm pack did not pack ${dir} (${name})`);
      tarballs.set(name, join(destination, entry.filename));
      packedDirs.set(dir, entry);
    }
    project = join(directory, 'project');
    mkdirSync(project);
    const prebuilds = join(directory, 'prebuilds');
    mkdirSync(prebuilds);
    useLocalPrebuilds(prebuilds, project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'turngym-consumer', version: '1.0.0', private: true }),
    );
  }, 120_000);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const tarballOf = (dir: string): string => tarballs.get((packedDirs.get(dir) as Packed).name) as string;
  /**
   * The tarballs npm installs for `npm i <name>`: the package and its workspace `dependencies`, transitively;
   * optional peers are not installed (npm 7+ installs only the required ones).
   */
  const installedWith = (name: string): string[] => {
    const seen = new Set<string>();
    const pending = [name];
    while (pending.length > 0) {
      const next = pending.pop() as string;
      if (seen.has(next) || !tarballs.has(next)) continue;
      seen.add(next);
      const dir = [...packedDirs].find(([, packed]) => packed.name === next)?.[0] as string;
      const manifest = JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      pending.push(...Object.keys(manifest.dependencies ?? {}));
    }
    return [...seen].map((installed) => tarballs.get(installed) as string);
  };

  it('ships what the code loads and none of the build leftovers: no tsbuildinfo, maps without sources, tests', () => {
    const problems = [...packedDirs].flatMap(([dir, packed]) => tarballProblems(dir, packed));
    expect(problems).toEqual([]);
    // Files the code reads at run time, beside dist/.
    const shipped = (dir: string): string[] => (packedDirs.get(dir) as Packed).files.map((file) => file.path);
    expect(shipped('environments/mcp-tools')).toEqual(
      expect.arrayContaining(['dist/demo-server.js', 'tasks/demo-tasks.jsonl', 'suites/mcp-demo-v1.json']),
    );
    expect(shipped('benchmarks/leaderboard')).toEqual(
      expect.arrayContaining(['suites/quick-v1.json', 'suites/full-v1.json']),
    );
    expect(shipped(CLI_PACKAGE_DIR)).toEqual(expect.arrayContaining(['bin/turngym.js', 'template/manifest.json']));
    for (const packed of packedDirs.values()) expect(packed.files.map((file) => file.path)).toContain('README.md');
  });

  describe('the env packages, each on its own', () => {
    let envPackages: string[];
    beforeAll(() => {
      envPackages = ENV_PACKAGE_DIRS.map((dir) => (packedDirs.get(dir) as Packed).name);
      const files = [...LIBRARY_PACKAGE_DIRS, ...ENV_PACKAGE_DIRS].map(tarballOf);
      run('npm', ['install', ...files, '--prefer-offline', '--loglevel', 'error'], project);
    }, 600_000); // a native addon of another version than the monorepo's compiles from source (minutes)

    it('install without the CLI, server, lm or rl (no tfjs)', () => {
      // Only what was asked for and what it depends on is installed: llm because env-seller's LLM roles need
      // it, search because its MCTS bot is settings of the generic TreeSearch.
      expect(readdirSync(join(project, 'node_modules', '@turngym')).sort()).toEqual(
        [
          'core',
          'spec',
          'llm',
          'search',
          ...envPackages.filter((name) => name.startsWith('@turngym/')).map((name) => name.slice('@turngym/'.length)),
        ].sort(),
      );
      expect(existsSync(join(project, 'node_modules', '@tensorflow'))).toBe(false);
    });

    it("play an episode of every id they register with its scripted agent, from node_modules' files", () => {
      writeFileSync(join(project, 'play.js'), CONSUMER_SCRIPT);
      const results = JSON.parse(run(process.execPath, ['play.js', ...envPackages], project).stdout) as {
        packageName: string;
        resolvedFrom: string;
        id: string;
        success: boolean;
        turns: number;
      }[];
      for (const name of envPackages) {
        const played = results.filter((result) => result.packageName === name);
        expect(played.length).toBeGreaterThan(0);
        for (const result of played) {
          expect(result.resolvedFrom.startsWith(join(project, 'node_modules'))).toBe(true);
          // Each package's scripted agent solves its seed-0 episode of every id (the id in the failure message).
          // env-mcp-tools' episode runs its bundled demo MCP server and reads its demo tasks from the package.
          expect({ id: result.id, success: result.success }).toEqual({ id: result.id, success: true });
          expect(result.turns).toBeGreaterThan(0);
        }
      }
    });

    it('their README quickstarts compile against the installed types (strict) and run as written', () => {
      // As a user's ES module with top-level await: TypeScript resolves each import to the installed package's types.
      // skipLibCheck as `tsc --init` writes it: this checks the examples against the API, not the .d.ts files themselves.
      const examples = ENV_PACKAGE_DIRS.map((dir, i) => {
        const file = `readme-${i}.mts`;
        writeFileSync(join(project, file), readmeQuickstart(dir, envPackages[i] as string));
        return { dir, file };
      });
      writeFileSync(
        join(project, 'tsconfig.readme.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'nodenext',
            target: 'es2022',
            strict: true,
            skipLibCheck: true,
            outDir: 'readme-out',
            typeRoots: [join(dirname(require.resolve('@types/node/package.json')), '..')],
            types: ['node'],
          },
          files: examples.map(({ file }) => file),
        }),
      );
      run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.readme.json'], project);
      // wiki-navigator's example also drives a real browser: it runs where Chromium is (always in CI).
      const browser = findChromium() !== undefined || process.env.TURNGYM_REQUIRE_CHROMIUM === '1';
      for (const { dir, file } of examples) {
        if (dir === 'environments/wiki-navigator' && !browser) continue;
        const ran = spawn(process.execPath, [join('readme-out', file.replace(/\.mts$/, '.mjs'))], project);
        expect({ dir, status: ran.status, stderr: ran.stderr }).toEqual({ dir, status: 0, stderr: expect.any(String) });
        // Each ends with the scripted agent's episode, printed: `{ … success: true … }` (seller's may lose).
        if (dir !== 'environments/seller') expect(ran.stdout).toMatch(/success: true/);
      }
    }, 300_000); // tsc over the installed types, then six episodes (one drives Chromium)

    it("env-wiki-navigator's turngym-wiki-convert bin turns a dump into a SQLite store (better-sqlite3 installed)", () => {
      run('npx', ['--no', '--', 'turngym-wiki-convert', '--synthetic-dump', 'dump.xml', '--articles', '20'], project);
      run('npx', ['--no', '--', 'turngym-wiki-convert', 'dump.xml', 'store.sqlite'], project);
      expect(run('npx', ['--no', '--', 'turngym-wiki-convert', '--stats', 'store.sqlite'], project).stdout).toContain(
        'store.sqlite: 20 articles',
      );
    });

    describe('with @turngym/cli added to the project', () => {
      /** `npx --no turngym …` in the project: the bin npm linked (never one fetched from the registry), the CLI and env packages from node_modules. */
      const turngym = (...args: string[]): SpawnSyncReturns<string> =>
        spawn('npx', ['--no', '--', 'turngym', ...args], project);
      const expectSuccess = (result: SpawnSyncReturns<string>): void =>
        expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });

      beforeAll(() => {
        // The CLI and the workspace packages it depends on (what the registry would serve for
        // `npm i @turngym/cli`), into the same project: the env packages and their native builds are reused.
        run('npm', ['install', ...installedWith('@turngym/cli'), '--prefer-offline', '--loglevel', 'error'], project);
      }, 300_000);

      // (The MCP SDK itself is here: env-mcp-tools depends on it.)
      it('`npm i @turngym/cli` is lean: no LM, tfjs, trainers, report or MCP server', () => {
        const installed = readdirSync(join(project, 'node_modules', '@turngym')).map((name) => `@turngym/${name}`);
        expect(installed).toContain('@turngym/cli');
        expect(installed.filter((name) => OPTIONAL_CLI_PACKAGES.includes(name))).toEqual([]);
        expect(existsSync(join(project, 'node_modules', '@tensorflow'))).toBe(false);
        // Every optional package is a declared optional peer, so npm checks its version when the user adds it.
        const manifest = JSON.parse(readFileSync(join(REPO_ROOT, CLI_PACKAGE_DIR, 'package.json'), 'utf8')) as {
          peerDependenciesMeta?: Record<string, { optional?: boolean }>;
        };
        const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {})
          .filter(([, meta]) => meta.optional === true)
          .map(([name]) => name);
        expect(optionalPeers.sort()).toEqual(OPTIONAL_CLI_PACKAGES.filter((name) => name !== '@turngym/rl').sort());
      });

      it('a command whose package is not installed says, in one line, what to install (exit 2, no stack)', () => {
        const needs = (args: string[], name: string): void => {
          const result = turngym(...args);
          expect({ status: result.status, stderr: result.stderr }).toEqual({
            status: 2,
            stderr: `error: This command needs ${name}, which is not installed: npm i ${name}\n`,
          });
        };
        needs(['train', 'grpo', '--env', 'turngym/math-thought-v1', '--run-dir', 'runs/grpo'], '@turngym/trainer-grpo');
        needs(['serve-model', '--checkpoint', 'tiny-1m'], '@turngym/lm');
        needs(['lm', 'generate', '--checkpoint', 'tiny-1m', '--prompt', 'hi'], '@turngym/lm');
        // An agent (or env role) on a local checkpoint: said "call registerLocalChatModelProvider()" before.
        const local = turngym('run', 'turngym/math-thought-v1', '--agent', 'local:tiny-1m', '--episodes', '1');
        expect({ status: local.status, stderr: local.stderr }).toEqual({
          status: 2,
          stderr:
            'error: Cannot use chat model "local:tiny-1m": This command needs @turngym/lm, which is not installed: npm i @turngym/lm\n',
        });
        // Nothing was started or written for the refused run.
        expect(existsSync(join(project, 'runs', 'grpo'))).toBe(false);
        const mcp = turngym('serve', 'turngym/math-thought-v1', '--mcp');
        expect({ status: mcp.status, stderr: mcp.stderr }).toEqual({
          status: 2,
          stderr: 'error: turngym serve --mcp needs @turngym/mcp, which is not installed: npm i @turngym/mcp\n',
        });
      });

      it('`turngym list` finds every installed env package', () => {
        const result = turngym('list', '--json');
        expectSuccess(result);
        const listed = JSON.parse(result.stdout) as { id: string; packageName: string }[];
        expect(listed.map((env) => env.packageName)).toEqual(expect.arrayContaining(envPackages));
        expect(listed.map((env) => env.id)).toEqual(
          expect.arrayContaining(['turngym/math-thought-v1', 'turngym/mcp-tools-v1', 'turngym/example-v1']),
        );
      });

      it('`turngym run` and `turngym check` work on installed envs (mcp-tools with its bundled demo server)', () => {
        const ran = turngym('run', 'turngym/math-thought-v1', '--agent', 'scripted', '--episodes', '3', '--json');
        expectSuccess(ran);
        expect(JSON.parse(ran.stdout)).toMatchObject({ summary: { episodes: 3, successes: 3 }, errored: 0 });
        const checked = turngym('check', 'turngym/mcp-tools-v1');
        expectSuccess(checked);
        expect(checked.stdout).toContain('turngym/mcp-tools-v1: all');
      });

      it('`turngym bench` runs the built-in quick suite and a suite file shipped in an env package', () => {
        const quick = turngym('bench', 'quick-v1', '--agent', 'random', '--out', 'runs/quick', '--json');
        expectSuccess(quick);
        const [quickRun] = (JSON.parse(quick.stdout) as { results: { result: BenchResult }[] }).results;
        expect(quickRun?.result.suite.id).toBe('quick-v1');
        // Every env of the suite is installed here: nothing skipped, nothing errored.
        expect(quickRun?.result.skipped).toEqual([]);
        expect(quickRun?.result.overall).toMatchObject({ envs: 8, episodes: 160, errored: 0 });
        expect(existsSync(join(project, 'runs', 'quick', 'index.html'))).toBe(true);

        const suiteFile = join('node_modules', '@turngym', 'env-mcp-tools', 'suites', 'mcp-demo-v1.json');
        const demo = turngym('bench', suiteFile, '--agent', 'scripted', '--out', 'runs/mcp', '--json');
        expectSuccess(demo);
        const [demoRun] = (JSON.parse(demo.stdout) as { results: { result: BenchResult }[] }).results;
        expect(demoRun?.result.overall).toMatchObject({ episodes: 6, errored: 0, success: { mean: 1 } });
      });

      it('`turngym new-env` scaffolds, from the installed template, a package that builds and passes the checker', () => {
        const created = turngym('new-env', 'my-env', '--dir', 'envs');
        expectSuccess(created);
        const envDir = join(project, 'envs', 'my-env');
        // Nothing in it points back into a TurnGym checkout.
        for (const file of ['package.json', 'tsconfig.json'])
          expect(readFileSync(join(envDir, file), 'utf8')).not.toMatch(/\.\.\/\.\.\/|file:|workspace:/);
        // The scaffold's own devDependencies would download jest and swc: the repository's tsc builds it
        // instead, against the @turngym packages installed in the project.
        run(
          process.execPath,
          [
            require.resolve('typescript/bin/tsc'),
            '-p',
            envDir,
            '--typeRoots',
            join(dirname(require.resolve('@types/node/package.json')), '..'),
          ],
          project,
        );
        const checked = turngym('--plugin', join('envs', 'my-env'), 'check', 'turngym/my-env-v1');
        expectSuccess(checked);
        expect(checked.stdout).toContain('turngym/my-env-v1: all');
        // The CLI is the project's (on no PATH): the next steps and the README run it through npx, which finds
        // it from the new package's directory; run as printed there, the check passes.
        expect(created.stdout).toContain('  npx turngym --plugin . check turngym/my-env-v1');
        expect(created.stdout).not.toMatch(/^ *turngym /m);
        expect(readFileSync(join(envDir, 'README.md'), 'utf8')).toContain('npx turngym --plugin . check');
        const asPrinted = spawn('npx', ['turngym', '--plugin', '.', 'check', 'turngym/my-env-v1'], envDir);
        expectSuccess(asPrinted);
        expect(asPrinted.stdout).toContain('turngym/my-env-v1: all');
        // Published as it is (DESIGN's "publish it as a package"), it ships its build and none of tsc's leftovers.
        const [scaffoldPack] = JSON.parse(
          run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], envDir).stdout,
        ) as Packed[];
        const scaffoldFiles = (scaffoldPack as Packed).files.map((file) => file.path);
        expect(scaffoldFiles).toEqual(expect.arrayContaining(['dist/register.js', 'README.md']));
        expect(scaffoldFiles.filter((file) => /\.tsbuildinfo$|\.map$/.test(file))).toEqual([]);
      });

      it('after `npm i @turngym/trainer-grpo`, as the message says, the CLI loads the trainer and the LM', () => {
        run(
          'npm',
          ['install', ...installedWith('@turngym/trainer-grpo'), '--prefer-offline', '--loglevel', 'error'],
          project,
        );
        // The trainer's own argument check answers: the CLI found the package the user added beside it.
        const trained = turngym(
          'train',
          'grpo',
          '--env',
          'turngym/math-thought-v1',
          '--run-dir',
          'runs/grpo',
          '--set',
          'notAnArgument=1',
        );
        expect(trained.status).toBe(2);
        expect(trained.stderr).toContain('options has unknown field "notAnArgument"');
        const generated = turngym(
          'lm',
          'generate',
          '--checkpoint',
          'tiny-1m',
          '--prompt',
          'hi',
          '--max-tokens',
          '2',
          '--seed',
          '0',
        );
        expectSuccess(generated);
        expect(JSON.parse(generated.stdout)).toMatchObject({
          checkpoint: 'tiny-1m',
          samples: [{ tokens: [expect.any(Number), expect.any(Number)] }],
        });
      }, 300_000);
    });
  });
});

interface BenchResult {
  suite: { id: string };
  skipped: unknown[];
  overall: Record<string, unknown>;
}
