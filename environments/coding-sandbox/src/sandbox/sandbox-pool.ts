import { availableParallelism } from 'node:os';
import { EnvFaultError, runUnowned } from '@turngym/core';
import type { EvaluationRequest, EvaluationResult } from './evaluation';
import { validateSandboxPoolOptions, type SandboxPoolOptions } from './sandbox-pool-options';
import { locateWorkerFiles, SandboxProcess, type ProcessReply, type WorkerFiles } from './sandbox-process';

export type { SandboxPoolOptions } from './sandbox-pool-options';

/** Counters for monitoring (and the soak benchmark). */
export interface SandboxPoolStats {
  evaluations: number;
  /** Workers that died under a program (a fatal V8 error such as a huge single allocation). */
  crashes: number;
  /** Workers killed because a program ignored its time limit. */
  kills: number;
  /** Workers stopped by a signal from outside (the OOM killer, an operator): the evaluation was rejected as an env fault. */
  stopped: number;
  /**
   * Workers killed at their deadline while stopped (SIGSTOP, a debugger), not running the program: the evaluation was
   * rejected as an env fault, not answered "time limit exceeded".
   */
  stalled: number;
  /** Workers started, including the first ones. */
  starts: number;
  /**
   * The most resident memory a worker reported after an evaluation (MB): what a program managed to hold beyond the
   * isolate's limit shows here (the security suite bounds it).
   */
  peakWorkerRssMb: number;
}

interface Pending {
  readonly request: EvaluationRequest;
  readonly resolve: (result: EvaluationResult) => void;
  readonly reject: (error: Error) => void;
  /** Workers that died before this evaluation reached them (see `MAX_UNDELIVERED`). */
  undelivered: number;
}

const MEMORY_CRASH = /out of memory|invalid size|allocation failed|heap limit|oom/i;
const WORKER_HEAP_MB = 256;
/**
 * How many workers may die before an evaluation reaches them (killed while idle, and noticed only once the request was
 * handed over) before it is rejected as an env fault. Until then it is sent to a new worker: none of its code ran.
 */
const MAX_UNDELIVERED = 3;

/**
 * Runs untrusted code in a pool of sandbox worker processes (isolated-vm inside each; see `worker/`).
 * Evaluations queue when every worker is busy. A worker that crashes or overruns its deadline is replaced and the
 * evaluation it was running is answered with a clear `fatal` message; the host itself is never at risk.
 *
 * Idle workers do not keep the process alive, so a script may end without `close()`; call it to stop them at once.
 *
 * The pool serves every session of a server: its workers, their handlers and timers, and the dispatch of queued
 * evaluations run as no session's code (`runUnowned`). Whichever session's evaluation happens to start a worker or
 * free one for the next in the queue, a later fault of the pool is not that session's (an env server closed it);
 * a fault of one evaluation is its caller's, as the rejection of its promise.
 */
export class SandboxPool {
  private static sharedPool: SandboxPool | undefined;

  /** The process-wide pool that environments use unless they are given one. */
  static shared(): SandboxPool {
    if (!SandboxPool.sharedPool || SandboxPool.sharedPool.closed) SandboxPool.sharedPool = new SandboxPool();
    return SandboxPool.sharedPool;
  }

  private readonly size: number;
  private readonly graceMs: number;
  private readonly recycleRssMb: number;
  private readonly maxEvaluations: number;
  private readonly processes: SandboxProcess[] = [];
  private readonly queue: Pending[] = [];
  private files: WorkerFiles | undefined;
  private closed = false;
  readonly stats: SandboxPoolStats = {
    evaluations: 0,
    crashes: 0,
    kills: 0,
    stopped: 0,
    stalled: 0,
    starts: 0,
    peakWorkerRssMb: 0,
  };

  constructor(given: SandboxPoolOptions = {}) {
    const options = validateSandboxPoolOptions(given);
    this.size = options.workers ?? Math.min(2, availableParallelism());
    this.graceMs = options.graceMs ?? 3000;
    this.recycleRssMb = options.recycleRssMb ?? 400;
    this.maxEvaluations = options.maxEvaluationsPerWorker ?? 20000;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Runs one evaluation. Rejects only for infrastructure faults (EnvFaultError): the worker cannot start, fails in its
   * own code, is stopped by a signal from outside (retryable), or the pool is closed. What the program does (crash its
   * worker, overrun its deadline) is a result.
   */
  evaluate(request: EvaluationRequest): Promise<EvaluationResult> {
    if (this.closed) return Promise.reject(new EnvFaultError('The sandbox pool is closed.', { isRetryable: false }));
    return new Promise<EvaluationResult>((resolve, reject) => {
      this.queue.push({ request, resolve, reject, undelivered: 0 });
      runUnowned(() => this.dispatch());
    });
  }

  /** Starts the workers now instead of on the first evaluation. */
  async warm(): Promise<void> {
    const ready = runUnowned(() => {
      while (this.processes.length < this.size) this.processes.push(this.spawn());
      return this.processes.map((process) => process.ready());
    });
    await Promise.all(ready);
  }

  /** Stops every worker; pending evaluations are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.queue.splice(0))
      pending.reject(new EnvFaultError('The sandbox pool was closed.', { isRetryable: false }));
    for (const process of this.processes.splice(0)) process.kill();
  }

  private spawn(): SandboxProcess {
    this.files ??= locateWorkerFiles();
    this.stats.starts += 1;
    return new SandboxProcess(this.files, WORKER_HEAP_MB);
  }

  /** Runs as no session's code (`runUnowned`): it starts workers, and evaluations of every caller. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let worker = this.processes.find((candidate) => candidate.alive && !candidate.busy);
      if (!worker) {
        // Replace dead workers and grow up to the pool size.
        for (let i = this.processes.length - 1; i >= 0; i--) if (!this.processes[i]?.alive) this.processes.splice(i, 1);
        if (this.processes.length >= this.size) return;
        worker = this.spawn();
        this.processes.push(worker);
      }
      const pending = this.queue.shift() as Pending;
      void this.run(worker, pending);
    }
  }

  private async run(worker: SandboxProcess, pending: Pending): Promise<void> {
    const { request } = pending;
    const limits = request.limits;
    const deadline =
      (request.job.type === 'tests' ? limits.totalTimeMs + limits.timeMs : 2 * limits.timeMs) + this.graceMs;
    let reply: ProcessReply;
    try {
      reply = await worker.evaluate(request, deadline);
    } catch (error) {
      this.retire(worker);
      pending.reject(error as Error);
      this.dispatch();
      return;
    }
    if (reply.kind === 'lost' && this.closed) {
      // close() killed the worker under this evaluation: the pool's fault, not the program's (it was answered as
      // "the program crashed the sandbox process", and an env scored the submission 0).
      this.stats.evaluations += 1;
      pending.reject(new EnvFaultError('The sandbox pool was closed during the evaluation.', { isRetryable: false }));
      return;
    }
    if (reply.kind === 'lost' && reply.reason === 'undelivered') {
      // The worker died before the request reached it (an idle worker killed from outside, whose exit had not been
      // noticed yet): nothing of the program ran, so it goes to a new worker, ahead of the queue. It was answered "the
      // program crashed the sandbox process", and an env scored a submission it had not run 0.
      this.retire(worker);
      pending.undelivered += 1;
      if (pending.undelivered < MAX_UNDELIVERED) this.queue.unshift(pending);
      else
        pending.reject(
          new EnvFaultError(
            `The sandbox worker died before it received the evaluation, ${MAX_UNDELIVERED} times in a row (${reply.detail.split(':')[0]?.slice(0, 200)}); nothing of the program ran.`,
          ),
        );
      this.dispatch();
      return;
    }
    this.stats.evaluations += 1;
    if (reply.kind === 'lost' && reply.reason === 'failed') {
      // The worker's own code threw (not the program's, which runs inside the isolate and is answered in the result):
      // an env fault, retried by whoever runs the episode. It was a result with nothing run, so an env scored a
      // correct submission 0 and a trainer learnt from it.
      this.retire(worker);
      pending.reject(
        new EnvFaultError(
          `The sandbox failed internally and was restarted: ${reply.detail.split('\n')[0]?.slice(0, 300)}`,
        ),
      );
      this.dispatch();
      return;
    }
    if (reply.kind === 'lost' && reply.reason === 'stopped') {
      // A signal from outside (the OOM killer, an operator's kill) stopped the worker: not the program's doing, whose
      // memory the isolate bounds and whose own fatal errors are the worker's own signals. Retryable.
      this.stats.stopped += 1;
      this.retire(worker);
      pending.reject(
        new EnvFaultError(
          `The sandbox worker was stopped from outside during the evaluation (${reply.detail.split(':')[0]}: the system's out-of-memory killer, or an operator), not by the program; a new worker was started, so the evaluation can be retried.`,
        ),
      );
      this.dispatch();
      return;
    }
    if (reply.kind === 'lost' && reply.reason === 'stalled') {
      // The watchdog killed a worker that was stopped, not running the program: `1 + 1` in a worker stopped with SIGSTOP
      // was answered "time limit exceeded" and scored 0. Retryable.
      this.stats.stalled += 1;
      this.retire(worker);
      pending.reject(
        new EnvFaultError(
          `The sandbox worker stalled and was killed: ${reply.detail}, not running the program, which did not overrun its limit; a new worker was started, so the evaluation can be retried.`,
        ),
      );
      this.dispatch();
      return;
    }
    if (reply.kind === 'result') {
      this.stats.peakWorkerRssMb = Math.max(this.stats.peakWorkerRssMb, reply.rssMb);
      if (reply.rssMb > this.recycleRssMb || worker.evaluations >= this.maxEvaluations) this.retire(worker);
      pending.resolve(reply.result);
    } else {
      if (reply.reason === 'killed') this.stats.kills += 1;
      else this.stats.crashes += 1;
      this.retire(worker);
      pending.resolve(lostResult(reply, request));
    }
    this.dispatch();
  }

  private retire(worker: SandboxProcess): void {
    worker.kill();
    const index = this.processes.indexOf(worker);
    if (index >= 0) this.processes.splice(index, 1);
  }
}

/** The answer for an evaluation whose worker died or was killed: nothing ran to completion. */
function lostResult(reply: Extract<ProcessReply, { kind: 'lost' }>, request: EvaluationRequest): EvaluationResult {
  const { limits } = request;
  let fatal: string;
  if (reply.reason === 'killed') {
    // Two things outrun the isolate's timeout: a built-in that ignores termination, and code that a value left behind
    // runs when isolated-vm reads it after the call, outside the timeout — the `message`, `stack`, `name` or `toString`
    // of an unhandled rejection's reason (`Promise.reject({ get message() { for (;;); } })` held a worker until this).
    fatal = `time limit exceeded: the program did not stop at its ${limits.timeMs} ms limit, so the sandbox process was killed (a long-running built-in operation, or an unhandled promise rejection whose reason runs code when it is read: a getter, toString or Proxy on the rejected value, which the sandbox reads after the time limit)`;
  } else if (reply.reason === 'crashed') {
    fatal = MEMORY_CRASH.test(reply.detail)
      ? `memory limit exceeded: the program made an allocation too large for the sandbox (${limits.memoryMb} MB), which stopped the sandbox process`
      : 'the program crashed the sandbox process';
  } else {
    fatal = 'internal sandbox error: the evaluation failed and the sandbox process was restarted';
  }
  const status =
    reply.reason === 'killed'
      ? ('timeout' as const)
      : MEMORY_CRASH.test(reply.detail)
        ? ('memory' as const)
        : ('error' as const);
  const run = request.job.type === 'run' ? { run: { status, error: fatal } } : {};
  return {
    compileErrors: [],
    loadErrors: [],
    tests: [],
    fatal,
    stdout: '',
    stderr: '',
    stdoutDropped: 0,
    stderrDropped: 0,
    ...run,
  };
}
