/** @turngym/env-coding-sandbox — coding tasks graded in a sandbox for untrusted JavaScript/TypeScript. */
export {
  CodingEnv,
  CODING_FIX_ID,
  CODING_FUNCTION_ID,
  type CodingDependencies,
  type ActionKind,
  type FailingBucket,
} from './coding-env';
export {
  codingOptionsSchema,
  validateCodingOptions,
  type CodingOptions,
  type CodingResetOptions,
} from './coding-options';
export { CODING_TOOLS } from './coding-tools';
export { parseCodingAction } from './action-parser';
export { CodingExpert, minimalEdit, writeFileAction, editFileAction } from './coding-expert';
export { Workspace, type WorkspaceLimits } from './workspace';
export { SandboxPool, type SandboxPoolOptions, type SandboxPoolStats } from './sandbox/sandbox-pool';
export type {
  EvaluationJob,
  EvaluationRequest,
  EvaluationResult,
  RunOutcome,
  SandboxLimits,
  TestOutcome,
  TestSnippets,
  TestStatus,
} from './sandbox/evaluation';
export { hiddenScore, hiddenTestsRequest, visibleTestsRequest, SNIPPET_MODULE } from './task-evaluation';
export {
  codingTaskSchema,
  type CodingTask,
  type Difficulty,
  type TaskCategory,
  type TaskKind,
  type TaskLanguage,
  type TaskSplit,
} from './tasks/coding-task';
export {
  DEFAULT_TASKS_FILE,
  InvalidTaskFileError,
  loadTasks,
  parseTasks,
  selectTasks,
  type TaskFilter,
} from './tasks/task-loader';
export { register } from './register';
