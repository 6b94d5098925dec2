import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadPlugins, Registry } from '@turngym/core';
import { serveMcp, type McpServerHandle } from '@turngym/mcp';
import type { Action, Env } from '@turngym/spec';
import { assertBuiltUpToDate, builtPackageDirs } from './helpers/built-output';
import { CLI, REPO_ROOT } from './helpers/run-built-cli';

// Every registered env, played to the end by the MCP SDK's own client over both transports: Streamable HTTP
// (serveMcp in this process) and stdio (the built `turngym serve --mcp` as a child process, all envs in one
// server, switched with reset's env_id). Each episode is the env's scripted baseline playing a twin of the env
// in this process; every MCP result must equal the twin's step.
assertBuiltUpToDate(builtPackageDirs(['packages/cli', 'packages/mcp'], { plugins: true }));
const registry = new Registry();
loadPlugins(registry, { searchFrom: [join(__dirname, '..')] });
const IDS = registry.list();

/** Client-settable options that keep an episode small (the wiki envs on a 50-article corpus). */
function envOptionsOf(id: string): Record<string, unknown> | undefined {
  return id.startsWith('turngym/wiki-') ? { articles: 50 } : undefined;
}

type Structured = Record<string, unknown> & { observation: unknown; info: Record<string, unknown> };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}(${JSON.stringify(args)}) failed: ${JSON.stringify(result.content)}`);
  const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text;
  expect(typeof text).toBe('string');
  return result.structuredContent as Structured;
}

/** An agent's action as the MCP tool call that carries it. */
function toolCallOf(action: Action, env: Env<any, any>): { name: string; args: Record<string, unknown> } {
  const space = env.spec.actionSpace;
  if (typeof action === 'number') return { name: 'act', args: { index: action } };
  if (typeof action === 'string') {
    if (space.type === 'discrete') return { name: 'act', args: { index: space.labels.indexOf(action) } };
    return { name: 'act', args: { text: action } };
  }
  return { name: action.name, args: action.arguments ?? {} };
}

/** Plays one episode of `id` over `client`; returns the number of turns. */
async function playEpisode(client: Client, id: string, seed: number, switchTo: boolean): Promise<number> {
  const envOptions = envOptionsOf(id);
  const twin = await registry.make(id, envOptions ? { options: envOptions } : {});
  try {
    const reset = await call(client, 'reset', {
      seed,
      ...(envOptions ? { env_options: envOptions } : {}),
      ...(switchTo ? { env_id: id } : {}),
    });
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('reset');
    for (const tool of twin.spec.tools ?? []) expect(names).toContain(tool.name);
    const expectedReset = await twin.reset({ seed });
    expect(reset.observation).toEqual(expectedReset.observation);
    expect(reset.env_id).toBe(id);
    const agents = registry.get(id).agents ?? {};
    const agent = registry.makeAgent(id, agents.scripted ? 'scripted' : 'random', { env: twin, seed });
    await agent.start({ seed, spec: twin.spec, observation: expectedReset.observation, info: expectedReset.info });
    let observation = expectedReset.observation;
    let info = expectedReset.info;
    for (let turn = 1; ; turn += 1) {
      const action = await agent.act(observation, info);
      const expected = await twin.step(action);
      const { name, args } = toolCallOf(action, twin);
      const step = await call(client, name, args);
      expect({ id, turn, observation: step.observation, reward: step.reward }).toEqual({
        id,
        turn,
        observation: expected.observation,
        reward: expected.reward,
      });
      expect(step).toMatchObject({ terminated: expected.terminated, truncated: expected.truncated });
      if (expected.terminated || expected.truncated) {
        expect(step.done).toBe(true);
        return turn;
      }
      observation = expected.observation;
      info = expected.info;
    }
  } finally {
    await twin.close();
  }
}

describe('every registered env over MCP', () => {
  it('lists them all', () => {
    expect(IDS).toEqual(expect.arrayContaining(['turngym/example-v1', 'turngym/mcp-tools-v1']));
  });

  describe('Streamable HTTP (serveMcp)', () => {
    let server: McpServerHandle;
    beforeAll(async () => {
      server = await serveMcp({ registry, ids: IDS });
    });
    afterAll(() => server.close());

    it.each(IDS)('%s: a whole episode', async (id) => {
      const client = new Client({ name: 'registered-envs', version: '1.0.0' });
      const url = new URL(`/envs/${encodeURIComponent(id)}/mcp`, server.url);
      await client.connect(new StreamableHTTPClientTransport(url));
      try {
        expect(await playEpisode(client, id, 11, false)).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });
  });

  describe('stdio (the built turngym serve --mcp)', () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: 'registered-envs', version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', ...IDS, '--mcp'],
        cwd: REPO_ROOT,
        stderr: 'pipe',
      });
      transport.stderr?.resume(); // read (and drop) the server's log, so a full pipe never blocks it
      await client.connect(transport);
    });
    afterAll(() => client.close());

    it.each(IDS)('%s: a whole episode', async (id) => {
      expect(await playEpisode(client, id, 12, true)).toBeGreaterThan(0);
    });
  });
});
