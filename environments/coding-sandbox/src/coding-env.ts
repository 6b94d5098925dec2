import {
  BaseEnv,
  EnvBusyError,
  EnvClosedError,
  InvalidOptionsError,
  type EnvResetOutcome,
  type EnvStepOutcome,
} from '@turngym/core';
import type { Action, Env, EnvSpec, Info, ToolCall } from '@turngym/spec';
import { parseCodingAction } from './action-parser';
import { validateCodingOptions, validateCodingResetOptions, type CodingOptions } from './coding-options';
import { CODING_TOOLS } from './coding-tools';
import { boundObservation, formatProblems, formatRunReport, formatTestReport } from './observations';
import type { EvaluationRequest, EvaluationResult, SandboxLimits } from './sandbox/evaluation';
import { SandboxPool } from './sandbox/sandbox-pool';
import { hiddenScore, hiddenTestsRequest, SNIPPET_MODULE, visibleTestsRequest, withFiles } from './task-evaluation';
import type { CodingTask } from './tasks/coding-task';
import { DEFAULT_TASKS_FILE, InvalidTaskFileError, loadTasks, selectTasks } from './tasks/task-loader';
import { Workspace, type WorkspaceLimits } from './workspace';

export const CODING_FUNCTION_ID = 'turngym/coding-sandbox-v1';
export const CODING_FIX_ID = 'turngym/coding-fix-v1';

/** What a coding env may be given: the sandbox pool to run code in (default: the process-wide shared pool). */
export interface CodingDependencies {
  readonly sandbox?: SandboxPool;
}

/** How many of the last visible test run failed: the first half of the anchor. */
export type FailingBucket = 'untested' | 'broken' | 'none' | 'some' | 'most' | 'all';
/** The kind of the last action: the second half of the anchor. */
export type ActionKind = 'START' | 'WRITE' | 'EDIT' | 'READ' | 'RUN' | 'RUN_TESTS' | 'SUBMIT' | 'INVALID';

interface EpisodeState {
  task: CodingTask;
  files: Record<string, string>;
  failing: FailingBucket;
  last: ActionKind;
  /** How the last step ended the episode, if it did (replayed by a fork). */
  ended?: { terminated: boolean; truncated: boolean };
}

const KIND_OF_TOOL: Readonly<Record<string, ActionKind>> = {
  WRITE_FILE: 'WRITE',
  EDIT_FILE: 'EDIT',
  READ_FILE: 'READ',
  RUN: 'RUN',
  RUN_TESTS: 'RUN_TESTS',
  SUBMIT: 'SUBMIT',
};

function instructions(task: CodingTask, options: CodingOptions): string {
  const goal =
    task.kind === 'fix'
      ? 'Fix the bug in the source files so that the failing test passes. Change the source, not the tests: SUBMIT grades the source on hidden tests.'
      : 'Write the requested function or class in the named file and export it. SUBMIT grades it on hidden tests.';
  return [
    'You are solving a programming task in a sandboxed TypeScript/JavaScript workspace.',
    goal,
    '',
    'Each turn, call exactly one tool. Any text before the call is ignored; the call comes last.',
    'WRITE_FILE <path>   then the whole file in a fenced code block (```ts … ```)',
    'EDIT_FILE <path>    then the lines',
    '<<<<<<< SEARCH',
    '(exact lines from the file, found exactly once)',
    '=======',
    '(the lines to put instead)',
    '>>>>>>> REPLACE',
    'READ_FILE <path>    show a file',
    'RUN <path>          run a file; or RUN then a fenced code block (it may import your files; its last expression is shown)',
    'RUN_TESTS           run the visible tests (each failure shows expected and actual)',
    'SUBMIT              grade the workspace on the hidden tests; the episode ends',
    'JSON arguments work too, e.g. READ_FILE({"path": "solution.ts"}), as do function calls with the tool schemas.',
    '',
    `The sandbox runs code synchronously: ${options.timeLimitMs} ms per test or run, ${options.totalTimeLimitMs} ms per test run, ${options.memoryLimitMb} MB of memory,`,
    `and ${options.outputLimit} characters of output per stream. It has no file system, network, timers, processes, environment or npm`,
    "packages: only the JavaScript language, your own files (import them with relative paths) and 'assert'. TypeScript types are",
    'stripped, not checked.',
    `Reward: ${options.allOrNothing ? '1 if every hidden test passes, else 0' : 'the fraction of hidden tests that pass'}; a submission that does not compile or load, or no`,
    `submission within ${options.maxTurns} turns, costs ${options.formatPenalty}.`,
  ].join('\n');
}

/** The abstract target of a file action: `solution`, `cart`, `test`, or `new` for a file the task did not have. */
function targetOf(path: string, task: CodingTask | undefined): string {
  if (/\.(test|spec)\.[a-z]+$/.test(path)) return 'test';
  if (task && !(path in task.files)) return 'new';
  const base = path.split('/').pop() ?? path;
  return base.replace(/\.[A-Za-z]+$/, '') || 'file';
}

function bucketOf(result: EvaluationResult): FailingBucket {
  const total = result.tests.length;
  if (total === 0)
    return result.compileErrors.length > 0 || result.loadErrors.length > 0 || result.fatal ? 'broken' : 'untested';
  const failing = result.tests.filter((test) => test.status !== 'pass').length;
  if (failing === 0) return 'none';
  if (failing === total) return 'all';
  return failing * 2 <= total ? 'some' : 'most';
}

/**
 * The coding environment: the agent edits a small TypeScript/JavaScript workspace with tools and submits it; the code
 * runs in a sandbox (isolated-vm inside supervised worker processes, see `SandboxPool`) and is graded on hidden tests.
 * Two ids share it: function problems (`turngym/coding-sandbox-v1`) and fix-the-failing-test tasks (`turngym/coding-fix-v1`).
 */
/**
 * Each task of a user's task file is checked once per process, the first time an episode draws it: its
 * canonical solution must pass every hidden test without being scored as malformed, pass what RUN_TESTS runs
 * (the visible tests and the workspace's test files), and its wrong solution must fail a hidden test. A peer's
 * file whose reference fails its own tests (or whose tests pass anything) was otherwise scored without a word,
 * charging the agent for the task's bug. The bundled tasks are checked by this package's tests instead.
 *
 * A check holds for the limits it ran under (a reference that fits 1000 ms may not fit a client's 100 ms; one that fits
 * a 100,000-character file may not fit 20,000), so checks are kept per task and per limits.
 */
const checkedTasks = new WeakMap<CodingTask, Map<string, Promise<void>>>();

function checksOf(task: CodingTask): Map<string, Promise<void>> {
  let checks = checkedTasks.get(task);
  if (!checks) {
    checks = new Map();
    checkedTasks.set(task, checks);
  }
  return checks;
}

/**
 * Why the agent could not even write the reference into its workspace, or undefined. A reference file longer than
 * `maxFileChars`, or one with more new files than `maxFiles` allows, passed its tests in the check (which writes no
 * workspace) and was played: WRITE_FILE refused it, and the scripted expert scored 0 on a task no agent could solve.
 */
function workspaceProblem(task: CodingTask, limits: WorkspaceLimits): string | undefined {
  const written = Object.entries(task.canonical_solution).filter(([path, content]) => task.files[path] !== content);
  for (const [path, content] of written) {
    if (content.length > limits.maxFileChars)
      return `its canonical_solution's ${path} has ${content.length} characters, more than the ${limits.maxFileChars} a workspace file may hold (maxFileChars): no agent could write it`;
  }
  const added = written.filter(([path]) => !(path in task.files)).length;
  const total = Object.keys(task.files).length + added;
  if (added > 0 && total > limits.maxFiles)
    return `its canonical_solution needs ${total} files in the workspace, more than the ${limits.maxFiles} it may hold (maxFiles): no agent could write them`;
  return undefined;
}
/** Whether a result may say more about the machine's load (or the sandbox's health) than about the task. */
function hitLimit(result: EvaluationResult): boolean {
  return (
    result.fatal !== undefined || result.tests.some((test) => test.status === 'timeout' || test.status === 'not-run')
  );
}

/** Why an evaluation did not pass: its fatal error, first compile or load error, or first test that did not pass. */
function firstProblem(result: EvaluationResult, suite?: string): string | undefined {
  const failed = result.tests.find((test) => (suite === undefined || test.suite === suite) && test.status !== 'pass');
  const problem =
    result.fatal ??
    (result.compileErrors[0] && `${result.compileErrors[0].path}: ${result.compileErrors[0].message}`) ??
    (result.loadErrors[0] && `${result.loadErrors[0].path}: ${result.loadErrors[0].message}`) ??
    (failed ? `${failed.name.slice(0, 80)}: ${failed.message ?? failed.status}` : undefined);
  return problem?.slice(0, 300);
}

/** A malformed final answer: a source file does not compile, or the code under test cannot even be imported. */
function isMalformed(result: EvaluationResult): boolean {
  return (
    result.compileErrors.some((error) => !/\.(test|spec)\.[a-z]+$/.test(error.path)) ||
    result.loadErrors.some((error) => error.path === SNIPPET_MODULE)
  );
}

/**
 * How many times over a reference must fit in its time limits: at most half of `timeLimitMs` for each test, half of
 * `totalTimeLimitMs` for a whole run (Polygon's rule for a model solution against a problem's time limit). A reference
 * that fit with no margin was accepted, and its tests then decided by the machine's load: a prime-counting reference
 * took 540 to 1,340 ms of a 1,000 ms limit on one loaded machine, so the expert's score, and every agent's, varied.
 */
const REFERENCE_TIME_MARGIN = 2;

/** The same request, asking the sandbox for each test's duration. */
function timed(request: EvaluationRequest): EvaluationRequest {
  return request.job.type === 'tests' ? { ...request, job: { ...request.job, timings: true } } : request;
}

/** Per test, the faster of two measurements of the same run (same tests, same order): load only ever adds time. */
function fasterOf(first: EvaluationResult, second: EvaluationResult): EvaluationResult {
  const tests = first.tests.map((test, index) => {
    const again = second.tests[index]?.durationMs;
    return again !== undefined && test.durationMs !== undefined && again < test.durationMs
      ? { ...test, durationMs: again }
      : test;
  });
  return { ...first, tests };
}

/** Why a reference's run does not fit its limits with the margin, or undefined when it does. */
function overMargin(result: EvaluationResult, which: string, limits: SandboxLimits): string | undefined {
  let slowest: { name: string; durationMs: number } | undefined;
  let total = 0;
  for (const test of result.tests) {
    const durationMs = test.durationMs ?? 0;
    total += durationMs;
    if (!slowest || durationMs > slowest.durationMs) slowest = { name: test.name, durationMs };
  }
  const advice = `a reference must fit ${REFERENCE_TIME_MARGIN} times over, or whether an equally fast solution passes depends on the machine's load: use smaller inputs, or raise the limit`;
  if (slowest && slowest.durationMs * REFERENCE_TIME_MARGIN > limits.timeMs) {
    return `its canonical_solution took ${Math.round(slowest.durationMs)} ms on the ${which} test ${JSON.stringify(slowest.name.slice(0, 80))}, more than 1/${REFERENCE_TIME_MARGIN} of its ${limits.timeMs} ms limit (timeLimitMs): ${advice}`;
  }
  if (total * REFERENCE_TIME_MARGIN > limits.totalTimeMs) {
    return `its canonical_solution took ${Math.round(total)} ms for its ${result.tests.length} ${which} tests together, more than 1/${REFERENCE_TIME_MARGIN} of the ${limits.totalTimeMs} ms budget of a run (totalTimeLimitMs): ${advice}`;
  }
  return undefined;
}

async function checkTask(
  source: string,
  task: CodingTask,
  sandbox: SandboxPool,
  limits: SandboxLimits,
  workspace: WorkspaceLimits,
  key: string,
): Promise<void> {
  const refuse = (problem: string, result?: EvaluationResult, slow = false) => {
    const unsettled = slow || (result !== undefined && hitLimit(result));
    const note =
      unsettled && !slow ? '; a limit or a crash, which a busy machine can cause: checked again at the next reset' : '';
    const error = new InvalidTaskFileError(source, [`task ${task.task_id}: ${problem}${note}`]);
    // A refusal a busy machine can cause (a test stopped at its time limit, tests past the total budget, a sandbox
    // process that died or was killed) is not remembered: the next reset checks the task again. It was, and one slow
    // moment refused a task for the rest of the process.
    if (unsettled) checksOf(task).delete(key);
    return error;
  };
  const unwritable = workspaceProblem(task, workspace);
  if (unwritable !== undefined) throw refuse(unwritable);
  const canonicalFiles = withFiles(task, task.canonical_solution);
  const hidden = await sandbox.evaluate(timed(hiddenTestsRequest(task, canonicalFiles, limits)));
  const canonical = hiddenScore(task, hidden);
  if (canonical.passed < canonical.total) {
    throw refuse(
      `its canonical_solution passes ${canonical.passed} of ${canonical.total} hidden tests (${firstProblem(hidden, SNIPPET_MODULE)})`,
      hidden,
    );
  }
  // Passing every hidden test is not enough: a starting file that does not compile (and that the solution leaves as
  // it is) made every submission malformed, so the reference itself scored 1 - formatPenalty; and a visible test
  // (or a test file of the workspace) that the reference fails showed the agent a test no solution can pass.
  if (isMalformed(hidden)) {
    throw refuse(`its canonical_solution is scored as malformed, with the format penalty (${firstProblem(hidden)})`);
  }
  const visible = await sandbox.evaluate(timed(visibleTestsRequest(task, canonicalFiles, limits)));
  const visibleProblem = firstProblem(visible);
  if (visibleProblem !== undefined) {
    const passed = visible.tests.filter((test) => test.status === 'pass').length;
    throw refuse(
      `its canonical_solution passes ${passed} of ${visible.tests.length} visible tests (RUN_TESTS) (${visibleProblem})`,
      visible,
    );
  }
  // Passing within the limits is not enough either: a reference that needs most of a limit passes or fails with the
  // load. A run over the margin is measured once more (the faster of the two counts), as a busy moment only adds time.
  let hiddenTimed = hidden;
  let visibleTimed = visible;
  let slow = overMargin(hiddenTimed, 'hidden', limits) ?? overMargin(visibleTimed, 'visible', limits);
  if (slow !== undefined) {
    hiddenTimed = fasterOf(hidden, await sandbox.evaluate(timed(hiddenTestsRequest(task, canonicalFiles, limits))));
    visibleTimed = fasterOf(visible, await sandbox.evaluate(timed(visibleTestsRequest(task, canonicalFiles, limits))));
    slow = overMargin(hiddenTimed, 'hidden', limits) ?? overMargin(visibleTimed, 'visible', limits);
  }
  if (slow !== undefined) throw refuse(`${slow} (measured twice; checked again at the next reset)`, undefined, true);
  const wrong = hiddenScore(
    task,
    await sandbox.evaluate(hiddenTestsRequest(task, withFiles(task, task.wrong_solution), limits)),
  );
  if (wrong.passed === wrong.total) {
    throw refuse(`its wrong_solution passes all ${wrong.total} hidden tests, so they cannot tell a wrong solution`);
  }
}

export class CodingEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec;
  readonly options: CodingOptions;
  /** Every task of the task file (the scripted expert looks tasks up here). */
  readonly tasks: readonly CodingTask[];
  private readonly candidates: readonly CodingTask[];
  private readonly sandbox: SandboxPool;
  private state: EpisodeState | undefined;
  private workspace: Workspace | undefined;
  /** The reset() or step() whose sandbox evaluation has not settled yet (fork() refuses then, as BaseEnv's does). */
  private pending: 'reset' | 'step' | undefined;

  constructor(
    options: Partial<CodingOptions> = {},
    private readonly dependencies: CodingDependencies = {},
  ) {
    super();
    this.options = validateCodingOptions(options);
    this.sandbox = dependencies.sandbox ?? SandboxPool.shared();
    this.tasks = loadTasks(this.options.tasksFile === '' ? DEFAULT_TASKS_FILE : this.options.tasksFile);
    this.candidates = selectTasks(this.tasks, {
      kind: this.options.taskKind,
      split: this.options.split,
      difficulty: this.options.difficulty,
    });
    if (this.options.taskId !== '' && !this.tasks.some((task) => task.task_id === this.options.taskId)) {
      throw new InvalidOptionsError('coding environment', [
        `taskId "${this.options.taskId}" is not in the task file (${this.tasks.length} tasks)`,
      ]);
    }
    if (this.candidates.length === 0 && this.options.taskId === '') {
      throw new InvalidOptionsError('coding environment', [
        `no ${this.options.taskKind} task matches split "${this.options.split}" and difficulty "${this.options.difficulty}"`,
      ]);
    }
    const id = this.options.taskKind === 'fix' ? CODING_FIX_ID : CODING_FUNCTION_ID;
    this.spec = {
      specificationVersion: 'v1',
      id,
      summary:
        this.options.taskKind === 'fix'
          ? 'Fix the planted bug that makes a test fail in a small TypeScript project; code runs in a sandbox.'
          : 'Write a JavaScript/TypeScript function (or class) that passes hidden tests; code runs in a sandbox.',
      observationSpace: { type: 'text' },
      actionSpace: {
        type: 'tools',
        tools: CODING_TOOLS,
        examples: [
          'RUN_TESTS',
          'SUBMIT',
          'READ_FILE(solution.ts)',
          'RUN\n```ts\nconsole.log(1 + 1)\n```',
          'WRITE_FILE solution.ts\n```ts\nexport {};\n```',
        ],
      },
      tools: CODING_TOOLS,
      maxTurns: this.options.maxTurns,
      rewardRange: [-this.options.formatPenalty, 1],
      docs: {
        description:
          'A coding agent edits a small virtual workspace and runs code in a sandbox (isolated-vm isolates inside supervised, locked-down worker processes: CPU-time and memory limits, no file system, network, processes, environment or host objects).',
        actionSpace:
          'Tools WRITE_FILE(path, content), EDIT_FILE(path, search, replace), READ_FILE(path), RUN(code | path), RUN_TESTS(), SUBMIT(); JSON arguments, function calls, or the block syntax (a header line, then a fenced code block or SEARCH/REPLACE markers).',
        observationSpace:
          'Text: the task (statement, signature or files, visible tests) on reset; then each tool result: test reports with expected vs actual, run output truncated with a note, file contents.',
        rewards: `0 per step; on SUBMIT the fraction of hidden tests passed (or 1/0 with allOrNothing), minus formatPenalty (${this.options.formatPenalty}) if the submission does not compile or load. Reaching maxTurns without SUBMIT gives -formatPenalty.`,
        startingState:
          'A task drawn with the seed from the chosen split and difficulty (or taskId), with its starting files.',
        episodeEnd: 'Terminates on SUBMIT (info.success when every hidden test passes); truncates at maxTurns.',
        arguments:
          'taskKind, split, difficulty, taskId, tasksFile, maxTurns, allOrNothing, formatPenalty, timeLimitMs, totalTimeLimitMs, memoryLimitMb, outputLimit, maxFileChars, maxFiles.',
        versionHistory: 'v1: first version.',
      },
    };
  }

  /** The task of the current episode (undefined before the first reset). */
  get task(): CodingTask | undefined {
    return this.state?.task;
  }

  /** A copy of the current workspace files. */
  files(): Record<string, string> {
    return this.workspace?.snapshot() ?? {};
  }

  protected spawn(): CodingEnv {
    return new CodingEnv(this.options, this.dependencies);
  }

  /** Native fork: the twin gets a copy of the workspace and episode state; no action is executed again. */
  override async fork(): Promise<Env<string, Action>> {
    if (this.isClosed) throw new EnvClosedError(this.spec.id);
    // A twin taken while a RUN or SUBMIT waits for the sandbox got the episode halfway through that step: its state
    // already said `last=SUBMIT`, its action log did not have the SUBMIT, and during a reset it paired the new seed
    // with the previous task and workspace.
    if (this.pending !== undefined) throw new EnvBusyError(this.spec.id, 'fork', this.pending);
    const twin = this.spawn();
    this.copyEpisodeStateTo(twin);
    if (this.state) twin.install(structuredClone(this.snapshotState()));
    return twin;
  }

  private snapshotState(): EpisodeState {
    const state = this.state as EpisodeState;
    return { ...state, files: this.files(), ...(state.ended ? { ended: { ...state.ended } } : {}) };
  }

  private install(state: EpisodeState): void {
    this.state = state;
    this.workspace = new Workspace(state.files, this.options);
  }

  private get limits(): SandboxLimits {
    return {
      timeMs: this.options.timeLimitMs,
      totalTimeMs: this.options.totalTimeLimitMs,
      memoryMb: this.options.memoryLimitMb,
      outputChars: this.options.outputLimit,
    };
  }

  private async whilePending<T>(call: 'reset' | 'step', run: () => Promise<T>): Promise<T> {
    this.pending = call;
    try {
      return await run();
    } finally {
      this.pending = undefined;
    }
  }

  protected onReset(seed: number, options: Record<string, unknown> | undefined): Promise<EnvResetOutcome<string>> {
    return this.whilePending('reset', () => this.startEpisode(seed, options));
  }

  private async startEpisode(
    _seed: number,
    options: Record<string, unknown> | undefined,
  ): Promise<EnvResetOutcome<string>> {
    const resetOptions = validateCodingResetOptions(options ?? {});
    const wanted = resetOptions.taskId ?? (this.options.taskId !== '' ? this.options.taskId : undefined);
    let task: CodingTask;
    if (wanted !== undefined) {
      const found = this.tasks.find((candidate) => candidate.task_id === wanted);
      if (!found)
        throw new InvalidOptionsError('coding environment', [
          `taskId "${wanted}" is not in the task file (${this.tasks.length} tasks)`,
        ]);
      task = found;
    } else {
      task = this.rng.pick(this.candidates);
    }
    if (this.options.tasksFile !== '') {
      // Keyed by the task itself (a task file that was rewritten, and so read again, is checked again) and the limits.
      const limits = this.limits;
      const { maxFileChars, maxFiles } = this.options;
      const key = JSON.stringify([limits.timeMs, limits.totalTimeMs, limits.memoryMb, maxFileChars, maxFiles]);
      const checks = checksOf(task);
      let check = checks.get(key);
      if (!check) {
        check = checkTask(this.options.tasksFile, task, this.sandbox, limits, { maxFileChars, maxFiles }, key);
        checks.set(key, check);
        // A check the sandbox could not finish (a crash, a stall under load) is tried again next time.
        check.catch((error: unknown) => {
          if (!(error instanceof InvalidTaskFileError)) checks.delete(key);
        });
      }
      await check;
    }
    this.install({ task, files: { ...task.files }, failing: 'untested', last: 'START' });
    const paths = Object.keys(task.files).sort();
    const observation = `${task.prompt}\n\nWorkspace: ${paths.join(', ')}. Task ${task.task_id}.`;
    const info: Info = {
      taskId: task.task_id,
      taskKind: task.kind,
      difficulty: task.difficulty,
      category: task.category,
      split: task.split,
      language: task.language,
    };
    return { observation, instructions: instructions(task, this.options), info };
  }

  protected onStep(action: Action): Promise<EnvStepOutcome<string>> {
    return this.whilePending('step', () => this.takeStep(action));
  }

  private async takeStep(action: Action): Promise<EnvStepOutcome<string>> {
    const state = this.state as EpisodeState;
    const last = state.last;
    let outcome: EnvStepOutcome<string>;
    try {
      outcome = await this.apply(action, state);
    } catch (error) {
      // A step the sandbox could not answer (an EnvFaultError, retried by the caller) is not in the action log: the
      // anchor still named it as the last action (`last=SUBMIT` of an episode that had not submitted).
      state.last = last;
      throw error;
    }
    if (outcome.terminated) {
      state.ended = { terminated: true, truncated: false };
      return outcome;
    }
    // The env's own turn limit: no SUBMIT in time is a missing final answer (format penalty, ALGORITHMS.md §0).
    if (this.turn + 1 >= this.options.maxTurns) {
      state.ended = { terminated: false, truncated: true };
      const penalty = this.options.formatPenalty;
      return {
        ...outcome,
        observation: `${outcome.observation}\n\nTurn limit (${this.options.maxTurns}) reached without SUBMIT: the episode ends${penalty > 0 ? ` with the format penalty (-${penalty})` : ''}.`,
        reward: outcome.reward - penalty,
        truncated: true,
        info: { ...outcome.info, truncatedBy: 'time-limit', success: false },
      };
    }
    return outcome;
  }

  private async apply(action: Action, state: EpisodeState): Promise<EnvStepOutcome<string>> {
    const parsed = parseCodingAction(action as string | ToolCall);
    if (!parsed.ok) {
      state.last = 'INVALID';
      return {
        observation: `Invalid action: ${parsed.feedback}`,
        reward: 0,
        terminated: false,
        info: { invalidAction: true, feedback: parsed.feedback },
      };
    }
    const { name, arguments: args } = parsed.call;
    state.last = KIND_OF_TOOL[name] ?? 'INVALID';
    const workspace = this.workspace as Workspace;
    const info: Info = { tool: name };
    switch (name) {
      case 'WRITE_FILE':
      case 'EDIT_FILE': {
        const change =
          name === 'WRITE_FILE'
            ? workspace.write(String(args.path), String(args.content))
            : workspace.edit(String(args.path), String(args.search), String(args.replace));
        state.files = workspace.snapshot();
        return change.ok
          ? { observation: change.note, reward: 0, terminated: false, info }
          : {
              observation: change.feedback,
              reward: 0,
              terminated: false,
              info: { ...info, feedback: change.feedback },
            };
      }
      case 'READ_FILE': {
        const path = String(args.path);
        const content = workspace.read(path);
        if (content === undefined) {
          const feedback = `READ_FILE: there is no file ${path}. Files: ${workspace.paths().join(', ') || '(none)'}.`;
          return { observation: feedback, reward: 0, terminated: false, info: { ...info, feedback } };
        }
        const fence = path.endsWith('.json') ? 'json' : path.endsWith('.js') ? 'js' : 'ts';
        return {
          observation: `${path}:\n\`\`\`${fence}\n${content.replace(/\n$/, '')}\n\`\`\``,
          reward: 0,
          terminated: false,
          info,
        };
      }
      case 'RUN': {
        const code = typeof args.code === 'string' ? args.code : undefined;
        const path = typeof args.path === 'string' ? args.path : undefined;
        if (path !== undefined && !workspace.has(path)) {
          const feedback = `RUN: there is no file ${path}. Files: ${workspace.paths().join(', ') || '(none)'}.`;
          return { observation: feedback, reward: 0, terminated: false, info: { ...info, feedback } };
        }
        const result = await this.sandbox.evaluate({
          files: workspace.snapshot(),
          job: code !== undefined ? { type: 'run', code } : { type: 'run', path: path as string },
          limits: this.limits,
        });
        return {
          observation: formatRunReport(code !== undefined ? '(code)' : (path as string), result),
          reward: 0,
          terminated: false,
          info: { ...info, runStatus: result.run?.status ?? 'error' },
        };
      }
      case 'RUN_TESTS': {
        const result = await this.sandbox.evaluate(visibleTestsRequest(state.task, workspace.snapshot(), this.limits));
        state.failing = bucketOf(result);
        const passed = result.tests.filter((test) => test.status === 'pass').length;
        return {
          observation: formatTestReport('RUN_TESTS', result, SNIPPET_MODULE),
          reward: 0,
          terminated: false,
          info: { ...info, testsPassed: passed, testsTotal: result.tests.length },
        };
      }
      default:
        return this.submit(state, workspace, info);
    }
  }

  private async submit(state: EpisodeState, workspace: Workspace, info: Info): Promise<EnvStepOutcome<string>> {
    const task = state.task;
    const result = await this.sandbox.evaluate(hiddenTestsRequest(task, workspace.snapshot(), this.limits));
    const { passed, total } = hiddenScore(task, result);
    const success = passed === total;
    // Malformed final answer: a source file does not compile, or the code under test cannot even be imported.
    const malformed = isMalformed(result);
    const score = this.options.allOrNothing ? (success ? 1 : 0) : passed / total;
    const penalty = malformed ? this.options.formatPenalty : 0;
    const reward = score - penalty;
    const lines = [`SUBMIT: ${passed} of ${total} hidden tests passed. Reward ${reward.toFixed(2)}.`];
    const problems = formatProblems(result, SNIPPET_MODULE);
    if (problems.length > 0) lines.push('', ...problems);
    if (malformed && penalty > 0)
      lines.push('', `Format penalty -${penalty}: the submitted code does not compile or cannot be loaded.`);
    state.failing = bucketOf(result);
    return {
      observation: boundObservation(lines.join('\n')),
      reward,
      terminated: true,
      info: { ...info, success, hiddenPassed: passed, hiddenTotal: total, malformed },
    };
  }

  /** `WRITE(solution)`, `EDIT(helper)`, `READ(cart)`, `RUN(code)`, `RUN(solution)`, `RUN_TESTS`, `SUBMIT` or `INVALID`. */
  fingerprint(action: Action): string {
    if (typeof action !== 'string' && (typeof action !== 'object' || action === null)) return 'INVALID';
    const parsed = parseCodingAction(action as string | ToolCall);
    if (!parsed.ok) return 'INVALID';
    const { name, arguments: args } = parsed.call;
    const task = this.state?.task;
    switch (name) {
      case 'WRITE_FILE':
        return `WRITE(${targetOf(String(args.path), task)})`;
      case 'EDIT_FILE':
        return `EDIT(${targetOf(String(args.path), task)})`;
      case 'READ_FILE':
        return `READ(${targetOf(String(args.path), task)})`;
      case 'RUN':
        return typeof args.code === 'string' ? 'RUN(code)' : `RUN(${targetOf(String(args.path), task)})`;
      default:
        return name;
    }
  }

  /** The bucket of failing visible tests at the last test run, and the kind of the last action: `failing=some;last=EDIT`. */
  anchor(): string {
    return `failing=${this.state?.failing ?? 'untested'};last=${this.state?.last ?? 'START'}`;
  }
}
