import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorLines, REPO_ROOT, runBuiltCli } from './helpers/run-built-cli';

describe('turngym new-env', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-new-env-'));
    // What `npm install` gives a standalone package: core, spec and Node's types in node_modules.
    mkdirSync(join(directory, 'node_modules', '@turngym'), { recursive: true });
    mkdirSync(join(directory, 'node_modules', '@types'), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'packages', 'core'), join(directory, 'node_modules', '@turngym', 'core'));
    symlinkSync(join(REPO_ROOT, 'packages', 'spec'), join(directory, 'node_modules', '@turngym', 'spec'));
    symlinkSync(join(REPO_ROOT, 'node_modules', '@types', 'node'), join(directory, 'node_modules', '@types', 'node'));
    // What its devDependencies give `npm test`: jest's swc transform.
    symlinkSync(join(REPO_ROOT, 'node_modules', '@swc'), join(directory, 'node_modules', '@swc'), 'dir');
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('scaffolds a package that compiles, loads with --plugin and passes check untouched', async () => {
    const created = await runBuiltCli(['new-env', 'lantern-maze', '--dir', directory]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created @turngym/env-lantern-maze (turngym/lantern-maze-v1)');
    // Outside the monorepo the next steps end with the package's own tests.
    expect(created.stdout).toMatch(/npm test {3}\(its tests, in .*lantern-maze\)/);
    const target = join(directory, 'lantern-maze');
    const source = readFileSync(join(target, 'src', 'lantern-maze-env.ts'), 'utf8');
    expect(source).toContain('export class LanternMazeEnv extends BaseEnv');
    expect(source).toContain("id: 'turngym/lantern-maze-v1'");
    expect(source).not.toMatch(/Example[A-Z]|EXAMPLE_|example-(env|options|solver|v1)|env-example/);
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as {
      name: string;
      turngym: unknown;
    };
    expect(manifest).toMatchObject({ name: '@turngym/env-lantern-maze', turngym: { register: './dist/register.js' } });
    expect(readFileSync(join(target, 'README.md'), 'utf8')).toContain(
      "import { register, LanternMazeSolver } from '@turngym/env-lantern-maze';",
    );

    const tsc = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', target],
      { encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);

    // The printed next steps, run as printed: after `cd <package>`, `--plugin .` is the package.
    expect(created.stdout).toContain('  turngym --plugin . check turngym/lantern-maze-v1');
    const checked = await runBuiltCli(['--plugin', '.', 'check', 'turngym/lantern-maze-v1'], { cwd: target });
    expect(checked.stdout).toMatch(/turngym\/lantern-maze-v1: all \d+ checks passed/);
    expect(checked.code).toBe(0);
    const run = await runBuiltCli([
      '--plugin',
      target,
      'run',
      'turngym/lantern-maze-v1',
      '--agent',
      'scripted',
      '--episodes',
      '3',
      '--json',
    ]);
    expect((JSON.parse(run.stdout) as { summary: { successRate: number } }).summary.successRate).toBe(1);
  });

  it('inside a monorepo, prints next steps that run as printed (the CLI through npx) and formats with its prettier', async () => {
    // A monorepo with the repository's prettier and settings, as a TurnGym checkout has them.
    const mono = join(directory, 'mono');
    mkdirSync(join(mono, 'node_modules'), { recursive: true });
    writeFileSync(join(mono, 'package.json'), JSON.stringify({ name: 'mono', workspaces: ['environments/*'] }));
    writeFileSync(join(mono, 'tsconfig.base.json'), '{}');
    copyFileSync(join(REPO_ROOT, '.prettierrc.json'), join(mono, '.prettierrc.json'));
    symlinkSync(join(REPO_ROOT, 'node_modules', 'prettier'), join(mono, 'node_modules', 'prettier'), 'dir');
    const created = await runBuiltCli(['new-env', 'coin-flip', '--dir', join(mono, 'environments')]);
    expect(created.code).toBe(0);
    // `turngym` is the monorepo's workspace bin, on no PATH: a bare `turngym check` is "command not found".
    expect(created.stdout).toMatch(/&& npx turngym check turngym\/coin-flip-v1$/m);
    expect(created.stdout).not.toMatch(/(^ *|&& )turngym /m);
    expect(created.stdout).toContain("(formatted with the project's prettier)");
    // A long name pushes the template's imports and calls over the line width, and JSON.stringify breaks every
    // array of tsconfig.json: as written, both failed the project's `prettier --check` (which CI runs).
    const long = `lantern-maze-${'x'.repeat(51)}`;
    expect((await runBuiltCli(['new-env', long, '--dir', join(mono, 'environments')])).code).toBe(0);
    const prettier = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--list-different', 'environments'],
      { cwd: mono, encoding: 'utf8' },
    );
    expect(prettier.stdout.split('\n').filter(Boolean)).toEqual([]);
    expect(prettier.status).toBe(0);
    expect(readFileSync(join(mono, 'environments', 'coin-flip', 'tsconfig.json'), 'utf8')).toContain(
      '"include": ["src"],',
    );
  });

  it('scaffolds a package that compiles under the longest name, its long lines wrapped', async () => {
    const name = 'lantern-maze-of-the-old-keeper-who-guards-the-northern-gate-abcd';
    const created = await runBuiltCli(['new-env', name, '--dir', directory]);
    expect(created.code).toBe(0);
    const target = join(directory, name);
    const tsc = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', target],
      { encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    const checked = await runBuiltCli(['--plugin', target, 'check', `turngym/${name}-v1`]);
    expect(checked.stdout).toMatch(/all \d+ checks passed/);
  });

  // A contributor replaces the task and runs the package's own tests. Two common mistakes pass a checker that plays
  // only the expert with the default options: Math.random on a path the expert never takes (a missing key), and a
  // spawn() that drops the options (the default fork then replays into a default-sized store).
  it("the package's own tests pass untouched and catch mistakes the expert's default checker run misses", async () => {
    const name = 'dice-cellar';
    expect((await runBuiltCli(['new-env', name, '--dir', directory])).code).toBe(0);
    const target = join(directory, name);
    const jest = (): { status: number | null; output: string; failed: string[] } => {
      const output = join(target, 'jest-result.json');
      const run = spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--json', `--outputFile=${output}`],
        { cwd: target, encoding: 'utf8' },
      );
      const result = JSON.parse(readFileSync(output, 'utf8')) as {
        testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }>;
      };
      const failed = result.testResults.flatMap((file) =>
        file.assertionResults.filter((test) => test.status === 'failed').map((test) => test.title),
      );
      return { status: run.status, output: run.stdout + run.stderr, failed };
    };
    const untouched = jest();
    expect(untouched.failed).toEqual([]);
    expect(untouched.output).toMatch(/Tests: +\d+ passed, \d+ total/);
    expect(untouched.status).toBe(0);

    const envFile = join(target, 'src', `${name}-env.ts`);
    const missing = 'value === undefined ? `LOOKUP ${key}: no such key.`';
    const spawn = 'return new DiceCellarEnv(this.options);';
    const source = readFileSync(envFile, 'utf8');
    expect(source).toContain(missing);
    expect(source).toContain(spawn);
    writeFileSync(
      envFile,
      source
        // A draw that differs between two replays (a coin flip can come out the same in both, and did).
        .replace(missing, 'value === undefined ? `LOOKUP ${key}: no such key (${Math.random()}).`')
        .replace(spawn, 'return new DiceCellarEnv();'),
    );
    const mistaken = jest();
    expect(mistaken.status).toBe(1);
    expect(mistaken.failed).toEqual([
      expect.stringMatching(/options other than the defaults/),
      expect.stringMatching(/random agent plays/),
    ]);
    expect(mistaken.output).toMatch(/seed determinism .*unseeded randomness such as Math\.random/);
    expect(mistaken.output).toMatch(/fork equivalence — the fork after step \d+ does not continue like the original/);
  });

  it('refuses to overwrite a non-empty directory and rejects names that are not kebab-case', async () => {
    const again = await runBuiltCli(['new-env', 'lantern-maze', '--dir', directory]);
    expect(again.code).toBe(2);
    expect(errorLines(again.stderr)).toEqual([expect.stringMatching(/already exists and is not empty/)]);
    const bad = await runBuiltCli(['new-env', 'LanternMaze', '--dir', directory]);
    expect(bad.code).toBe(2);
    expect(errorLines(bad.stderr)).toEqual([expect.stringMatching(/must be kebab-case/)]);
  });
});
