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
