import { Worker } from 'node:worker_threads';
import { Registry } from '@turngym/core';
import { MATH_THOUGHT_ID, MathThoughtEnv, MathThoughtExpert, register } from '@turngym/env-math-thought';
import { RemoteEnv } from '@turngym/server';
import type { Action, Agent, Env } from '@turngym/spec';

export interface ServerThroughputRow {
  /** `loopback`: one connection per session (OpenEnv's model); `loopback-multiplexed`: all on one `/mux` connection. */
  mode: 'in-process' | 'loopback' | 'loopback-multiplexed';
  sessions: number;
  /**
   * Steps/s the sessions were asked for altogether, each on its own fixed schedule; undefined = saturated
   * (each session sends its next step as soon as the last one returns).
   */
  offeredStepsPerSecond?: number | undefined;
  stepsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * The env server in its own thread (its own event loop, so its own core, as `turngym serve` in its own
 * process), built from `dist/` like the rest of the benchmark. It serves `turngym/math-thought-v1`.
 */
const SERVER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { Registry } = require(workerData.core);
const { register } = require(workerData.env);
const { serveEnvs } = require(workerData.server);
(async () => {
  const registry = new Registry();
  register(registry);
  const server = await serveEnvs({ registry, ids: [workerData.id], port: 0, maxSessions: 1024 });
  parentPort.postMessage({ url: server.url });
  parentPort.once('message', async () => {
    await server.close();
    parentPort.postMessage({ closed: true });
  });
})().catch((error) => parentPort.postMessage({ error: String((error && error.stack) || error) }));
`;

async function startServerThread(): Promise<{ url: string; stop(): Promise<void> }> {
  const paths = {
    core: require.resolve('@turngym/core'),
    env: require.resolve('@turngym/env-math-thought'),
    server: require.resolve('@turngym/server'),
  };
  if (Object.values(paths).some((path) => !path.endsWith('.js'))) {
    throw new Error('serverThroughput runs the server from dist/: build first (npm run build).');
  }
  const worker = new Worker(SERVER_THREAD, { eval: true, workerData: { ...paths, id: MATH_THOUGHT_ID } });
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      worker.once('message', (message: Record<string, unknown>) =>
        message.error ? reject(new Error(String(message.error))) : resolve(message),
      );
      worker.once('error', reject);
    });
  const { url } = (await next()) as { url: string };
  return {
    url,
    stop: async () => {
      const closed = next();
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}

/**
 * A session's send schedule at a fixed offered load: one step every `intervalMs`, starting at `phaseMs`. A step
 * whose turn has come while the last one is still out leaves as soon as that one returns, so a server that
 * falls behind shows as lower steps/s, and its queueing as the late replies' latency.
 */
interface Pace {
  readonly intervalMs: number;
  readonly phaseMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One session's loop: episodes with the scripted expert until the deadline; each step's latency recorded. */
async function drive(
  env: Env<string, Action>,
  agent: Agent<string, Action>,
  firstSeed: number,
  deadline: number,
  latencies: number[],
  pace?: Pace,
): Promise<number> {
  let steps = 0;
  let seed = firstSeed;
  let due = performance.now() + (pace?.phaseMs ?? 0);
  while (performance.now() < deadline) {
    const reset = await env.reset({ seed });
    await agent.start({ seed, spec: env.spec, observation: reset.observation, info: reset.info });
    let observation = reset.observation;
    let info = reset.info;
    for (;;) {
      const action = await agent.act(observation, info);
      if (pace) {
        if (due > performance.now()) await sleep(due - performance.now());
        due += pace.intervalMs;
      }
      const started = performance.now();
      const result = await env.step(action);
      latencies.push(performance.now() - started);
      steps += 1;
      if (result.terminated || result.truncated) break;
      observation = result.observation;
      info = result.info;
    }
    seed += 1;
  }
  return steps;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/**
 * Runs `sessions` concurrent loops: a warm-up (JIT, connections), then the timed window. With `offered`
 * steps/s the sessions' schedules are spread evenly over one interval.
 */
async function measure(
  mode: ServerThroughputRow['mode'],
  sessions: number,
  durationMs: number,
  open: () => Promise<Env<string, Action>>,
  offered?: number,
): Promise<ServerThroughputRow> {
  const intervalMs = offered ? (1000 * sessions) / offered : 0;
  const pace = (i: number): Pace | undefined =>
    offered ? { intervalMs, phaseMs: (i * intervalMs) / sessions } : undefined;
  const envs = await Promise.all(Array.from({ length: sessions }, open));
  // The expert looks each problem up by info.taskId in a local env with the same options (privileged, no I/O).
  const agents = envs.map(() => new MathThoughtExpert(new MathThoughtEnv({ calculator: false })));
  try {
    const warmup = Math.min(1000, durationMs / 3);
    let deadline = performance.now() + warmup;
    await Promise.all(
      envs.map((env, i) => drive(env, agents[i] as Agent<string, Action>, 1_000_000 * (i + 1), deadline, [], pace(i))),
    );
    const latencies: number[] = [];
    const started = performance.now();
    deadline = started + durationMs;
    const steps = await Promise.all(
      envs.map((env, i) =>
        drive(env, agents[i] as Agent<string, Action>, 1_000_000 * (i + 1) + 500_000, deadline, latencies, pace(i)),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    const sorted = Float64Array.from(latencies).sort();
    return {
      mode,
      sessions,
      offeredStepsPerSecond: offered,
      stepsPerSecond: steps.reduce((sum, n) => sum + n, 0) / elapsed,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
    };
  } finally {
    await Promise.all(envs.map((env) => env.close()));
  }
}

/**
 * Steps per second and step latency (p50/p99) of `turngym/math-thought-v1` driven by its scripted expert,
 * in-process vs over loopback (RemoteEnv ⇄ the env server in another thread; one connection per session, and
 * all sessions multiplexed on one connection), for each session count, in one run. Both sides build the env with the standard wrapper stack, so the difference is the wire:
 * encoding, validation, WebSocket framing, the TCP loopback, and the thread hop. Goal at 64 sessions on
 * 2 cores: ≥ 5k steps/s and p99 < 5 ms.
 */
export async function serverThroughput(options: {
  durationMs: number;
  sessions: number[];
  /** Also measure RemoteEnvs sharing one `/mux` connection (default true). */
  multiplexed?: boolean;
  /**
   * Also measure each mode at this offered load (steps/s over all sessions), for the session counts in
   * `paced` (default none). Saturated loops measure the most steps/s, but their latency is mostly
   * the queue they build (Little's law: sessions ÷ throughput); a fixed load gives the latency at that rate.
   */
  offeredStepsPerSecond?: number;
  paced?: number[];
}): Promise<ServerThroughputRow[]> {
  const registry = new Registry();
  register(registry);
  const loads = (sessions: number): (number | undefined)[] =>
    options.offeredStepsPerSecond && options.paced?.includes(sessions)
      ? [undefined, options.offeredStepsPerSecond]
      : [undefined];
  const rows: ServerThroughputRow[] = [];
  const each = async (mode: ServerThroughputRow['mode'], open: () => Promise<Env<string, Action>>): Promise<void> => {
    for (const sessions of options.sessions) {
      for (const offered of loads(sessions))
        rows.push(await measure(mode, sessions, options.durationMs, open, offered));
    }
  };
  await each('in-process', () => registry.make(MATH_THOUGHT_ID));
  const server = await startServerThread();
  try {
    await each('loopback', () => RemoteEnv.connect(server.url));
    if (options.multiplexed ?? true) {
      await each('loopback-multiplexed', () => RemoteEnv.connect(server.url, { multiplex: true }));
    }
  } finally {
    await server.stop();
  }
  return rows;
}
