// The counting and the skip rule behind `npm test`'s last lines, apart from the runner so that a test can hold
// them to what they promise (scripts/test-summary.test.js).
'use strict';
const { relative } = require('node:path');

/** Jest's per-test statuses that mean "did not run". */
const NOT_RUN = new Set(['pending', 'todo', 'skipped', 'disabled']);

/**
 * The counts and the tests that did not run, from jest's `--json` output. A skipped test is
 * `{ fullName, file, status }`, its file relative to `root`.
 */
function summarize(results, root) {
  const skipped = [];
  for (const file of results.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (NOT_RUN.has(test.status))
        skipped.push({ fullName: test.fullName, file: relative(root, file.name), status: test.status });
    }
  }
  return {
    passed: results.numPassedTests,
    failed: results.numFailedTests,
    skipped,
    total: results.numTotalTests,
  };
}

/** The TURNGYM_REQUIRE_* flags that are set (CI sets them: what they name must be there, so its tests run). */
function requireFlags(env) {
  return Object.keys(env)
    .filter((name) => name.startsWith('TURNGYM_REQUIRE_') && env[name] === '1')
    .sort();
}

/** The CI variable most CI services set (`CI=true`); "false" and "0" mean not CI. */
function ciVariableSet(env) {
  const ci = (env.CI ?? '').trim().toLowerCase();
  return ci !== '' && ci !== 'false' && ci !== '0';
}

/** CI: the CI variable, or any TURNGYM_REQUIRE_* flag (.ci/run sets them). */
function isCi(env) {
  return ciVariableSet(env) || requireFlags(env).length > 0;
}

/** Whether jest was asked to run only the tests whose names match (`-t`): it reports the rest as skipped. */
function filtersByName(args) {
  return args.some((arg) => arg === '-t' || arg === '--testNamePattern' || arg.startsWith('--testNamePattern='));
}

/**
 * The skip rule. Locally a test may skip for want of something the machine lacks (Chromium, a wasm backend
 * that does not load): it says why in its name, and the runner lists it. In CI nothing may skip: a skipped
 * test there is a test that silently stopped guarding its feature. Returns the message that fails the run, or
 * null. A `-t` filter skips tests on purpose, so it is exempt.
 */
function skipFailure(summary, { env, args }) {
  if (summary.skipped.length === 0 || !isCi(env) || filtersByName(args)) return null;
  const why = [...(ciVariableSet(env) ? [`CI=${env.CI}`] : []), ...requireFlags(env).map((flag) => `${flag}=1`)].join(
    ', ',
  );
  return [
    `${summary.skipped.length} test(s) skipped in CI (${why}), where every test must run:`,
    ...summary.skipped.map((test) => `  ${test.file}: ${test.fullName} (${test.status})`),
    'Install what they need, or remove the skip; tests that cannot run here must fail, not skip.',
  ].join('\n');
}

/** The last line of `npm test`: the counts any CI log reader understands. */
function countLine(summary) {
  return `tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped.length} skipped`;
}

/** Outside CI, the tests that skipped, each name saying why (so a skip is never silent). */
function skippedNote(summary) {
  if (summary.skipped.length === 0) return null;
  return [
    'skipped here (allowed outside CI; CI fails on a skip):',
    ...summary.skipped.map((test) => `  ${test.file}: ${test.fullName}`),
  ].join('\n');
}

module.exports = { summarize, isCi, requireFlags, filtersByName, skipFailure, countLine, skippedNote };
