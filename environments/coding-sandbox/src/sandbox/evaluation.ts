/** What one sandboxed evaluation may use. */
export interface SandboxLimits {
  /** Wall-clock limit of one call into the sandbox: loading a file, one test, one RUN (ms). */
  readonly timeMs: number;
  /** Wall-clock budget of a whole test run; tests beyond it are reported as not run (ms). */
  readonly totalTimeMs: number;
  /** Heap limit of the isolate (MB); isolated-vm counts ArrayBuffers against it too. */
  readonly memoryMb: number;
  /** Characters of stdout and of stderr kept (each); the rest is counted and dropped inside the sandbox. */
  readonly outputChars: number;
}

/** Test snippets run as one trusted module: `setup` (imports) followed by one test per snippet. */
export interface TestSnippets {
  readonly setup: string;
  readonly tests: readonly string[];
  /** Virtual path of the generated module (default `__tests__.ts`); imports in `setup` are relative to it. */
  readonly path?: string;
}

export type EvaluationJob =
  /**
   * Load test files (their `test()` calls register tests) and/or trusted snippets, then run every test; with
   * `timings`, each test that ran reports its `durationMs`.
   */
  | {
      readonly type: 'tests';
      readonly testFiles?: readonly string[];
      readonly snippets?: TestSnippets;
      readonly timings?: boolean;
    }
  /** Run a file as the main module, or a code snippet whose last expression is reported as its value. */
  | { readonly type: 'run'; readonly path?: string; readonly code?: string };

export interface EvaluationRequest {
  /** The workspace: path → source (TypeScript, JavaScript or JSON). Untrusted. */
  readonly files: Readonly<Record<string, string>>;
  readonly job: EvaluationJob;
  readonly limits: SandboxLimits;
}

export type TestStatus = 'pass' | 'fail' | 'error' | 'timeout' | 'memory' | 'not-run';

export interface TestOutcome {
  /** The test's name: the snippet itself, or the `test()` title (with `describe` prefixes). */
  readonly name: string;
  /** The file that registered it. */
  readonly suite: string;
  readonly status: TestStatus;
  /** What went wrong (assertion, exception with the frames in the agent's files, limit hit). */
  readonly message?: string;
  /** For failed assertions: the expected and the received value, rendered. */
  readonly expected?: string;
  readonly actual?: string;
  /** Wall-clock time of the test's call into the sandbox (ms), when the job asked for `timings`. */
  readonly durationMs?: number;
}

export interface RunOutcome {
  readonly status: 'ok' | 'error' | 'timeout' | 'memory';
  /** The rendered value of the snippet's last expression. */
  readonly value?: string;
  readonly error?: string;
}

export interface EvaluationResult {
  /** Files that did not compile (TypeScript/JavaScript syntax), with the message. */
  readonly compileErrors: readonly { path: string; message: string }[];
  /** Test files that threw while loading. */
  readonly loadErrors: readonly { path: string; message: string }[];
  readonly tests: readonly TestOutcome[];
  /** For `run` jobs. */
  readonly run?: RunOutcome;
  /** Set when nothing could run: the program crashed or stalled the sandbox process, or ran out of memory at once. */
  readonly fatal?: string;
  readonly stdout: string;
  readonly stderr: string;
  /** Characters dropped past `outputChars`. */
  readonly stdoutDropped: number;
  readonly stderrDropped: number;
}
