import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Registry } from '@turngym/core';
import { register } from '@turngym/env-example';
import { EchoEnv } from './__fixtures__/echo-env';
import { StreamClientTransport } from './__fixtures__/stream-client-transport';
import { serveMcpStdio } from './serve-mcp-stdio';

const ID = 'turngym/example-v1';
const ECHO = 'turngym/echo-v1';

/** A stdio server on in-process pipes, and the SDK client on their other ends. */
async function startStdio(ids: string[], onSessionClosed?: () => void) {
  const registry = new Registry();
  register(registry);
  registry.register({ id: ECHO, entryPoint: () => new EchoEnv() });
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = await serveMcpStdio({
    registry,
    ids,
    stdin: toServer,
    stdout: toClient,
    ...(onSessionClosed ? { onSessionClosed } : {}),
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(new StreamClientTransport(toClient, toServer));
  return { server, client, toServer };
}

describe('serveMcpStdio', () => {
  it('serves one env session on the pipe, switches env with reset, and ends when the host closes stdin', async () => {
    let closed = 0;
    const { server, client, toServer } = await startStdio([ID, ECHO], () => void (closed += 1));
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['reset', 'act', 'LOOKUP', 'SUBMIT']);
    const first = await client.callTool({ name: 'reset', arguments: { seed: 4 } });
    expect(first.structuredContent).toMatchObject({ env_id: ID, seed: 4 });
    const resetAgain = await client.callTool({ name: 'reset', arguments: { seed: 5, env_options: { keys: 5 } } });
    expect(resetAgain.isError).toBeFalsy();
    expect(changed).toBe(0); // the same env with other options: the same tools

    const switched = await client.callTool({ name: 'reset', arguments: { seed: 4, env_id: ECHO } });
    expect(switched.structuredContent).toMatchObject({ env_id: ECHO, observation: 'Say something.' });
    expect(changed).toBe(1);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['reset', 'act']);
    const said = await client.callTool({ name: 'act', arguments: { text: 'stop' } });
    expect(said.structuredContent).toMatchObject({
      observation: 'echo: stop',
      reward: 1,
      terminated: true,
      done: true,
    });
    expect(JSON.stringify(said.content)).toMatch(/episode over \(terminated/);

    const unknown = await client.callTool({ name: 'reset', arguments: { env_id: 'turngym/other-v1' } });
    expect(unknown.isError).toBe(true);
    toServer.end();
    await server.closed;
    expect(closed).toBe(1);
  });

  it('takes a null reset argument as one left out (OpenEnv sends seed: null; models fill optional fields with null)', async () => {
    const { server, client, toServer } = await startStdio([ID]);
    const reset = (await client.listTools()).tools.find((tool) => tool.name === 'reset');
    expect(reset?.inputSchema.properties?.seed).toMatchObject({ type: ['integer', 'null'] });
    const drawn = await client.callTool({ name: 'reset', arguments: { seed: null } });
    expect(drawn.isError).toBeFalsy();
    expect(drawn.structuredContent).toMatchObject({ env_id: ID, episode_id: expect.any(String) });
    const nulls = { seed: null, options: null, env_options: null, max_turns: null };
    expect((await client.callTool({ name: 'reset', arguments: nulls })).isError).toBeFalsy();
    // A null is no wildcard for a wrong type.
    expect((await client.callTool({ name: 'reset', arguments: { seed: 'one' } })).isError).toBe(true);
    toServer.end();
    await server.closed;
  });

  it('ends the session when stdin is destroyed without an end (a broken pipe)', async () => {
    let closed = 0;
    const { server, client, toServer } = await startStdio([ID], () => void (closed += 1));
    await client.callTool({ name: 'reset', arguments: { seed: 1 } });
    toServer.destroy(new Error('read EIO'));
    await server.closed;
    expect(closed).toBe(1);
  });

  it('answers a line that is not JSON, or not JSON-RPC, with a JSON-RPC error (id null), and keeps serving', async () => {
    const registry = new Registry();
    register(registry);
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const server = await serveMcpStdio({ registry, ids: [ID], stdin: toServer, stdout: toClient });
    const replies: Array<{ id?: unknown; error?: { code: number } }> = [];
    let pending = '';
    toClient.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() as string;
      for (const line of lines) replies.push(JSON.parse(line));
    });
    toServer.write('not json at all\n{"jsonrpc":"2.0","id":7,"method":5}\n');
    toServer.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
    for (let waited = 0; replies.length < 3 && waited < 100; waited++) await new Promise((r) => setTimeout(r, 10));
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
    toServer.end();
    await server.closed;
  });

  it('answers every request of a burst written in one chunk, in order, after garbage lines', async () => {
    const { server, client, toServer } = await startStdio([ID]);
    toServer.write('not json\n{"no":"jsonrpc"}\n');
    const calls = [
      client.callTool({ name: 'reset', arguments: { seed: 2 } }),
      client.callTool({ name: 'act', arguments: { text: 'LOOKUP(a)' } }),
      client.callTool({ name: 'act', arguments: { text: 'LOOKUP(b)' } }),
    ];
    const [reset, first, second] = await Promise.all(calls);
    expect(reset?.isError).toBeFalsy();
    expect(first?.structuredContent).toMatchObject({ observation: 'LOOKUP a: no such key.' });
    expect(second?.structuredContent).toMatchObject({ observation: 'LOOKUP b: no such key.' });
    toServer.end();
    await server.closed;
  });
});
