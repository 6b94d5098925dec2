import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatWithProjectPrettier } from './format-generated';
import { findMonorepoRoot, scaffoldEnv } from './scaffold-env';
import { checkoutTemplate, findTemplateSource, shippedTemplate } from './template-source';

const REPO_ROOT = join(__dirname, '..', '..', '..');

function tree(directory: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) Object.assign(out, tree(path, `${prefix}${entry.name}/`));
    else out[`${prefix}${entry.name}`] = readFileSync(path, 'utf8');
  }
  return out;
}

describe('scaffoldEnv', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turngym-scaffold-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('inside a monorepo, points tsconfig at the shared base and at spec/core from any depth', () => {
    // A monorepo shaped like TurnGym's: workspaces + tsconfig.base.json at its root.
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ name: 'mono', private: true, workspaces: ['environments/*'] }),
    );
    writeFileSync(join(root, 'tsconfig.base.json'), '{}');
    const template = checkoutTemplate(REPO_ROOT);

    const sameDepth = scaffoldEnv({ name: 'coin-flip', parentDirectory: join(root, 'environments'), template });
    expect(sameDepth.monorepoRoot).toBe(root);
    const shallow = JSON.parse(readFileSync(join(sameDepth.directory, 'tsconfig.json'), 'utf8')) as {
      extends: string;
      references: { path: string }[];
    };
    expect(shallow.extends).toBe('../../tsconfig.base.json');
    expect(shallow.references).toEqual([{ path: '../../packages/spec' }, { path: '../../packages/core' }]);
    expect(JSON.parse(readFileSync(join(sameDepth.directory, 'package.json'), 'utf8'))).toMatchObject({
      name: '@turngym/env-coin-flip',
      repository: { type: 'git', directory: 'environments/coin-flip' },
    });
    // The monorepo's root jest config runs its tests.
    expect(readFileSync(join(sameDepth.directory, 'README.md'), 'utf8')).toContain(
      'Its tests: `npx jest environments/coin-flip` (from the repository root).',
    );

    // Another name: a second package with the id turngym/coin-flip-v1 would be refused.
    const deeper = scaffoldEnv({
      name: 'coin-toss',
      parentDirectory: join(root, 'contrib', 'games'),
      template,
      contrib: true,
    });
    const deep = JSON.parse(readFileSync(join(deeper.directory, 'tsconfig.json'), 'utf8')) as {
      extends: string;
      references: { path: string }[];
    };
    expect(deep.extends).toBe('../../../tsconfig.base.json');
    expect(deep.references).toEqual([{ path: '../../../packages/spec' }, { path: '../../../packages/core' }]);
    expect(JSON.parse(readFileSync(join(deeper.directory, 'package.json'), 'utf8'))).toMatchObject({
      name: 'turngym-env-coin-toss',
    });
  });

  it('outside a monorepo, writes a self-contained tsconfig and the build tools as devDependencies', () => {
    expect(findMonorepoRoot(root)).toBeUndefined();
    const result = scaffoldEnv({ name: 'coin-flip', parentDirectory: root, template: checkoutTemplate(REPO_ROOT) });
    const tsconfig = JSON.parse(readFileSync(join(result.directory, 'tsconfig.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(tsconfig.extends).toBeUndefined();
    expect(tsconfig.references).toBeUndefined();
    expect(tsconfig.compilerOptions).toMatchObject({ strict: true, module: 'node16', rootDir: 'src', outDir: 'dist' });
    const manifest = JSON.parse(readFileSync(join(result.directory, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.repository).toBeUndefined();
    expect(manifest.devDependencies).toHaveProperty('typescript');
    // The tests it ships run with `npm test`, as its README says.
    expect(manifest.devDependencies).toHaveProperty('jest');
    expect(manifest.scripts).toMatchObject({ build: 'tsc -b', test: 'jest' });
    expect(manifest.jest).toMatchObject({ roots: ['<rootDir>/src'] });
    expect(readFileSync(join(result.directory, 'README.md'), 'utf8')).toContain('Its tests: `npm test`.');
    expect(result.files).toEqual(
      expect.arrayContaining(['src/coin-flip-env.ts', 'src/register.ts', 'README.md', '.gitignore']),
    );
  });

  it('the template shipped in the package (scripts/copy-template.js) scaffolds the same files as the checkout', () => {
    const packageRoot = join(root, 'installed', 'cli');
    const copied = spawnSync(
      process.execPath,
      [join(__dirname, '..', 'scripts', 'copy-template.js'), join(packageRoot, 'template')],
      { encoding: 'utf8' },
    );
    expect(copied.status).toBe(0);
    // An installed package has no templates/env two levels up, so the shipped copy is the one found.
    expect(findTemplateSource(packageRoot)).toEqual(shippedTemplate(packageRoot));
    const fromShipped = scaffoldEnv({
      name: 'coin-flip',
      parentDirectory: join(root, 'a'),
      template: findTemplateSource(packageRoot),
    });
    const fromCheckout = scaffoldEnv({
      name: 'coin-flip',
      parentDirectory: join(root, 'b'),
      template: checkoutTemplate(REPO_ROOT),
    });
    expect(tree(fromShipped.directory)).toEqual(tree(fromCheckout.directory));
  });

  it('refuses a name whose package or id another package of the monorepo already has', () => {
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ name: 'mono', workspaces: ['environments/*', 'games'] }),
    );
    writeFileSync(join(root, 'tsconfig.base.json'), '{}');
    mkdirSync(join(root, 'environments', 'seller'), { recursive: true });
    writeFileSync(
      join(root, 'environments', 'seller', 'package.json'),
      JSON.stringify({ name: '@turngym/env-seller' }),
    );
    mkdirSync(join(root, 'games'), { recursive: true });
    writeFileSync(join(root, 'games', 'package.json'), JSON.stringify({ name: 'turngym-env-chess' }));
    const template = checkoutTemplate(REPO_ROOT);
    // Another directory, the same package (and so the same id turngym/seller-v1).
    expect(() => scaffoldEnv({ name: 'seller', parentDirectory: join(root, 'contrib'), template })).toThrow(
      /Env name "seller": environments\/seller already is @turngym\/env-seller \(id turngym\/seller-v1\); choose another name/,
    );
    expect(() =>
      scaffoldEnv({ name: 'chess', parentDirectory: join(root, 'contrib'), template, contrib: true }),
    ).toThrow(/Env name "chess": games already is turngym-env-chess \(id turngym\/chess-v1\)/);
    // The contrib spelling of the same env id collides too.
    expect(() => scaffoldEnv({ name: 'chess', parentDirectory: join(root, 'contrib'), template })).toThrow(
      /games already is turngym-env-chess/,
    );
    expect(readdirSync(root).sort()).toEqual(['environments', 'games', 'package.json', 'tsconfig.base.json']);
  });

  it('leaves the files as written where the project has no prettier', async () => {
    const result = scaffoldEnv({
      name: 'coin-flip',
      parentDirectory: join(root, 'alone'),
      template: checkoutTemplate(REPO_ROOT),
    });
    const before = readFileSync(join(result.directory, 'tsconfig.json'), 'utf8');
    expect(await formatWithProjectPrettier(result.directory, result.files)).toBe(false);
    expect(readFileSync(join(result.directory, 'tsconfig.json'), 'utf8')).toBe(before);
  });

  it('its README runs the CLI with npx inside the monorepo, where `turngym` is on no PATH', () => {
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'mono', workspaces: ['environments/*'] }));
    writeFileSync(join(root, 'tsconfig.base.json'), '{}');
    const result = scaffoldEnv({
      name: 'coin-flip',
      parentDirectory: join(root, 'environments'),
      template: checkoutTemplate(REPO_ROOT),
    });
    const readme = readFileSync(join(result.directory, 'README.md'), 'utf8');
    expect(readme).toContain('npx turngym --plugin . check turngym/coin-flip-v1');
    expect(readme).not.toMatch(/^turngym /m);
  });

  it('outside a monorepo, its README runs the CLI the way it is installed (a bare `turngym` only when global)', () => {
    const template = checkoutTemplate(REPO_ROOT);
    const readmeOf = (result: { directory: string }): string =>
      readFileSync(join(result.directory, 'README.md'), 'utf8');
    // `npm i @turngym/cli` in a project, the package scaffolded in it: npx walks up to the project's bin.
    const project = join(root, 'project');
    mkdirSync(project);
    const local = scaffoldEnv({
      name: 'coin-flip',
      parentDirectory: join(project, 'envs'),
      template,
      installation: { kind: 'project', root: project },
    });
    expect(local.cli).toBe('npx turngym');
    expect(readmeOf(local)).toContain('npx turngym --plugin . check turngym/coin-flip-v1');
    expect(readmeOf(local)).not.toMatch(/^turngym |`turngym info/m);
    // Scaffolded outside that project, nothing walks up to it: the bin's path.
    const away = scaffoldEnv({
      name: 'coin-flip',
      parentDirectory: join(root, 'elsewhere'),
      template,
      installation: { kind: 'project', root: project },
    });
    expect(readmeOf(away)).toContain(`${join(project, 'node_modules', '.bin', 'turngym')} --plugin . check`);
    // `npx @turngym/cli new-env …`: npx again, by the package's name (a bare `npx turngym` would ask the
    // registry for an unrelated `turngym` package).
    const viaNpx = scaffoldEnv({ name: 'coin-toss', parentDirectory: root, template, installation: { kind: 'npx' } });
    expect(readmeOf(viaNpx)).toContain('npx @turngym/cli --plugin . check turngym/coin-toss-v1');
    const global = scaffoldEnv({ name: 'dice', parentDirectory: root, template, installation: { kind: 'global' } });
    expect(readmeOf(global)).toMatch(/^turngym --plugin \. check turngym\/dice-v1$/m);
  });

  it('says an existing file is in the way', () => {
    writeFileSync(join(root, 'coin-flip'), 'mine');
    expect(() =>
      scaffoldEnv({ name: 'coin-flip', parentDirectory: root, template: checkoutTemplate(REPO_ROOT) }),
    ).toThrow(/coin-flip is a file, not a directory; choose another name or --dir/);
    expect(readFileSync(join(root, 'coin-flip'), 'utf8')).toBe('mine');
  });

  it('never writes into a non-empty directory', () => {
    mkdirSync(join(root, 'coin-flip'));
    writeFileSync(join(root, 'coin-flip', 'notes.txt'), 'mine');
    expect(() =>
      scaffoldEnv({ name: 'coin-flip', parentDirectory: root, template: checkoutTemplate(REPO_ROOT) }),
    ).toThrow(/already exists and is not empty/);
    expect(readFileSync(join(root, 'coin-flip', 'notes.txt'), 'utf8')).toBe('mine');
  });
});
