import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { UsageError } from './cli-errors';
import { cliInstallation, isInside, type CliInstallation } from './cli-installation';
import { newEnvNames, renameTemplateText, type TemplateNames } from './template-names';
import { findTemplateSource, type TemplateSource } from './template-source';

export interface ScaffoldOptions {
  /** Kebab-case name, e.g. `math-thought`. */
  name: string;
  /** The package is created at `<parentDirectory>/<name>`. */
  parentDirectory: string;
  /** Name the package `turngym-env-<name>` (a contrib package outside the @turngym scope). */
  contrib?: boolean;
  template?: TemplateSource;
  /** How the CLI scaffolding it is installed (this one's by default): how the package's README runs it. */
  installation?: CliInstallation;
}

export interface ScaffoldResult {
  readonly directory: string;
  readonly names: TemplateNames;
  /** Written files, relative to `directory`. */
  readonly files: readonly string[];
  /** The TurnGym monorepo the package was placed in, if any (then its tsconfig points into it). */
  readonly monorepoRoot: string | undefined;
  /** How to run the CLI from the package's directory (`turngym`, `npx turngym`, …), as its README does. */
  readonly cli: string;
}

/**
 * How the new package's README (and `new-env`'s next steps) run the CLI from the package's directory: a bare
 * `turngym` is on the PATH only for a global install. Inside a monorepo the CLI is a workspace's bin: npx finds
 * it, from the package's directory too.
 */
function cliCommandFor(directory: string, monorepoRoot: string | undefined, installation: CliInstallation): string {
  if (monorepoRoot) return 'npx turngym';
  // A checkout's bin is on the PATH through `npm link` only; new-env has always printed the bare name there.
  switch (installation.kind) {
    case 'global':
    case 'checkout':
      return 'turngym';
    case 'npx':
      return 'npx @turngym/cli';
    case 'project': {
      // npx walks up from the package to the project that has the CLI; from outside it, only its path works.
      if (isInside(directory, installation.root)) return 'npx turngym';
      const bin = join(installation.root, 'node_modules', '.bin', 'turngym');
      return /^[\w./\\:-]+$/.test(bin) ? bin : JSON.stringify(bin);
    }
  }
}

/** The template's tsconfig was written for `templates/env`, two levels under the monorepo root. */
const TEMPLATE_HOME = ['templates', 'env'];

/** Versions a standalone package builds and tests with (the monorepo provides them at its root). */
const STANDALONE_DEV_DEPENDENCIES = {
  '@swc/core': '^1.16.0',
  '@swc/jest': '^0.2.39',
  '@types/jest': '^30.0.0',
  '@types/node': '^20.19.0',
  jest: '^30.5.0',
  typescript: '^5.9.0',
};

/** How a standalone package runs the tests it ships (the monorepo's root jest config runs them there). */
const STANDALONE_JEST = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
};

interface Tsconfig {
  extends?: string;
  compilerOptions?: Record<string, unknown>;
  include?: string[];
  exclude?: string[];
  references?: { path: string }[];
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

function posixRelative(from: string, to: string): string {
  const path = relative(from, to).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

function filesUnder(directory: string, prefix = ''): string[] {
  return readdirSync(directory)
    .sort()
    .flatMap((entry) => {
      const path = join(directory, entry);
      return statSync(path).isDirectory() ? filesUnder(path, `${prefix}${entry}/`) : [`${prefix}${entry}`];
    });
}

/** The nearest directory at or above `start` that is a TurnGym-style monorepo (workspaces + tsconfig.base.json). */
export function findMonorepoRoot(start: string): string | undefined {
  let current = resolve(start);
  for (;;) {
    const manifest = join(current, 'package.json');
    if (existsSync(join(current, 'tsconfig.base.json')) && existsSync(manifest)) {
      try {
        if (readJson<{ workspaces?: unknown }>(manifest).workspaces) return current;
      } catch {
        // An unreadable package.json is not a monorepo root; keep looking.
      }
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * Inside the monorepo the package extends the shared base and references spec/core by relative paths, which
 * change with its depth. Outside, it gets a self-contained tsconfig (the base's options inlined, no
 * references: spec and core come from node_modules).
 */
function tsconfigFor(template: TemplateSource, target: string, monorepoRoot: string | undefined): Tsconfig {
  const own = readJson<Tsconfig>(template.tsconfigPath);
  if (monorepoRoot) {
    const home = join(monorepoRoot, ...TEMPLATE_HOME);
    return {
      ...own,
      ...(own.extends ? { extends: posixRelative(target, resolve(home, own.extends)) } : {}),
      ...(own.references
        ? {
            references: own.references.map((reference) => ({
              path: posixRelative(target, resolve(home, reference.path)),
            })),
          }
        : {}),
    };
  }
  const base = readJson<Tsconfig>(template.baseTsconfigPath);
  const { extends: _extends, references: _references, ...rest } = own;
  return { ...rest, compilerOptions: { ...base.compilerOptions, ...own.compilerOptions } };
}

function manifestFor(
  template: TemplateSource,
  names: TemplateNames,
  target: string,
  monorepoRoot: string | undefined,
): Record<string, unknown> {
  const manifest = readJson<Record<string, unknown>>(template.manifestPath);
  const out: Record<string, unknown> = {
    ...manifest,
    name: names.packageName,
    version: '0.1.0',
    description: `TurnGym environment ${names.envId}`,
  };
  if (monorepoRoot) {
    out.repository = { type: 'git', directory: relative(monorepoRoot, target).split(sep).join('/') };
  } else {
    delete out.repository;
    out.devDependencies = {
      ...((manifest.devDependencies as Record<string, string> | undefined) ?? {}),
      ...STANDALONE_DEV_DEPENDENCIES,
    };
    out.scripts = { ...((manifest.scripts as Record<string, string> | undefined) ?? {}), test: 'jest' };
    out.jest = STANDALONE_JEST;
  }
  return out;
}

function readmeFor(names: TemplateNames, testCommand: string, cli: string): string {
  return `# ${names.packageName}

\`${names.envId}\`: a TurnGym environment, scaffolded by \`turngym new-env ${names.kebab}\` from the example env
(follow a chain of keys to a secret code). Replace the task in \`src/${names.kebab}-env.ts\` and keep the
sections below true.

## Quickstart

\`\`\`ts
import { Registry, runEpisode } from '@turngym/core';
import { register, ${names.pascal}Solver } from '${names.packageName}';

const registry = new Registry();
register(registry);
const env = await registry.make('${names.envId}');
const outcome = await runEpisode(env, new ${names.pascal}Solver(), 0);
console.log(outcome.success, outcome.totalReward);
await env.close();
\`\`\`

Its tests: ${testCommand}. From the command line, once built (\`npm run build\`):

\`\`\`sh
${cli} --plugin . info ${names.envId}
${cli} --plugin . check ${names.envId}
${cli} --plugin . run ${names.envId} --agent scripted --episodes 20
\`\`\`

Installed next to \`@turngym/cli\`, the package is discovered without \`--plugin\` (its package.json declares
\`"turngym": { "register": "./dist/register.js" }\`).

## Description

What the agent has to do, and why the task is interesting for multi-turn agents.

## Action Space

Tools \`LOOKUP(key)\` and \`SUBMIT(answer)\`, as text (\`NAME(arg)\` or \`NAME({json})\`) or function calls.

## Observation Space

Text: the task, then the result of each tool call.

## Rewards

1 for the right code, else 0. Malformed calls get feedback and reward 0.

## Starting State

A seeded store; the first observation names the start key.

## Episode End

Terminates on \`SUBMIT\`; truncates at \`maxTurns\`.

## Arguments

See \`src/${names.kebab}-options.ts\` (\`${cli} --plugin . info ${names.envId}\` prints the schema).

## Version History

- v1: first version.
`;
}

/** The packages of the monorepo's workspaces (`dir/*` and `dir` patterns), by directory relative to the root. */
function workspacePackages(monorepoRoot: string): Array<{ directory: string; name: string }> {
  const patterns = readJson<{ workspaces?: unknown }>(join(monorepoRoot, 'package.json')).workspaces;
  const list = Array.isArray(patterns) ? patterns : ((patterns as { packages?: unknown })?.packages ?? []);
  const directories = (list as unknown[])
    .filter((pattern): pattern is string => typeof pattern === 'string')
    .flatMap((pattern) => {
      if (!pattern.endsWith('/*')) return [pattern];
      const parent = join(monorepoRoot, pattern.slice(0, -2));
      return existsSync(parent) && statSync(parent).isDirectory()
        ? readdirSync(parent).map((entry) => `${pattern.slice(0, -2)}/${entry}`)
        : [];
    });
  return [...new Set(directories)].flatMap((directory) => {
    try {
      const { name } = readJson<{ name?: unknown }>(join(monorepoRoot, directory, 'package.json'));
      return typeof name === 'string' ? [{ directory, name }] : [];
    } catch {
      return []; // not a package (or not one npm could read either)
    }
  });
}

/**
 * Inside a monorepo, a second package of the same name breaks `npm install`, and one with the same env id
 * (`@turngym/env-x` and `turngym-env-x` both register turngym/x-v1) fails at registration.
 */
function assertNameIsFree(names: TemplateNames, monorepoRoot: string): void {
  const taken = new Set([`@turngym/env-${names.kebab}`, `turngym-env-${names.kebab}`]);
  const owner = workspacePackages(monorepoRoot).find((found) => taken.has(found.name));
  if (owner) {
    throw new UsageError(
      `Env name "${names.kebab}": ${owner.directory} already is ${owner.name} (id ${names.envId}); choose another name.`,
    );
  }
}

/** Copies the env template to `<parentDirectory>/<name>`, renamed throughout. Never overwrites a non-empty directory. */
export function scaffoldEnv(options: ScaffoldOptions): ScaffoldResult {
  const names = newEnvNames(options.name, options.contrib ? { contrib: true } : {});
  const template = options.template ?? findTemplateSource();
  const directory = resolve(options.parentDirectory, names.kebab);
  if (existsSync(directory)) {
    if (!statSync(directory).isDirectory())
      throw new UsageError(`${directory} is a file, not a directory; choose another name or --dir.`);
    if (readdirSync(directory).length > 0)
      throw new UsageError(`${directory} already exists and is not empty; choose another name or --dir.`);
  }
  const monorepoRoot = findMonorepoRoot(dirname(directory));
  if (monorepoRoot) assertNameIsFree(names, monorepoRoot);
  const files = new Map<string, string>();
  for (const file of filesUnder(template.sourcesDirectory)) {
    files.set(
      `src/${renameTemplateText(file, names)}`,
      renameTemplateText(readFileSync(join(template.sourcesDirectory, file), 'utf8'), names),
    );
  }
  files.set('package.json', `${JSON.stringify(manifestFor(template, names, directory, monorepoRoot), null, 2)}\n`);
  files.set('tsconfig.json', `${JSON.stringify(tsconfigFor(template, directory, monorepoRoot), null, 2)}\n`);
  const testCommand = monorepoRoot
    ? `\`npx jest ${relative(monorepoRoot, directory).split(sep).join('/')}\` (from the repository root)`
    : '`npm test`';
  const cli = cliCommandFor(directory, monorepoRoot, options.installation ?? cliInstallation());
  files.set('README.md', readmeFor(names, testCommand, cli));
  if (!monorepoRoot) files.set('.gitignore', 'node_modules/\ndist/\n');
  for (const [file, text] of files) {
    const path = join(directory, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return { directory, names, files: [...files.keys()], monorepoRoot, cli };
}
