import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
];
/** Workspace libraries some env packages depend on (packed and installed alongside, as npm would fetch them). */
const LIBRARY_PACKAGE_DIRS: readonly string[] = ['packages/spec', 'packages/core', 'packages/llm', 'packages/search'];

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

function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

describe('installing one environment package on its own', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-single-install-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('packs spec, core and each env package, installs the tarballs in an empty project and plays an episode', () => {
    const packageDirs = [...LIBRARY_PACKAGE_DIRS, ...ENV_PACKAGE_DIRS];
    // `npm pack` packs dist/: the packages must be built since their sources last changed.
    assertBuiltUpToDate(builtPackageDirs(packageDirs));
    const tarballs = join(directory, 'tarballs');
    mkdirSync(tarballs);
    const envPackages: string[] = [];
    for (const packageDir of packageDirs) {
      const packed = JSON.parse(
        run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tarballs], join(REPO_ROOT, packageDir))
          .stdout,
      ) as { name: string }[];
      if (ENV_PACKAGE_DIRS.includes(packageDir)) envPackages.push((packed[0] as { name: string }).name);
    }

    const project = join(directory, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'turngym-consumer', version: '1.0.0', private: true }),
    );
    const files = readdirSync(tarballs).map((file) => join(tarballs, file));
    run('npm', ['install', ...files, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error'], project);
    // Only what was asked for and what it depends on is installed: no CLI, server, lm or rl (no tfjs); llm because
    // env-seller's LLM roles need it, search because its MCTS bot is settings of the generic TreeSearch.
    expect(readdirSync(join(project, 'node_modules', '@turngym')).sort()).toEqual(
      [
        'core',
        'spec',
        'llm',
        'search',
        ...envPackages.filter((name) => name.startsWith('@turngym/')).map((name) => name.slice('@turngym/'.length)),
      ].sort(),
    );

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
        expect({ id: result.id, success: result.success }).toEqual({ id: result.id, success: true });
        expect(result.turns).toBeGreaterThan(0);
      }
    }
  }, 600_000); // isolated-vm compiles from source on install (about 1–3 minutes on 2 cores)
});
