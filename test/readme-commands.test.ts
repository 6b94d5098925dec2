import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { CliContext, createProgram, processIo } from '@turngym/cli';
import { readEpisodeRecords, runEpisode } from '@turngym/core';
import { ExampleEnv, ExampleSolver } from '@turngym/env-example';
import { ScriptedChatModel, serveChatModel, type ChatModelServer, type ChatRequest } from '@turngym/llm';
import type { Action } from '@turngym/spec';
import { assertCliBuilt, REPO_ROOT } from './helpers/run-built-cli';

// Every command of the root README's "Using it" section, run as written through the `turngym` bin that
// `npx turngym` runs (packages/cli/bin/turngym.js), from an empty working directory. The commands are read from
// README.md, so the README and this test cannot drift. Two rewrites only, because fixed ports may be taken:
// `--port 8000` becomes `--port 0`, and the model URL http://127.0.0.1:8000/v1 becomes a local model server's.

const BIN = join(REPO_ROOT, 'packages', 'cli', 'bin', 'turngym.js');
const README_MODEL_URL = 'http://127.0.0.1:8000/v1';

/** A line of `sh` as argv: quotes group, `#` outside quotes starts a comment. Enough for a README. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (char === ' ' || char === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === '#' && word === undefined) {
      break;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The `npx turngym …` commands of the "Using it" section as written, without `npx turngym`. */
function readmeCommands(): string[][] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = /^## Using it\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```sh block under "## Using it"');
  return block
    .split('\n')
    .map(shellWords)
    .filter((words) => words.length > 0)
    .map((words) => {
      if (words[0] !== 'npx' || words[1] !== 'turngym') throw new Error(`not a turngym command: ${words.join(' ')}`);
      return words.slice(2);
    });
}

/** The two rewrites: a free port for `serve`, the local model server for the README's model URL. */
function withLocalPorts(args: readonly string[], modelUrl: string): string[] {
  return args.map((word, i) => {
    if (word === README_MODEL_URL) return modelUrl;
    return args[i - 1] === '--port' && word === '8000' ? '0' : word;
  });
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnBin(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, bin = BIN) {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => {});
  const finished = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, finished, stdout: () => stdout };
}

/** What a person would type to solve `turngym play turngym/example-v1` on `seed`: the expert's actions. */
async function exampleSolution(seed: number): Promise<string> {
  const env = new ExampleEnv();
  const solver = new ExampleSolver();
  const actions: Action[] = [];
  const recording = {
    name: solver.name,
    start: solver.start.bind(solver),
    act: async (observation: string) => {
      const action = await solver.act(observation);
      actions.push(action);
      return action;
    },
  };
  await runEpisode(env, recording, seed);
  await env.close();
  return `${actions.map(String).join('\n')}\n`;
}

/** A model that ends every episode at once: it calls the SUBMIT tool where there is one, else answers 0. */
function submitAtOnce(request: ChatRequest) {
  const submit = request.tools?.find((tool) => tool.name === 'SUBMIT');
  if (!submit) return 'Answer: 0';
  const required = (submit.parameters as { required?: string[] }).required ?? [];
  return { name: 'SUBMIT', arguments: Object.fromEntries(required.map((name) => [name, '0'])) };
}

/** `serve`: it runs until a signal. Listening and answering /health is success; SIGINT must close it cleanly. */
async function serveAndStop(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Finished> {
  const server = spawnBin(args, cwd, env);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      server.child.stdout.on('data', () => {
        const found = /^serving \S+ at (http:\/\/\S+)/m.exec(server.stdout())?.[1];
        if (found) resolve(found);
      });
      void server.finished.then((result) => reject(new Error(`serve exited (${result.code}): ${result.stderr}`)));
    });
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
  } finally {
    server.child.kill('SIGINT');
  }
  return server.finished;
}

describe('the root README "Using it" commands work as written', () => {
  const commands = readmeCommands();
  let work: string;
  let model: ChatModelServer;
  const results = new Map<string, Finished>();
  const key = (args: readonly string[]): string => args.join(' ');

  beforeAll(async () => {
    assertCliBuilt(); // built, and since its sources (and its packages' and plugins') last changed
    work = mkdtempSync(join(tmpdir(), 'turngym-readme-'));
    model = await serveChatModel(new ScriptedChatModel(submitAtOnce, { id: 'my-model' }), { modelName: 'my-model' });
    const env = { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test' };
    const runOne = async (args: readonly string[]): Promise<void> => {
      const resolved = withLocalPorts(args, model.baseURL);
      if (resolved[0] === 'serve') {
        results.set(key(args), await serveAndStop(resolved, work, env));
        return;
      }
      const seed = resolved.includes('--seed') ? Number(resolved[resolved.indexOf('--seed') + 1]) : 0;
      const input = resolved[0] === 'play' ? await exampleSolution(seed) : '';
      const running = spawnBin(resolved, work, env);
      running.child.stdin.end(input);
      results.set(key(args), await running.finished);
    };
    // Two at a time (2 cores); `leaderboard` reads what `bench` wrote, so it runs after the others.
    const inTurn = async (batch: readonly string[][], lanes: number): Promise<void> => {
      const queue = [...batch];
      const lane = async (): Promise<void> => {
        for (let args = queue.shift(); args; args = queue.shift()) await runOne(args);
      };
      await Promise.all(Array.from({ length: lanes }, lane));
    };
    await inTurn(
      commands.filter((args) => args[0] !== 'leaderboard'),
      2,
    );
    await inTurn(
      commands.filter((args) => args[0] === 'leaderboard'),
      1,
    );
  }, 120_000);

  afterAll(async () => {
    await model?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('has the commands this test knows how to check', () => {
    expect(commands.map((args) => args[0])).toEqual([
      'list',
      'info',
      'play',
      'run',
      'run',
      'check',
      'serve',
      'bench',
      'leaderboard',
      'new-env',
    ]);
  });

  /** Beyond exit code 0: what each command must have done. */
  const checks: Record<string, (result: Finished, args: readonly string[]) => void> = {
    list: (result) => expect(result.stdout).toMatch(/^turngym\/math-thought-v1 /m),
    info: (result) => expect(result.stdout).toContain('Description'),
    play: (result) => expect(result.stdout).toMatch(/Episode over \(terminated\): success/),
    run: (result, args) => {
      expect(result.stdout).toMatch(/^errored\s+0$/m);
      const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : undefined;
      if (out) expect(readEpisodeRecords(join(work, out))).toHaveLength(Number(args[args.indexOf('--episodes') + 1]));
    },
    check: (result) => expect(result.stdout).toMatch(/all \d+ checks passed/),
    serve: (result) => expect(result.stderr).toContain('SIGINT: closing the server'),
    bench: (result) => expect(result.stdout).toMatch(/^episodes \(errored\)\s+\d+ \(0\)$/m),
    leaderboard: (result) => expect(result.stdout).toMatch(/^written: .*index\.html/m),
    'new-env': (result, args) => {
      expect(result.stdout).toContain(`Created @turngym/env-${args[1]}`);
      expect(existsSync(join(work, 'environments', args[1] as string, 'package.json'))).toBe(true);
    },
  };

  it.each(commands.map((args) => [`turngym ${key(args)}`, args] as const))('%s', (_name, args) => {
    const result = results.get(key(args));
    expect(result).toBeDefined();
    const { code, stdout, stderr } = result as Finished;
    expect({ code, stderr: code === 0 ? '' : stderr, stdout: code === 0 ? '' : stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: '',
    });
    checks[args[0] as string]?.(result as Finished, args);
    if (args.some((word) => word.startsWith('openai:'))) expect(model.requestCount).toBeGreaterThan(0);
  });
});

/** The fenced blocks of a README section, each with its language and the prose just before it. */
function sectionBlocks(title: string): Array<{ lang: string; text: string; before: string }> {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = new RegExp(`^## ${title}\\n([\\s\\S]*?)^## `, 'm').exec(readme)?.[1];
  if (!section) throw new Error(`README.md has no "## ${title}" section`);
  const blocks: Array<{ lang: string; text: string; before: string }> = [];
  let last = 0;
  for (const match of section.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    blocks.push({ lang: match[1] as string, text: match[2] as string, before: section.slice(last, match.index) });
    last = (match.index as number) + match[0].length;
  }
  return blocks;
}

/**
 * A scratch TurnGym-style monorepo (workspaces next to tsconfig.base.json, the repository's lint, format and jest
 * settings) whose spec, core and installed dependencies are the checkout's, so `new-env` takes its monorepo path.
 */
function scratchMonorepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'turngym-add-env-'));
  const manifest = { name: 'scratch', private: true, workspaces: ['packages/*', 'environments/*'] };
  writeFileSync(join(root, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const references = [{ path: 'packages/spec' }, { path: 'packages/core' }];
  writeFileSync(join(root, 'tsconfig.build.json'), `${JSON.stringify({ files: [], references }, null, 2)}\n`);
  for (const file of [
    'tsconfig.base.json',
    'jest.config.js',
    'eslint.config.js',
    '.prettierrc.json',
    '.prettierignore',
  ])
    copyFileSync(join(REPO_ROOT, file), join(root, file));
  mkdirSync(join(root, 'packages'));
  mkdirSync(join(root, 'node_modules', '@turngym'), { recursive: true });
  for (const name of ['spec', 'core']) {
    symlinkSync(join(REPO_ROOT, 'packages', name), join(root, 'packages', name), 'dir');
    symlinkSync(join(REPO_ROOT, 'packages', name), join(root, 'node_modules', '@turngym', name), 'dir');
  }
  for (const entry of readdirSync(join(REPO_ROOT, 'node_modules')).filter((name) => name !== '@turngym'))
    symlinkSync(join(REPO_ROOT, 'node_modules', entry), join(root, 'node_modules', entry), 'dir');
  return root;
}

describe('the README "Add an environment" steps work as written', () => {
  // Run in a scratch monorepo, not in the checkout (a new package there would join every workspace test). What
  // `npm install` does for a new workspace is done by hand: link it under node_modules. `--port 8000` becomes a
  // free port, and the check through the server reaches that port.
  const blocks = sectionBlocks('Add an environment');
  const shell = blocks.filter((block) => block.lang === 'sh');
  const ran: Array<{ command: string[] } & Finished> = [];
  let root: string;
  let envDir: string;
  let server: ReturnType<typeof spawnBin> | undefined;

  const tool = (name: string): string => (name === 'turngym' ? BIN : join(REPO_ROOT, 'node_modules', '.bin', name));

  beforeAll(async () => {
    assertCliBuilt();
    root = scratchMonorepo();
    // The suite file the text names just before its JSON block.
    for (const block of blocks.filter((candidate) => candidate.lang === 'json')) {
      const name = [...block.before.matchAll(/`([\w.-]+\.json)`/g)].pop()?.[1];
      if (name) writeFileSync(join(root, name), block.text);
    }
    let serverUrl: string | undefined;
    for (const line of shell.flatMap((block) => block.text.split('\n'))) {
      const edit = /^# add (\{.*?\}) to tsconfig\.build\.json/.exec(line)?.[1];
      if (edit) {
        const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as {
          references: unknown[];
        };
        build.references.push(JSON.parse(edit));
        writeFileSync(join(root, 'tsconfig.build.json'), JSON.stringify(build, null, 2));
        continue;
      }
      const words = shellWords(line);
      const commands: string[][] = [[]];
      for (const word of words) {
        if (word === '&&') commands.push([]);
        else (commands[commands.length - 1] as string[]).push(word);
      }
      for (const command of commands.filter((words) => words.length > 0)) {
        if (command[0] === 'npm' && command[1] === 'install' && command.length === 2) {
          for (const dir of readdirSync(join(root, 'environments'))) {
            const { name } = JSON.parse(readFileSync(join(root, 'environments', dir, 'package.json'), 'utf8')) as {
              name: string;
            };
            if (!existsSync(join(root, 'node_modules', name)))
              symlinkSync(join(root, 'environments', dir), join(root, 'node_modules', name), 'dir');
          }
          continue;
        }
        if (command[0] !== 'npx') throw new Error(`not a command this test runs: ${command.join(' ')}`);
        const [, name, ...rest] = command as [string, string, ...string[]];
        const args = rest.map((word, i) => {
          if (rest[i - 1] === '--port' && word === '8000') return '0';
          return serverUrl && word === 'ws://127.0.0.1:8000' ? serverUrl : word;
        });
        if (name === 'turngym' && args[0] === 'serve') {
          server = spawnBin(args, root, process.env);
          serverUrl = await new Promise<string>((resolve, reject) => {
            server?.child.stdout.on('data', () => {
              const found = /^serving \S+ at http:\/\/(\S+)/m.exec(server?.stdout() ?? '')?.[1];
              if (found) resolve(`ws://${found}`);
            });
            void server?.finished.then((result) =>
              reject(new Error(`serve exited (${result.code}): ${result.stderr}`)),
            );
          });
          continue;
        }
        const result = await spawnBin(args, root, process.env, tool(name)).finished;
        ran.push({ command, ...result });
        if (result.code !== 0) return; // the test below shows which step failed and why
      }
    }
    envDir = join(root, 'environments', readdirSync(join(root, 'environments'))[0] as string);
  }, 240_000);

  afterAll(async () => {
    server?.child.kill('SIGINT');
    await server?.finished;
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('every step succeeds, in order', () => {
    expect(ran.length).toBeGreaterThan(0);
    const failed = ran.filter((step) => step.code !== 0);
    expect(
      failed.map(({ command, code, stdout, stderr }) => ({ command: command.join(' '), code, stdout, stderr })),
    ).toEqual([]);
    expect(ran.map((step) => step.command.slice(0, 2).join(' '))).toEqual([
      'npx turngym',
      'npx tsc',
      'npx turngym',
      'npx jest',
      'npx prettier',
      'npx eslint',
      'npx turngym',
      'npx turngym',
    ]);
  });

  it('the env passes the checker, locally and through the server', () => {
    const checks = ran.filter((step) => step.command[2] === 'check');
    expect(checks).toHaveLength(2);
    for (const check of checks) expect(check.stdout).toMatch(/all \d+ checks passed/);
    expect(checks[1]?.command).toContain('--remote');
  });

  it("the package passes CI's format:check and lint as the steps leave it", async () => {
    const format = await spawnBin(['--check', envDir], root, process.env, tool('prettier')).finished;
    expect({ code: format.code, out: format.stdout + format.stderr }).toEqual({ code: 0, out: expect.any(String) });
    const lint = await spawnBin([envDir], root, process.env, tool('eslint')).finished;
    expect({ code: lint.code, out: lint.stdout + lint.stderr }).toEqual({ code: 0, out: '' });
  });

  it('the suite benches the new env', () => {
    const bench = ran.find((step) => step.command[2] === 'bench');
    expect(bench?.stdout).toMatch(/^turngym\/word-guess-v1\s+100% \[100–100\]\s+\d+% /m);
    expect(bench?.stdout).toMatch(/^episodes \(errored\)\s+20 \(0\)\s+20 \(0\)$/m);
  });
});

describe('docs/write-a-trainer.md', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'write-a-trainer.md'), 'utf8');

  it('names every file outside a trainer package that registers one (as GiGPO is registered)', () => {
    // A new trainer must be wired in wherever an existing one is: the build, the CLI's dependencies, project
    // references, loader and command. Found from GiGPO's registrations, so a new place cannot go undocumented.
    const candidates = [
      ...readdirSync(REPO_ROOT).filter((name) => name.endsWith('.json') && name !== 'package-lock.json'),
      ...readdirSync(join(REPO_ROOT, 'packages')).flatMap((name) => {
        const files = (dir: string): string[] =>
          readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
            entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
          );
        const top = ['package.json', 'tsconfig.json'].map((file) => join('packages', name, file));
        const src = join('packages', name, 'src');
        return [...top, ...(existsSync(join(REPO_ROOT, src)) ? files(src) : [])];
      }),
    ].filter((file) => existsSync(join(REPO_ROOT, file)) && !/\.test\.ts$|__fixtures__/.test(file));
    const registers = candidates.filter((file) =>
      /@turngym\/trainer-gigpo|trainers\/gigpo|'gigpo'|\bgigpo:/.test(readFileSync(join(REPO_ROOT, file), 'utf8')),
    );
    expect(registers.length).toBeGreaterThanOrEqual(4);
    const posix = (file: string): string => file.split('\\').join('/');
    expect(registers.map(posix).filter((file) => !doc.includes(`\`${file}\``))).toEqual([]);
  });

  it('its trainer type-checks against @turngym/rl as it is', () => {
    const code = /```ts\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(code).toContain('runTrainer(rloo');
    const dir = mkdtempSync(join(tmpdir(), 'turngym-rloo-'));
    try {
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', 'rloo.ts'), code as string);
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const tsconfig = {
        extends: join(REPO_ROOT, 'tsconfig.base.json'),
        compilerOptions: { rootDir: 'src', noEmit: true, composite: false, incremental: false },
        include: ['src'],
      };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      const tsc = spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir],
        {
          encoding: 'utf8',
        },
      );
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the turngym bin', () => {
  it('is a committed file, not a build output: npm links bins at install, before `prepare` builds dist/', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'packages', 'cli', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(join(REPO_ROOT, 'packages', 'cli', manifest.bin.turngym as string)).toBe(BIN);
    const ignored = readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain('dist/');
    expect(BIN).not.toMatch(/[\\/]dist[\\/]/);
  });

  it('says how to build when the CLI is not built yet', async () => {
    const unbuilt = mkdtempSync(join(tmpdir(), 'turngym-unbuilt-'));
    try {
      mkdirSync(join(unbuilt, 'bin'));
      copyFileSync(BIN, join(unbuilt, 'bin', 'turngym.js'));
      const result = await spawnBin(['list'], unbuilt, process.env, join(unbuilt, 'bin', 'turngym.js')).finished;
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error: the turngym CLI is not built \(.*dist[\\/]bin\.js is missing\)\. Build it: /,
      );
    } finally {
      rmSync(unbuilt, { recursive: true, force: true });
    }
  });
});

describe("packages/cli/README.md's command table", () => {
  // The table is where a user looks up a flag: every command, subcommand and long option the program defines
  // must be in the row of its command (a row's first cell names `turngym <command>`).
  const readme = readFileSync(join(REPO_ROOT, 'packages', 'cli', 'README.md'), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('| `turngym '));
  const rowsOf = (command: string): string =>
    rows.filter((row) => (row.split(' | ')[0] ?? '').includes(`\`turngym ${command} `)).join('\n');
  const program = createProgram(new CliContext(processIo()));
  const flagsOf = (command: typeof program): string[] =>
    command.options.map((option) => option.long).filter((flag): flag is string => flag !== undefined);

  it.each(program.commands.filter((command) => command.name() !== 'help').map((command) => [command.name(), command]))(
    'turngym %s: the command, its subcommands and their flags',
    (name, command) => {
      const row = rowsOf(name);
      const missing = [
        ...(row === '' ? [`a row for turngym ${name}`] : []),
        ...command.commands
          .filter((sub) => !row.includes(`turngym ${name} ${sub.name()}`))
          .map((sub) => `turngym ${name} ${sub.name()}`),
        ...[command, ...command.commands].flatMap(flagsOf).filter((flag) => !new RegExp(`${flag}(?![a-z-])`).test(row)),
      ];
      expect(missing).toEqual([]);
    },
  );
});

describe('links between the docs', () => {
  // A relative link in a README or a doc page must name a file that exists and, after `#`, one of its headings
  // (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2 … for repeats).
  const readmes = (dir: string): string[] =>
    existsSync(join(REPO_ROOT, dir))
      ? readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && existsSync(join(REPO_ROOT, dir, entry.name, 'README.md')))
          .map((entry) => join(dir, entry.name, 'README.md'))
      : [];
  const markdownUnder = (dir: string): string[] =>
    readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? markdownUnder(join(dir, entry.name))
        : entry.name.endsWith('.md')
          ? [join(dir, entry.name)]
          : [],
    );
  const pages = [
    'README.md',
    ...markdownUnder('docs'),
    ...['packages', 'environments', 'trainers', 'templates', 'benchmarks'].flatMap(readmes),
  ];
  const withoutBlocks = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');
  const withoutCode = (text: string): string => withoutBlocks(text).replace(/`[^`\n]*`/g, '');
  const anchorsOf = (file: string): Set<string> => {
    const seen = new Map<string, number>();
    const anchors = new Set<string>();
    for (const [, heading] of withoutBlocks(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.*)$/gm)) {
      const slug = (heading as string)
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    return anchors;
  };

  it.each(pages)('%s', (page) => {
    const file = join(REPO_ROOT, page);
    const broken: string[] = [];
    for (const [, href] of withoutCode(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(href as string)) continue;
      const [path, anchor] = (href as string).split('#') as [string, string | undefined];
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(target)) broken.push(`${href}: no ${relative(REPO_ROOT, target)}`);
      else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor))
        broken.push(`${href}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});
