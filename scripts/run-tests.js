#!/usr/bin/env node
// `npm test`: build every package (the CLI and packaging tests run the built output), run jest, and end
// with one plain summary line ("N passed, N failed, N skipped") that any CI log reader understands.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' });

const build = run(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json']);
if (build.status !== 0) {
  console.error('build failed: fix the type errors above before the tests can run');
  process.exit(build.status ?? 1);
}

const dir = mkdtempSync(join(tmpdir(), 'turngym-jest-'));
const results = join(dir, 'results.json');
const jest = run(process.execPath, [
  require.resolve('jest/bin/jest'),
  '--ci',
  '--json',
  `--outputFile=${results}`,
  ...process.argv.slice(2),
]);
let summary;
try {
  summary = JSON.parse(readFileSync(results, 'utf8'));
} catch {
  summary = undefined;
}
rmSync(dir, { recursive: true, force: true });
if (summary) {
  const skipped = summary.numPendingTests + summary.numTodoTests;
  console.log(`\ntests: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed, ${skipped} skipped`);
  if (summary.numTotalTests === 0) {
    console.error('no test ran');
    process.exit(1);
  }
}
process.exit(jest.status ?? 1);
