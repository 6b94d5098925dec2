import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { EnvFaultError, readProcessStat } from '@turngym/core';
import type { EvaluationRequest, EvaluationResult } from './evaluation';

/** Where the worker's files and the packages it loads live (the same from `src/` under jest and from `dist/`). */
export interface WorkerFiles {
  readonly worker: string;
  readonly runtime: string;
  readonly isolatedVm: string;
  readonly sucrase: string;
  /** Directories the worker may read (Node's permission model denies everything else). */
  readonly readable: readonly string[];
}

function packageRoot(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

export function locateWorkerFiles(): WorkerFiles {
  const workerDir = join(__dirname, '..', '..', 'worker');
  const isolatedVmRoot = packageRoot('isolated-vm');
  const sucraseRoot = packageRoot('sucrase');
  // The node_modules directories holding the two packages (and sucrase's hoisted dependencies).
  const readable = [
    ...new Set([workerDir, dirname(isolatedVmRoot), dirname(sucraseRoot), isolatedVmRoot, sucraseRoot]),
  ];
  return {
    worker: join(workerDir, 'sandbox-worker.js'),
    runtime: join(workerDir, 'isolate-runtime.js'),
    isolatedVm: require.resolve('isolated-vm'),
    sucrase: require.resolve('sucrase'),
    readable,
  };
}

/**
 * What came back from the worker for one request. A lost request was `crashed` by the program (a fatal error of V8 in
 * the worker: the signal is the worker's own), `killed` by the watchdog (the program overran its deadline), `failed`
 * in the worker's own code, `stopped` by a signal from outside that neither the worker nor this host sent: the
 * system's out-of-memory killer, an operator's `kill`, a container shutting down; `stalled`: killed by the watchdog
 * while the worker was stopped (SIGSTOP, a debugger), not running the program; or `undelivered`: the worker was
 * already dead, or died or stalled, before it took the request, so no code of the request ran.
 */
export type ProcessReply =
  | { kind: 'result'; result: EvaluationResult; rssMb: number }
  | { kind: 'lost'; reason: 'crashed' | 'killed' | 'failed' | 'stopped' | 'stalled' | 'undelivered'; detail: string };

interface InFlight {
  readonly resolve: (reply: ProcessReply) => void;
  readonly timer: NodeJS.Timeout;
  /** Set when the worker says it has the request (before it runs any of it): until then, nothing of it has run. */
  delivered: boolean;
}

/**
 * Whether a process is stopped (state `T`, by SIGSTOP or a job-control signal, or `t`, by a debugger), from
 * `/proc/<pid>/stat` (Linux; false elsewhere or when unreadable).
 */
function isStopped(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  const state = readProcessStat(pid)?.state;
  return state === 'T' || state === 't';
}

const STDERR_TAIL = 4000;

/**
 * The signals a process raises on itself when it fails: V8's fatal errors (a heap out of memory aborts, SIGABRT; an
 * invalid size traps, SIGTRAP) and native faults. Any other signal came from outside. A worker killed with SIGKILL by
 * the OOM killer or an operator was answered "the program crashed the sandbox process" and scored 0, as if the agent's
 * program had done it.
 */
const SELF_INFLICTED_SIGNALS: ReadonlySet<string> = new Set([
  'SIGABRT',
  'SIGTRAP',
  'SIGSEGV',
  'SIGBUS',
  'SIGILL',
  'SIGFPE',
  'SIGSYS',
]);

/**
 * V8 flags of the worker process, and so of every isolate in it. Without `expose-wasm` and `validate-asm`, V8 no longer
 * builds the WebAssembly object into each new context (13% of creating one: 0.33 M of 2.55 M instructions, callgrind),
 * which the runtime deleted anyway, and asm.js code runs as plain JavaScript instead of being compiled to WebAssembly.
 * What a program can reach does not change. (A single-threaded, non-incremental collector cut another 1.2 M of the
 * 7.2 M instructions of an evaluation, but a program that fills the memory then ran into its time limit before its
 * memory limit, so it is not used.)
 */
const ISOLATE_V8_FLAGS = ['--no-expose-wasm', '--no-validate-asm'];

/**
 * One sandbox worker process (`worker/sandbox-worker.js`). It serves one request at a time; the host kills it
 * when a request overruns its deadline and notices when it dies. A dead process is never reused.
 *
 * Its handlers and watchdog belong to no session: `SandboxPool` creates and drives it only as `runUnowned` code (its
 * dispatch, `warm()`), so every callback registered here inherits that scope.
 */
export class SandboxProcess {
  private readonly child: ChildProcess;
  private readonly started: Promise<void>;
  private inFlight: InFlight | undefined;
  private nextId = 0;
  private stderrTail = '';
  private exited = false;
  /** What the watchdog found when it killed the worker (see `ProcessReply`). */
  private watchdogVerdict: { reason: 'killed' | 'stalled' | 'undelivered'; detail: string } | undefined;
  /** Set synchronously when a request is accepted, before the worker may even be up. */
  private claimed = false;
  /** Requests this process has served. */
  evaluations = 0;

  constructor(files: WorkerFiles, workerHeapMb: number) {
    const { child, started } = this.start(files, workerHeapMb);
    this.child = child;
    this.started = started;
    this.idle();
  }

  private start(files: WorkerFiles, workerHeapMb: number): { child: ChildProcess; started: Promise<void> } {
    const child = fork(files.worker, [files.isolatedVm, files.sucrase, files.runtime], {
      // Nothing of the host's environment (tokens, paths, NODE_OPTIONS) reaches the worker.
      env: {},
      cwd: dirname(files.worker),
      execArgv: [
        '--experimental-permission',
        '--allow-addons',
        ...files.readable.map((dir) => `--allow-fs-read=${dir}`),
        `--max-old-space-size=${workerHeapMb}`,
        ...ISOLATE_V8_FLAGS,
        '--no-warnings',
      ],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    const started = new Promise<void>((resolve, reject) => {
      const onMessage = (message: { type?: string }): void => {
        if (message?.type === 'ready') {
          child.off('message', onMessage);
          resolve();
        }
      };
      child.on('message', onMessage);
      child.once('exit', (code, signal) =>
        reject(
          new EnvFaultError(
            `The sandbox worker exited before it was ready (${signal ?? `exit code ${code}`}): ${this.stderrTail.trim() || 'no output'}`,
          ),
        ),
      );
      child.once('error', (error) =>
        reject(new EnvFaultError(`The sandbox worker could not start: ${error.message}`, { cause: error })),
      );
    });
    started.catch(() => undefined);
    child.on(
      'message',
      (message: { type?: string; id?: number; result?: EvaluationResult; rssMb?: number; message?: string }) => {
        const pending = this.inFlight;
        if (!pending || message?.id !== this.nextId - 1) return;
        if (message.type === 'received') pending.delivered = true;
        else if (message.type === 'result' && message.result)
          this.settle({ kind: 'result', result: message.result, rssMb: message.rssMb ?? 0 });
        else if (message.type === 'failure')
          this.settle({ kind: 'lost', reason: 'failed', detail: message.message ?? 'unknown failure' });
      },
    );
    child.on('exit', () => {
      this.exited = true;
    });
    // Settled on 'close', once everything the worker wrote has been read: its "received" comes before its death.
    child.on('close', (code, signal) => {
      this.exited = true;
      const fromOutside = signal !== null && !SELF_INFLICTED_SIGNALS.has(signal);
      // A worker that died while idle (killed from outside between two evaluations) and whose death was noticed only
      // after the next request was handed to it never received that request: it was "the program crashed the
      // sandbox process" for a program that had not run.
      const undelivered = this.inFlight !== undefined && !this.inFlight.delivered;
      const verdict = this.watchdogVerdict;
      this.settle({
        kind: 'lost',
        reason: verdict?.reason ?? (undelivered ? 'undelivered' : fromOutside ? 'stopped' : 'crashed'),
        detail: verdict?.detail ?? `${signal ?? `exit code ${code}`}: ${this.stderrTail.trim()}`,
      });
    });
    return { child, started };
  }

  get alive(): boolean {
    return !this.exited;
  }

  get busy(): boolean {
    return this.claimed;
  }

  /**
   * Resolves when the worker is up; rejects (EnvFaultError) when it cannot start. Whoever waits holds the event loop
   * until then: an idle worker does not (see `idle`), so `await pool.warm()` in a script with nothing else pending let
   * Node exit, silently and with status 0, before the next line ran.
   */
  ready(): Promise<void> {
    if (!this.claimed && !this.exited) {
      this.busy_();
      const release = (): void => {
        if (!this.claimed) this.idle();
      };
      void this.started.then(release, release);
    }
    return this.started;
  }

  /** Sends one request; the watchdog kills the process if no answer comes within `deadlineMs`. */
  async evaluate(request: EvaluationRequest, deadlineMs: number): Promise<ProcessReply> {
    if (this.claimed) throw new Error('SandboxProcess serves one request at a time');
    this.claimed = true;
    // Hold the event loop from now on: a script whose only pending work is this evaluation must not exit while the
    // worker is still starting.
    this.busy_();
    try {
      await this.started;
    } catch (error) {
      this.claimed = false;
      this.idle();
      throw error;
    }
    if (this.exited) {
      this.claimed = false;
      this.idle();
      return { kind: 'lost', reason: 'undelivered', detail: 'the worker had exited before the request was sent' };
    }
    this.evaluations += 1;
    const id = this.nextId++;
    return new Promise<ProcessReply>((resolve) => this.send(request, id, resolve, deadlineMs));
  }

  private send(
    request: EvaluationRequest,
    id: number,
    resolve: (reply: ProcessReply) => void,
    deadlineMs: number,
  ): void {
    const timer = setTimeout(() => {
      this.watchdogVerdict = this.overrun(deadlineMs);
      this.child.kill('SIGKILL');
    }, deadlineMs);
    this.inFlight = { resolve, timer, delivered: false };
    const files = Object.entries(request.files);
    this.child.send({ type: 'evaluate', id, request: { files, job: request.job, limits: request.limits } }, (error) => {
      // Not written (the channel of a worker that has died is closed): no code of the request ran.
      if (error)
        this.settle({ kind: 'lost', reason: 'undelivered', detail: `could not send the request: ${error.message}` });
    });
  }

  /**
   * Why the request overran its deadline. Only a program that runs can overrun it: a worker that never took the
   * request, or that is stopped (SIGSTOP, a debugger) when the deadline comes, was not running the program, which was
   * answered "time limit exceeded" for it (`1 + 1` in a worker stopped with SIGSTOP). A worker merely starved of CPU
   * by a busy machine is not told apart: time limits are wall-clock, inside the isolate as here.
   */
  private overrun(deadlineMs: number): { reason: 'killed' | 'stalled' | 'undelivered'; detail: string } {
    if (this.inFlight && !this.inFlight.delivered)
      return { reason: 'undelivered', detail: `the worker did not take the request within ${deadlineMs} ms` };
    if (isStopped(this.child.pid))
      return {
        reason: 'stalled',
        detail: `the worker was stopped (SIGSTOP or a debugger) at its ${deadlineMs} ms deadline`,
      };
    return { reason: 'killed', detail: `killed at its ${deadlineMs} ms deadline` };
  }

  /** Stops the process (idempotent). */
  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  private settle(reply: ProcessReply): void {
    const pending = this.inFlight;
    if (!pending) return;
    this.inFlight = undefined;
    this.claimed = false;
    clearTimeout(pending.timer);
    this.idle();
    pending.resolve(reply);
  }

  // An idle worker must not keep the host's event loop alive (a script or a test run can end while the pool
  // still holds warm workers); a busy one must, or a pending evaluation would be dropped.
  private idle(): void {
    this.child.unref();
    this.child.channel?.unref();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  private busy_(): void {
    this.child.ref();
    this.child.channel?.ref();
    (this.child.stderr as { ref?: () => void } | null)?.ref?.();
  }
}
