#!/usr/bin/env node
// Runs jest files many times while CPU-bound processes compete for the cores, and reports every round: a
// test that waits on the clock for an event instead of on the event shows up here as a failure in some
// rounds. Not part of CI (it takes minutes); run it after touching a test that waits on other processes.
//
//   node scripts/stress-tests.js [--rounds N] [--load K] <jest paths…> [-- <more jest arguments>]
//
// --rounds  rounds to run (default 20)
// --load    busy-looping node processes to run beside jest (default 1; 0 runs without load)
// Exits 1 if any round failed.
'use strict';
const { spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const USAGE = 'usage: node scripts/stress-tests.js [--rounds N] [--load K] <jest paths…> [-- <jest arguments>]';

function parseArguments(argv) {
  const options = { rounds: 20, load: 1, paths: [], jestArguments: [] };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    if (argument === '--') {
      options.jestArguments = argv.slice(i + 1);
      break;
    }
    if (argument === '--rounds' || argument === '--load') {
      const value = Number(argv[++i]);
      const least = argument === '--rounds' ? 1 : 0;
      if (!Number.isInteger(value) || value < least) throw new Error(`${argument} takes an integer >= ${least}`);
      options[argument.slice(2)] = value;
    } else if (argument.startsWith('-')) {
      throw new Error(`unknown option ${argument}`);
    } else {
      options.paths.push(argument);
    }
  }
  if (options.paths.length === 0) throw new Error('name at least one jest path');
  return options;
}

/** One jest run; resolves with its exit code and the failed tests read from jest's JSON report. */
function runJest(paths, jestArguments, resultsFile) {
  const args = [require.resolve('jest/bin/jest'), '--ci', '--silent', '--json', `--outputFile=${resultsFile}`];
  const child = spawn(process.execPath, [...args, ...jestArguments, ...paths], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      let results;
      try {
        results = JSON.parse(readFileSync(resultsFile, 'utf8'));
      } catch {
        results = undefined;
      }
      const failed = [];
      for (const file of results?.testResults ?? []) {
        const name = relative(root, file.name);
        const failedTests = file.assertionResults.filter((test) => test.status === 'failed');
        for (const test of failedTests) failed.push(`${name} › ${test.fullName}`);
        if (failedTests.length === 0 && file.status === 'failed') failed.push(`${name}: ${firstLine(file.message)}`);
      }
      resolve({ code, results, failed, stderr });
    });
  });
}

function firstLine(text) {
  return (
    String(text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '') ?? 'failed'
  );
}

async function main() {
  let options;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  const load = Array.from({ length: options.load }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  const stopLoad = () => {
    for (const child of load) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.on('exit', stopLoad);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopLoad();
      process.exit(130);
    });
  }

  console.log(
    `${options.rounds} rounds of jest ${options.paths.join(' ')}, beside ${options.load} CPU-bound process(es)`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'turngym-stress-'));
  const failedRounds = [];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const started = Date.now();
      const run = await runJest(options.paths, options.jestArguments, join(dir, `round-${round}.json`));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const counts = run.results
        ? `${run.results.numPassedTests} passed, ${run.results.numFailedTests} failed, ` +
          `${run.results.numPendingTests} skipped`
        : 'no jest report';
      const passed = run.code === 0 && run.results !== undefined && run.results.numTotalTests > 0;
      console.log(`round ${round}/${options.rounds}: ${passed ? 'pass' : 'FAIL'} (${counts}; ${seconds} s)`);
      if (!passed) {
        failedRounds.push(round);
        for (const line of run.failed) console.log(`  ✕ ${line}`);
        if (run.failed.length === 0) console.log(run.stderr.split('\n').slice(-15).join('\n'));
      }
    }
  } finally {
    stopLoad();
    rmSync(dir, { recursive: true, force: true });
  }
  const passedRounds = options.rounds - failedRounds.length;
  console.log(
    `${passedRounds}/${options.rounds} rounds passed` +
      (failedRounds.length > 0 ? `; failed rounds: ${failedRounds.join(', ')}` : ''),
  );
  process.exit(failedRounds.length > 0 ? 1 : 0);
}

void main();
