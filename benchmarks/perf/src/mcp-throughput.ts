import { Worker } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Registry } from '@turngym/core';
import { MATH_THOUGHT_ID, MathThoughtEnv, MathThoughtExpert, register } from '@turngym/env-math-thought';
import { nodeHttpFetch } from '@turngym/env-mcp-tools';
import { RemoteEnv } from '@turngym/server';
import type { Action, Agent, Info } from '@turngym/spec';

export interface McpThroughputRow {
  mode:
    | 'in-process'
    | 'WebSocket (RemoteEnv)'
    | 'MCP Streamable HTTP'
    | 'MCP Streamable HTTP, node:http fetch'
    | 'MCP stdio';
  sessions: number;
  stepsPerSecond: number;
  /** CPU of this process (client, and the server thread where there is one) per step; undefined for stdio. */
  cpuMsPerStep: number | undefined;
  p50Ms: number;
  p99Ms: number;
}

/** What the loop needs of an env: the in-process env, a RemoteEnv, or an MCP session seen through its tools. */
interface Episodic {
  reset(args: { seed: number }): Promise<{ observation: unknown; info: Info }>;
  step(action: string): Promise<{ observation: unknown; terminated: boolean; truncated: boolean; info: Info }>;
  close(): Promise<void>;
}

/**
 * Both servers in one thread of their own (as `turngym serve` in its own process), built from `dist/`: the
 * WebSocket server and the MCP server over Streamable HTTP, serving the same env, so the two wires are compared
 * with the same thread hop and the same loopback.
 */
const SERVER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { Registry } = require(workerData.core);
const { register } = require(workerData.env);
const { serveEnvs } = require(workerData.server);
const { serveMcp } = require(workerData.mcp);
(async () => {
  const registry = new Registry();
  register(registry);
  const ws = await serveEnvs({ registry, ids: [workerData.id], port: 0, maxSessions: 1024 });
  const mcp = await serveMcp({ registry, ids: [workerData.id], port: 0, maxSessions: 1024 });
  parentPort.postMessage({ wsUrl: ws.url, mcpUrl: mcp.url });
  parentPort.once('message', async () => {
    await Promise.all([ws.close(), mcp.close()]);
    parentPort.postMessage({ closed: true });
  });
})().catch((error) => parentPort.postMessage({ error: String((error && error.stack) || error) }));
`;

/** One stdio MCP server process per session: what an MCP host starts. */
const STDIO_SERVER = `
const { Registry } = require(process.env.TURNGYM_CORE);
const { register } = require(process.env.TURNGYM_ENV);
const { serveMcpStdio } = require(process.env.TURNGYM_MCP);
const registry = new Registry();
register(registry);
serveMcpStdio({ registry, ids: [process.env.TURNGYM_ID] }).then((server) => server.closed).then(() => process.exit(0));
`;

function builtPaths(): Record<'core' | 'env' | 'server' | 'mcp', string> {
  const paths = {
    core: require.resolve('@turngym/core'),
    env: require.resolve('@turngym/env-math-thought'),
    server: require.resolve('@turngym/server'),
    mcp: require.resolve('@turngym/mcp'),
  };
  if (Object.values(paths).some((path) => !path.endsWith('.js')))
    throw new Error('mcpThroughput runs the servers from dist/: build first (npm run build).');
  return paths;
}

async function startServers(): Promise<{ wsUrl: string; mcpUrl: string; stop(): Promise<void> }> {
  const worker = new Worker(SERVER_THREAD, { eval: true, workerData: { ...builtPaths(), id: MATH_THOUGHT_ID } });
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      worker.once('message', (message: Record<string, unknown>) =>
        message.error ? reject(new Error(String(message.error))) : resolve(message),
      );
      worker.once('error', reject);
    });
  const { wsUrl, mcpUrl } = (await next()) as { wsUrl: string; mcpUrl: string };
  return {
    wsUrl,
    mcpUrl,
    stop: async () => {
      const closed = next();
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}

/** An MCP session as an env: `reset` and `act` tool calls, the step read from the structured content. */
async function mcpSession(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Episodic> {
  const client = new Client({ name: 'bench-perf', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools(); // as a host does; the client then checks each result against the tool's outputSchema
  const structured = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  return {
    reset: async ({ seed }) => {
      const data = await structured('reset', { seed });
      return { observation: data.observation, info: data.info as Info };
    },
    step: async (action) => {
      const data = await structured('act', { text: action });
      return {
        observation: data.observation,
        terminated: data.terminated as boolean,
        truncated: data.truncated as boolean,
        info: data.info as Info,
      };
    },
    close: () => client.close(),
  };
}

/** One session's loop: episodes with the scripted expert until the deadline; each step's latency recorded. */
async function drive(env: Episodic, firstSeed: number, deadline: number, latencies: number[]): Promise<number> {
  // The expert looks each problem up by info.taskId in a local env with the same options (privileged, no I/O).
  const agent: Agent<string, Action> = new MathThoughtExpert(new MathThoughtEnv({ calculator: false }));
  const spec = new MathThoughtEnv({ calculator: false }).spec;
  let steps = 0;
  for (let seed = firstSeed; performance.now() < deadline; seed += 1) {
    const reset = await env.reset({ seed });
    await agent.start({ seed, spec, observation: reset.observation as string, info: reset.info });
    let observation = reset.observation as string;
    let info = reset.info;
    for (;;) {
      const action = (await agent.act(observation, info)) as string;
      const started = performance.now();
      const result = await env.step(action);
      latencies.push(performance.now() - started);
      steps += 1;
      if (result.terminated || result.truncated) break;
      observation = result.observation as string;
      info = result.info;
    }
  }
  return steps;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function measure(
  mode: McpThroughputRow['mode'],
  sessions: number,
  durationMs: number,
  open: () => Promise<Episodic>,
): Promise<McpThroughputRow> {
  const envs = await Promise.all(Array.from({ length: sessions }, open));
  try {
    let deadline = performance.now() + Math.min(1000, durationMs / 3);
    await Promise.all(envs.map((env, i) => drive(env, 1_000_000 * (i + 1), deadline, [])));
    const latencies: number[] = [];
    const cpu = process.cpuUsage();
    const started = performance.now();
    deadline = started + durationMs;
    const steps = await Promise.all(
      envs.map((env, i) => drive(env, 1_000_000 * (i + 1) + 500_000, deadline, latencies)),
    );
    const elapsed = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const total = steps.reduce((sum, n) => sum + n, 0);
    const sorted = Float64Array.from(latencies).sort();
    return {
      mode,
      sessions,
      stepsPerSecond: total / elapsed,
      // A stdio server's CPU is spent in processes of its own, which this process does not see.
      cpuMsPerStep: mode === 'MCP stdio' ? undefined : (used.user + used.system) / 1000 / total,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
    };
  } finally {
    await Promise.all(envs.map((env) => env.close()));
  }
}

/**
 * Step throughput and latency of `turngym/math-thought-v1` with its scripted expert, in one run: in-process
 * (the baseline), over the WebSocket server (RemoteEnv), over MCP's Streamable HTTP (the SDK's client against
 * `serveMcp`) and over MCP stdio (the SDK's client against a `serveMcpStdio` process, one per session as an MCP
 * host runs it). Saturated loops: each session sends its next step when the last returns.
 */
export async function mcpThroughput(options: { durationMs: number; sessions: number[] }): Promise<McpThroughputRow[]> {
  const registry = new Registry();
  register(registry);
  const rows: McpThroughputRow[] = [];
  for (const sessions of options.sessions)
    rows.push(await measure('in-process', sessions, options.durationMs, () => registry.make(MATH_THOUGHT_ID)));
  const servers = await startServers();
  try {
    for (const sessions of options.sessions) {
      rows.push(
        await measure(
          'WebSocket (RemoteEnv)',
          sessions,
          options.durationMs,
          () => RemoteEnv.connect(servers.wsUrl) as Promise<Episodic>,
        ),
      );
      rows.push(
        await measure('MCP Streamable HTTP', sessions, options.durationMs, () =>
          mcpSession(new StreamableHTTPClientTransport(new URL(servers.mcpUrl))),
        ),
      );
      rows.push(
        await measure('MCP Streamable HTTP, node:http fetch', sessions, options.durationMs, () =>
          mcpSession(new StreamableHTTPClientTransport(new URL(servers.mcpUrl), { fetch: nodeHttpFetch() })),
        ),
      );
    }
  } finally {
    await servers.stop();
  }
  const paths = builtPaths();
  const env = { TURNGYM_CORE: paths.core, TURNGYM_ENV: paths.env, TURNGYM_MCP: paths.mcp, TURNGYM_ID: MATH_THOUGHT_ID };
  // One server process per stdio session: a single session shows the transport; more would measure process count.
  for (const sessions of options.sessions.filter((count) => count === 1)) {
    rows.push(
      await measure('MCP stdio', sessions, options.durationMs, () =>
        mcpSession(new StdioClientTransport({ command: process.execPath, args: ['-e', STDIO_SERVER], env })),
      ),
    );
  }
  return rows;
}
