import { showControlCharacters } from '@turngym/core';
import type { EvaluationResult, TestOutcome } from './sandbox/evaluation';

const MAX_DETAILED_FAILURES = 8;
/**
 * The most characters of one observation. Every field of a result is already bounded inside the sandbox; this bounds
 * their sum (eight failures in detail, load errors, two output streams), so no program can hand the agent a flood.
 */
export const MAX_OBSERVATION_CHARS = 32000;

/** `text` cut to `max` characters with a note saying how much was cut (the sandbox's notes read the same). */
export function truncateText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…[truncated ${text.length - max} chars]` : text;
}

/** An observation of what the sandbox answered: control characters shown as escapes, within `MAX_OBSERVATION_CHARS`. */
export function boundObservation(text: string): string {
  // What a program printed, threw or named its tests reached every client of an env server and every trajectory log
  // raw: NULs, terminal escape sequences, carriage returns that hide the text before them (tabs and lines kept).
  return truncateText(showControlCharacters(text, true), MAX_OBSERVATION_CHARS);
}

function indent(text: string, prefix = '  '): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

function streamSection(name: string, text: string, dropped: number): string | undefined {
  if (text === '' && dropped === 0) return undefined;
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const note = dropped > 0 ? ` (first ${text.length} of ${text.length + dropped} characters; the rest was cut)` : '';
  return `${name}${note}:\n${body}`;
}

/** stdout and stderr of a run, each with a note when it was truncated. */
export function formatOutput(result: EvaluationResult): string[] {
  return [
    streamSection('stdout', result.stdout, result.stdoutDropped),
    streamSection('stderr', result.stderr, result.stderrDropped),
  ].filter((section): section is string => section !== undefined);
}

function testLabel(test: TestOutcome, snippetSuite: string): string {
  return test.suite === snippetSuite ? test.name : `${test.suite} › ${test.name}`;
}

function describeFailure(test: TestOutcome, snippetSuite: string): string {
  const label = testLabel(test, snippetSuite);
  switch (test.status) {
    case 'fail': {
      const lines = [`FAIL ${label}`];
      if (test.message && !/^toEqual failed$|^toBe failed$/.test(test.message)) lines.push(`  ${test.message}`);
      lines.push(`  expected: ${test.expected ?? '?'}`, `  actual:   ${test.actual ?? '?'}`);
      return lines.join('\n');
    }
    case 'error':
      return `ERROR ${label}\n${indent(test.message ?? 'error')}`;
    case 'timeout':
      return `TIMEOUT ${label}\n  ${test.message ?? 'time limit exceeded'}`;
    case 'memory':
      return `MEMORY ${label}\n  ${test.message ?? 'memory limit exceeded'}`;
    case 'not-run':
      return `NOT RUN ${label}\n  ${test.message ?? ''}`;
    default:
      return `PASS ${label}`;
  }
}

/** Compile and load problems, shared by test and run reports. */
export function formatProblems(result: EvaluationResult, hiddenSuite?: string): string[] {
  const lines: string[] = [];
  for (const error of result.compileErrors) lines.push(`Compile error in ${error.path}: ${error.message}`);
  for (const error of result.loadErrors) {
    const where = error.path === hiddenSuite ? 'the tests' : error.path;
    lines.push(`Could not load ${where}: ${error.message}`);
  }
  if (result.fatal) lines.push(`The sandbox stopped the run: ${result.fatal}.`);
  return lines;
}

/**
 * A test report for the agent: a summary line, each failure with expected and actual values (the first few in
 * full), compile/load problems, then the captured output.
 */
export function formatTestReport(title: string, result: EvaluationResult, snippetSuite: string): string {
  const passed = result.tests.filter((test) => test.status === 'pass').length;
  const total = result.tests.length;
  const sections: string[] = [];
  sections.push(
    total === 0 ? `${title}: no test ran.` : `${title}: ${passed} of ${total} test${total === 1 ? '' : 's'} passed.`,
  );
  const failures = result.tests.filter((test) => test.status !== 'pass');
  const detailed = failures.slice(0, MAX_DETAILED_FAILURES).map((test) => describeFailure(test, snippetSuite));
  if (failures.length > MAX_DETAILED_FAILURES)
    detailed.push(`… and ${failures.length - MAX_DETAILED_FAILURES} more failing tests.`);
  if (detailed.length > 0) sections.push(detailed.join('\n'));
  const problems = formatProblems(result);
  if (problems.length > 0) sections.push(problems.join('\n'));
  sections.push(...formatOutput(result));
  return boundObservation(sections.join('\n\n'));
}

/** The report of a RUN: status, value or error, output. */
export function formatRunReport(target: string, result: EvaluationResult): string {
  const run = result.run;
  const sections: string[] = [];
  if (!run) sections.push(`RUN ${target}: nothing ran.`);
  else if (run.status === 'ok')
    sections.push(run.value === undefined ? `RUN ${target}: finished.` : `RUN ${target}: finished.\n=> ${run.value}`);
  else sections.push(`RUN ${target}: ${run.status === 'error' ? 'threw' : 'stopped'}.\n${indent(run.error ?? '')}`);
  const problems = formatProblems({ ...result, fatal: run ? undefined : result.fatal } as EvaluationResult);
  if (problems.length > 0) sections.push(problems.join('\n'));
  const output = formatOutput(result);
  sections.push(...(output.length > 0 ? output : ['(no output)']));
  return boundObservation(sections.join('\n\n'));
}
