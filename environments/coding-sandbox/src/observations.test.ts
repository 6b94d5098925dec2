import { formatRunReport, formatTestReport, MAX_OBSERVATION_CHARS } from './observations';
import type { EvaluationResult, TestOutcome } from './sandbox/evaluation';

const empty: EvaluationResult = {
  compileErrors: [],
  loadErrors: [],
  tests: [],
  stdout: '',
  stderr: '',
  stdoutDropped: 0,
  stderrDropped: 0,
};

describe('observations stay bounded in total', () => {
  it('cuts a test report whose bounded parts add up past the limit, with a note saying how much', () => {
    // Each field is within what the sandbox lets through; eight detailed failures of them are not.
    const failure = (index: number): TestOutcome => ({
      name: `test ${index}`,
      suite: 'a.test.ts',
      status: 'error',
      message: 'm'.repeat(6000),
    });
    const report = formatTestReport(
      'RUN_TESTS',
      { ...empty, tests: Array.from({ length: 8 }, (_, i) => failure(i)) },
      '',
    );
    expect(report.length).toBeLessThanOrEqual(MAX_OBSERVATION_CHARS + 40);
    expect(report).toMatch(/…\[truncated \d+ chars\]$/);
    expect(report.startsWith('RUN_TESTS: 0 of 8 tests passed.')).toBe(true);
  });

  it('leaves an ordinary report whole', () => {
    const report = formatRunReport('(code)', { ...empty, run: { status: 'ok', value: '42' }, stdout: 'hi\n' });
    expect(report).toBe('RUN (code): finished.\n=> 42\n\nstdout:\nhi');
  });
});

describe('observations carry no control characters', () => {
  // eslint-disable-next-line no-control-regex -- the characters a client printing observations would run
  const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it('shows what a program printed, threw or named its tests with escapes in place of control characters', () => {
    // A program's own output reached the observation raw: a screen clear, a window title, a NUL, a carriage return
    // hiding "FAIL", a CSI in its C1 form and a bidi override.
    const run = formatRunReport('(code)', {
      ...empty,
      run: { status: 'error', error: 'Error: bell\u0007' },
      stdout: '\u001b[2J\u001b]0;pwned\u0007ok\u0000FAIL\rPASS\n',
      stderr: '\u009b31m\u202ereversed\ttabbed\n',
    });
    expect(run).not.toMatch(CONTROLS);
    expect(run).toBe(
      'RUN (code): threw.\n  Error: bell\\u0007\n\nstdout:\n\\u001b[2J\\u001b]0;pwned\\u0007ok\\u0000FAIL\\u000dPASS\n\nstderr:\n\\u009b31m\\u202ereversed\ttabbed',
    );
    const tests = formatTestReport(
      'RUN_TESTS',
      {
        ...empty,
        tests: [{ name: 'title \u001b[8m', suite: 'a.test.ts', status: 'error', message: 'Error: \u0000' }],
        compileErrors: [{ path: 'b.ts', message: 'SyntaxError: \u001bc' }],
      },
      '',
    );
    expect(tests).not.toMatch(CONTROLS);
    expect(tests).toContain('ERROR a.test.ts › title \\u001b[8m\n  Error: \\u0000');
    expect(tests).toContain('Compile error in b.ts: SyntaxError: \\u001bc');
  });
});
