import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { ScalingServerSettings } from './scaling-server';

/**
 * OpenEnv's scaling test (`tutorial/03-scaling.md`, "Scaling Experiments"), against `turngym serve`'s code:
 * a batch is N concurrent requests, each one client session over `/ws` (connect, `reset`, one `step` whose
 * env sleeps a fixed time, `close`), all started at once. A batch size counts as held only if every
 * repetition reaches ≥ 95% success; P99 is of the whole request time (connect + reset + step); requests/s is
 * the batch's successful requests over its wall time. Timeouts: 60 s to connect and 60 s per reply (OpenEnv's
 * client waits 60 s per reply; its 10 s connect default cannot be what its own test used, since its 16,384
 * run reports a connect P50 of 17.5 s). Client and server share this machine.
 */

export interface ScalingBatchRow {
  readonly workers: number;
  readonly sessions: number;
  /** Lowest success rate over the repetitions. */
  readonly successRate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Mean over the repetitions. */
  readonly requestsPerSecond: number;
  /** Why requests failed, counted over the repetitions. */
  readonly failures: Record<string, number>;
}

export interface SessionMemory {
  readonly workers: number;
  readonly sessions: number;
  /** Of every held session (connected and reset). */
  readonly held: number;
  /** Server processes' PSS with no session, and with them all held (MB). */
  readonly idleMb: number;
  readonly heldMb: number;
  readonly kbPerSession: number;
}

export interface CpuBoundRow {
  readonly workers: number;
  readonly stepsPerSecond: number;
}

export interface ServerScalingResult {
  readonly waitMs: number;
  readonly reps: number;
  readonly batches: ScalingBatchRow[];
  readonly memory: SessionMemory[];
  readonly cpuBound: { cpuMs: number; sessions: number; rows: CpuBoundRow[] };
  readonly openFileLimit: string;
}

export interface ServerScalingOptions {
  readonly sizes: readonly number[];
  readonly workers: readonly number[];
  readonly reps: number;
  /** Step duration (OpenEnv's tables: wait = 1.0 s). */
  readonly waitMs: number;
  /** Sessions held open at once for the memory measurement. */
  readonly holdSessions: number;
  /** CPU-bound throughput: each step computes this long; this many sessions step in closed loops. */
  readonly cpuMs: number;
  readonly cpuSessions: number;
  readonly durationMs: number;
}

const CONNECT_TIMEOUT_MS = 60_000;
const REPLY_TIMEOUT_MS = 60_000;

interface ScalingServer {
  readonly url: string;
  readonly pids: number[];
  stop(): Promise<void>;
}

async function startServer(settings: ScalingServerSettings): Promise<ScalingServer> {
  const child: ChildProcess = fork(join(__dirname, 'scaling-server.js'), [], {
    env: { ...process.env, TURNGYM_SCALING_SERVER: JSON.stringify(settings) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { url, pids } = await new Promise<{ url: string; pids: number[] }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string; pids: number[] }));
    void exited.then(() => reject(new Error('the scaling server exited before it listened')));
  });
  return {
    url: url.replace(/^http/, 'ws'),
    pids,
    stop: async () => {
      child.send('close');
      await exited;
    },
  };
}

/** Proportional set size of the processes (MB): shared pages split between them, so workers add up honestly. */
function pssMb(pids: readonly number[]): number {
  let kb = 0;
  for (const pid of pids) {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    kb += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  }
  return kb / 1024;
}

/** An open `/ws` session that sends a message and waits for the next reply. */
class Session {
  private waiting: ((reply: { type: string; data?: { message?: string; code?: string } }) => void) | undefined;
  private failed: ((error: Error) => void) | undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (raw: Buffer) => this.waiting?.(JSON.parse(raw.toString('utf8'))));
    socket.on('close', (code: number) => this.failed?.(new Error(`closed ${code}`)));
    socket.on('error', (error: Error) => this.failed?.(error));
  }

  static open(url: string): Promise<Session> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${url}/ws`, { handshakeTimeout: CONNECT_TIMEOUT_MS, perMessageDeflate: false });
      socket.once('open', () => resolve(new Session(socket)));
      socket.once('error', (error: Error & { code?: string }) =>
        reject(new Error(`connect: ${error.code ?? error.message}`)),
      );
    });
  }

  request(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('reply timeout')), REPLY_TIMEOUT_MS);
      this.failed = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      this.waiting = (reply) => {
        clearTimeout(timer);
        if (reply.type === 'error') reject(new Error(`${reply.data?.code ?? 'error'}`));
        else resolve();
      };
      this.socket.send(JSON.stringify(message));
    });
  }

  /**
   * OpenEnv's `close` message; resolves once the socket is gone on this side, so the next batch does not start
   * while this one's sockets still hold file descriptors (a 16,384 batch would run into the open-file limit).
   */
  close(): Promise<void> {
    this.waiting = undefined;
    this.failed = undefined;
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ type: 'close' }));
      const cut = setTimeout(() => this.socket.terminate(), REPLY_TIMEOUT_MS);
      void closed.then(() => clearTimeout(cut));
    } else this.socket.terminate();
    return closed;
  }
}

/**
 * One request of a batch: its total time (ms: connect, reset, step), or why it failed; settles once its
 * socket is closed.
 */
async function oneRequest(url: string): Promise<number | string> {
  const started = performance.now();
  let session: Session | undefined;
  try {
    session = await Session.open(url);
    await session.request({ type: 'reset', data: { seed: 0 } });
    await session.request({ type: 'step', data: { text: 'go' } });
    return performance.now() - started;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await session?.close();
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function runBatches(
  url: string,
  workers: number,
  sizes: readonly number[],
  reps: number,
): Promise<ScalingBatchRow[]> {
  const rows: ScalingBatchRow[] = [];
  for (const sessions of sizes) {
    const latencies: number[] = [];
    const failures: Record<string, number> = {};
    let lowest = 1;
    let rps = 0;
    for (let rep = 0; rep < reps; rep += 1) {
      const started = performance.now();
      let lastAnswer = started;
      const outcomes = await Promise.all(
        Array.from({ length: sessions }, () =>
          oneRequest(url).then((outcome) => {
            if (typeof outcome === 'number') lastAnswer = Math.max(lastAnswer, started + outcome);
            return outcome;
          }),
        ),
      );
      // The batch's wall time ends with its last answer, not with the closing of its sockets.
      const wallS = (lastAnswer - started) / 1000;
      const ok = outcomes.filter((outcome): outcome is number => typeof outcome === 'number');
      latencies.push(...ok);
      for (const outcome of outcomes) if (typeof outcome === 'string') failures[outcome] = (failures[outcome] ?? 0) + 1;
      lowest = Math.min(lowest, ok.length / sessions);
      rps += wallS > 0 ? ok.length / wallS / reps : 0;
      process.stderr.write(
        `  workers ${workers}, ${sessions} sessions, rep ${rep + 1}: ${((100 * ok.length) / sessions).toFixed(1)}% in ${wallS.toFixed(1)} s\n`,
      );
      // Every socket of the batch is closed; give the server a moment to close their envs too.
      await sleep(1000);
    }
    latencies.sort((a, b) => a - b);
    rows.push({
      workers,
      sessions,
      successRate: lowest,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      requestsPerSecond: rps,
      failures,
    });
  }
  return rows;
}

/** Connects and resets `count` sessions (a few hundred at a time), measures the server, closes them. */
async function holdSessions(server: ScalingServer, workers: number, count: number): Promise<SessionMemory> {
  const idleMb = pssMb(server.pids);
  const held: Session[] = [];
  for (let start = 0; start < count; start += 512) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(512, count - start) }, async () => {
        try {
          const session = await Session.open(server.url);
          await session.request({ type: 'reset', data: { seed: 0 } });
          return session;
        } catch {
          return undefined;
        }
      }),
    );
    for (const session of opened) if (session) held.push(session);
  }
  await sleep(500);
  const heldMb = pssMb(server.pids);
  await Promise.all(held.map((session) => session.close()));
  await sleep(1000);
  return {
    workers,
    sessions: count,
    held: held.length,
    idleMb,
    heldMb,
    kbPerSession: ((heldMb - idleMb) * 1024) / Math.max(1, held.length),
  };
}

/** Closed loops of CPU-bound steps for `durationMs`: steps/s over all sessions. */
async function cpuBoundThroughput(url: string, sessions: number, durationMs: number): Promise<number> {
  const opened = await Promise.all(Array.from({ length: sessions }, () => Session.open(url)));
  await Promise.all(opened.map((session) => session.request({ type: 'reset', data: { seed: 0 } })));
  let steps = 0;
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    opened.map(async (session) => {
      while (performance.now() < until) {
        await session.request({ type: 'step', data: { text: 'go' } });
        steps += 1;
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  await Promise.all(opened.map((session) => session.close()));
  return steps / elapsedS;
}

function openFileLimit(): string {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const line = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits);
  return line ? `${line[1]} soft / ${line[2]} hard` : 'unknown';
}

export async function serverScaling(options: ServerScalingOptions): Promise<ServerScalingResult> {
  const maxSessions = Math.max(options.holdSessions, ...options.sizes) * 2;
  const batches: ScalingBatchRow[] = [];
  const memory: SessionMemory[] = [];
  for (const workers of options.workers) {
    const server = await startServer({ workers, maxSessions, waitMs: options.waitMs, cpuMs: 0 });
    try {
      // Memory first, on the fresh server: after the batches its heap has grown for garbage already collected.
      memory.push(await holdSessions(server, workers, options.holdSessions));
      batches.push(...(await runBatches(server.url, workers, options.sizes, options.reps)));
    } finally {
      await server.stop();
    }
  }
  const cores = cpus().length;
  const cpuWorkers = [...new Set([1, 2, cores, ...(cores <= 2 ? [4] : [])])].sort((a, b) => a - b);
  const rows: CpuBoundRow[] = [];
  for (const workers of cpuWorkers) {
    const server = await startServer({
      workers,
      maxSessions: 4 * options.cpuSessions,
      waitMs: 0,
      cpuMs: options.cpuMs,
    });
    try {
      rows.push({
        workers,
        stepsPerSecond: await cpuBoundThroughput(server.url, options.cpuSessions, options.durationMs),
      });
    } finally {
      await server.stop();
    }
  }
  return {
    waitMs: options.waitMs,
    reps: options.reps,
    batches,
    memory,
    cpuBound: { cpuMs: options.cpuMs, sessions: options.cpuSessions, rows },
    openFileLimit: openFileLimit(),
  };
}
