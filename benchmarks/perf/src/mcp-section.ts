import { mcpThroughput } from './mcp-throughput';

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** `--only mcp`: the MCP server's step latency and throughput beside the WebSocket server's, same env, same run. */
export const mcpSection = {
  name: 'mcp',
  title:
    'MCP server (official SDK client) vs the WebSocket server vs in-process, math-thought-v1 + scripted expert, saturated',
  async run(durationMs: number): Promise<string[]> {
    const rows = await mcpThroughput({ durationMs: durationMs / 2, sessions: [1, 16] });
    const inProcess = new Map(rows.filter((row) => row.mode === 'in-process').map((row) => [row.sessions, row]));
    return [
      'Each session sends its next step as soon as the last returns. WebSocket and MCP Streamable HTTP are served by',
      'one thread of their own (the same hop for both); MCP stdio runs one server process for its one session, as an',
      'MCP host starts it. Every MCP step is a JSON-RPC `tools/call` whose result carries the step as structured content',
      "(checked by the client against the tool's outputSchema) and as text. The SDK's HTTP client sends with the global",
      'fetch unless given another; the node:http rows give it the kept-alive node:http fetch that',
      '@turngym/env-mcp-tools uses. CPU ms/step is this process (client, plus the server thread): it depends much less on',
      'what else the machine runs than the latencies do.',
      '',
      '| mode | sessions | steps/s | vs in-process | vs WebSocket | p50 ms | p99 ms | CPU ms/step |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((row) => {
        const base = inProcess.get(row.sessions)?.stepsPerSecond ?? row.stepsPerSecond;
        const ws = rows.find((other) => other.mode === 'WebSocket (RemoteEnv)' && other.sessions === row.sessions);
        const vsWs =
          row.mode === 'in-process' || !ws ? '' : `${((100 * row.stepsPerSecond) / ws.stepsPerSecond).toFixed(0)}%`;
        return `| ${row.mode} | ${row.sessions} | ${fmt(row.stepsPerSecond)} | ${((100 * row.stepsPerSecond) / base).toFixed(0)}% | ${vsWs} | ${row.p50Ms.toFixed(2)} | ${row.p99Ms.toFixed(2)} | ${row.cpuMsPerStep === undefined ? '—' : row.cpuMsPerStep.toFixed(3)} |`;
      }),
    ];
  },
};
