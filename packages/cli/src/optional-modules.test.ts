import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliInstallation, installCommand } from './cli-installation';
import { loadReport, loadTrainer } from './optional-modules';

describe('installCommand: how to add an optional package where the CLI finds it', () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'turngym-install-command-'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const cliIn = (root: string): string => {
    const dir = join(root, 'node_modules', '@turngym', 'cli');
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it('a project install: npm i in the project (or any folder under it), --prefix from elsewhere', () => {
    const project = join(base, 'project');
    const cliDir = cliIn(project);
    writeFileSync(join(project, 'package.json'), '{}');
    expect(installCommand('@turngym/trainer-grpo', cliInstallation(cliDir), project)).toBe(
      'npm i @turngym/trainer-grpo',
    );
    expect(installCommand('@turngym/lm', cliInstallation(cliDir), join(project, 'runs'))).toBe('npm i @turngym/lm');
    // Run from outside the project (`./project/node_modules/.bin/turngym`), a bare npm i would install elsewhere.
    expect(installCommand('@turngym/lm', cliInstallation(cliDir), base)).toBe(
      `npm i @turngym/lm --prefix ${JSON.stringify(project)}`,
    );
  });

  it('a global install (npm i -g @turngym/cli, as the README says): npm i -g', () => {
    // npm's global packages live in <prefix>/lib/node_modules: no package.json in <prefix>/lib.
    const cliDir = cliIn(join(base, 'prefix', 'lib'));
    expect(installCommand('@turngym/trainer-grpo', cliInstallation(cliDir), base)).toBe(
      'npm i -g @turngym/trainer-grpo',
    );
  });

  it('npx @turngym/cli: npx with both packages', () => {
    const root = join(base, '.npm', '_npx', '0123abcd');
    const cliDir = cliIn(root);
    writeFileSync(join(root, 'package.json'), '{}');
    expect(installCommand('@turngym/lm', cliInstallation(cliDir), base)).toBe(
      'npx -p @turngym/cli -p @turngym/lm turngym …',
    );
  });
});

describe('the optional packages, when one is missing', () => {
  afterEach(() => jest.resetModules());

  const moduleNotFound = (name: string, requiredFrom: string): Error =>
    Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- ${requiredFrom}`), {
      code: 'MODULE_NOT_FOUND',
    });

  it('names the package to install and the command, not a stack trace', () => {
    jest.doMock('@turngym/trainer-ccapo', () => {
      throw moduleNotFound('@turngym/trainer-ccapo', '/p/node_modules/@turngym/cli/dist/optional-modules.js');
    });
    // stdb loads the ccapo trainer too: the message must not claim the user ran `turngym train ccapo`.
    // Run from this checkout, the install command is the checkout's (installCommand's tests cover the others).
    expect(() => loadTrainer('ccapo')).toThrow(
      /^This command needs @turngym\/trainer-ccapo, which is not installed: npm install at the root of the TurnGym checkout$/,
    );
    expect(() => loadTrainer('ccapo', 'turngym stdb')).toThrow(/^turngym stdb needs @turngym\/trainer-ccapo/);
  });

  it("an installed package missing one of its own dependencies is that error, not 'install the package'", () => {
    // Node names the requiring package in the require stack: the package is there, @turngym/rl is not.
    const missingDependency = moduleNotFound('@turngym/rl', '/p/node_modules/@turngym/report/dist/index.js');
    jest.doMock('@turngym/report', () => {
      throw missingDependency;
    });
    expect(() => loadReport()).toThrow(missingDependency);
  });
});
