import { join } from 'node:path';
import { checkEnv, formatCheckReport, loadPlugins, Registry } from '@turngym/core';
import { assertBuiltUpToDate, builtPackageDirs } from './helpers/built-output';

// Every env package in the workspace, discovered the way the CLI discovers installed packages
// (node_modules/@turngym/env-*, built by `npm test` before jest runs), must pass the env checker.
// The discovered packages run from dist/: it must be newer than their sources.
assertBuiltUpToDate(builtPackageDirs([], { plugins: true }));
const registry = new Registry();
const plugins = loadPlugins(registry, { searchFrom: [join(__dirname, '..')] });

describe('every registered environment', () => {
  it('loads every workspace env package', () => {
    expect(plugins.failed.map((failure) => failure.error.message)).toEqual([]);
    expect(registry.list()).toContain('turngym/example-v1');
  });

  it.each(registry.list())('%s passes the env checker', async (id) => {
    const report = await checkEnv(id, { registry });
    if (!report.passed) throw new Error(formatCheckReport(report));
  });
});
