import type { EvaluationRequest, EvaluationResult, SandboxLimits } from './sandbox/evaluation';
import type { CodingTask } from './tasks/coding-task';

/** Virtual path of the generated module holding a task's test snippets. Agents may not write `__*` paths. */
export const SNIPPET_MODULE = '__tests__.ts';

/** Test files of a workspace: `*.test.ts` / `*.test.js` (also `.spec.`), sorted. */
export function testFilesOf(files: Readonly<Record<string, string>>): string[] {
  return Object.keys(files)
    .filter((path) => /\.(test|spec)\.(ts|js)$/.test(path))
    .sort();
}

/** RUN_TESTS: the task's visible snippets plus every test file in the workspace. */
export function visibleTestsRequest(
  task: CodingTask,
  files: Readonly<Record<string, string>>,
  limits: SandboxLimits,
): EvaluationRequest {
  return {
    files,
    job: {
      type: 'tests',
      testFiles: testFilesOf(files),
      ...(task.visible_tests.length > 0
        ? { snippets: { setup: task.test_setup_code, tests: task.visible_tests, path: SNIPPET_MODULE } }
        : {}),
    },
    limits,
  };
}

/** SUBMIT: only the hidden snippets, against the workspace's source files (its test files are not run). */
export function hiddenTestsRequest(
  task: CodingTask,
  files: Readonly<Record<string, string>>,
  limits: SandboxLimits,
): EvaluationRequest {
  return {
    files,
    job: { type: 'tests', snippets: { setup: task.test_setup_code, tests: task.hidden_tests, path: SNIPPET_MODULE } },
    limits,
  };
}

/** Hidden-test score: passed / total, counting every test that did not pass (or never ran) as failed. */
export function hiddenScore(task: CodingTask, result: EvaluationResult): { passed: number; total: number } {
  const total = task.hidden_tests.length;
  const passed = result.tests.filter((test) => test.suite === SNIPPET_MODULE && test.status === 'pass').length;
  return { passed: Math.min(passed, total), total };
}

/** The workspace after writing `overlay` over the task's files. */
export function withFiles(task: CodingTask, overlay: Readonly<Record<string, string>>): Record<string, string> {
  return { ...task.files, ...overlay };
}
