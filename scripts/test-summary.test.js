'use strict';
const { describe, expect, it } = require('@jest/globals');
const { join } = require('node:path');
const { filtersByName, isCi, skipFailure, skippedNote, summarize } = require('./test-summary');

const ROOT = '/repo';

/** A jest `--json` result: one file, tests by status (the shape jest 30 writes). */
function results(statuses) {
  const assertionResults = Object.entries(statuses).map(([fullName, status]) => ({ fullName, status }));
  const count = (status) => assertionResults.filter((test) => test.status === status).length;
  return {
    numPassedTests: count('passed'),
    numFailedTests: count('failed'),
    numPendingTests: count('pending'),
    numTodoTests: count('todo'),
    numTotalTests: assertionResults.length,
    testResults: [{ name: join(ROOT, 'packages/lm/src/backend.test.ts'), assertionResults }],
  };
}

const mixed = summarize(
  results({ 'a runs': 'passed', 'b breaks': 'failed', 'c wasm (skipped: no wasm)': 'pending', 'd later': 'todo' }),
  ROOT,
);

describe('summarize', () => {
  it('counts passed and failed, and lists skipped and todo tests with their file', () => {
    expect(mixed).toMatchObject({ passed: 1, failed: 1, total: 4 });
    expect(mixed.skipped).toEqual([
      { fullName: 'c wasm (skipped: no wasm)', file: 'packages/lm/src/backend.test.ts', status: 'pending' },
      { fullName: 'd later', file: 'packages/lm/src/backend.test.ts', status: 'todo' },
    ]);
  });
});

describe('the skip rule', () => {
  it('lets a test skip outside CI, and says which skipped', () => {
    expect(skipFailure(mixed, { env: {}, args: [] })).toBeNull();
    expect(skippedNote(mixed)).toContain('packages/lm/src/backend.test.ts: c wasm (skipped: no wasm)');
  });

  it('fails under CI=true or a TURNGYM_REQUIRE_* flag, listing every skipped test', () => {
    for (const env of [{ CI: 'true' }, { TURNGYM_REQUIRE_WASM: '1' }, { TURNGYM_REQUIRE_CHROMIUM: '1' }]) {
      const failure = skipFailure(mixed, { env, args: [] });
      expect(failure).toMatch(/^2 test\(s\) skipped in CI \((CI=true|TURNGYM_REQUIRE_\w+=1)\)/);
      expect(failure).toContain('packages/lm/src/backend.test.ts: c wasm (skipped: no wasm) (pending)');
      expect(failure).toContain('packages/lm/src/backend.test.ts: d later (todo)');
    }
  });

  it('passes a CI run where nothing skipped', () => {
    const clean = summarize(results({ 'a runs': 'passed' }), ROOT);
    expect(skipFailure(clean, { env: { CI: 'true', TURNGYM_REQUIRE_WASM: '1' }, args: [] })).toBeNull();
    expect(skippedNote(clean)).toBeNull();
  });

  it('takes CI=false, CI=0 and a flag other than 1 as not CI', () => {
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({ CI: '0' })).toBe(false);
    expect(isCi({ TURNGYM_REQUIRE_WASM: '0' })).toBe(false);
    expect(isCi({ CI: '1' })).toBe(true);
  });

  it('exempts a run filtered by test name (-t), whose other tests jest reports as skipped', () => {
    expect(filtersByName(['-t', 'schema files'])).toBe(true);
    expect(filtersByName(['--testNamePattern=schema'])).toBe(true);
    expect(filtersByName(['packages/lm'])).toBe(false);
    expect(skipFailure(mixed, { env: { CI: 'true' }, args: ['-t', 'a runs'] })).toBeNull();
  });
});
