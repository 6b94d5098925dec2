#!/usr/bin/env node
// `npm test`: build every package (the CLI and packaging tests run the built output), run jest, and end
// with one plain summary line ("N passed, N failed, N skipped") that any CI log reader understands. In CI
// (CI=true, or a TURNGYM_REQUIRE_* flag as .ci/run sets) a skipped test fails the run: see test-summary.js.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { countLine, skipFailure, skippedNote, summarize } = require('./test-summary');

const root = join(__dirname, '..');
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' });

const build = run(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json']);
if (build.status !== 0) {
  console.error('build failed: fix the type errors above before the tests can run');
  process.exit(build.status ?? 1);
}

const dir = mkdtempSync(join(tmpdir(), 'turngym-jest-'));
const resultsFile = join(dir, 'results.json');
const args = process.argv.slice(2);
const jest = run(process.execPath, [
  require.resolve('jest/bin/jest'),
  '--ci',
  '--json',
  `--outputFile=${resultsFile}`,
  ...args,
]);
let results;
try {
  results = JSON.parse(readFileSync(resultsFile, 'utf8'));
} catch {
  results = undefined;
}
rmSync(dir, { recursive: true, force: true });
if (results) {
  const summary = summarize(results, root);
  console.log(`\n${countLine(summary)}`);
  if (summary.total === 0) {
    console.error('no test ran');
    process.exit(1);
  }
  const failure = skipFailure(summary, { env: process.env, args });
  if (failure) {
    console.error(failure);
    process.exit(1);
  }
  const note = skippedNote(summary);
  if (note) console.log(note);
}
process.exit(jest.status ?? 1);
