import { execFileSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect as connectSocket } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Registry } from '@turngym/core';
import { ExampleSolver, register } from '@turngym/env-example';
import type { Action } from '@turngym/spec';
import { currentFaultOwner, installEnvFaultGuard, ManualClock, type EnvFaultOwner } from '@turngym/server';
import { EchoEnv } from './__fixtures__/echo-env';
import { serveMcp, type McpServerHandle } from './serve-mcp-http';

const ID = 'turngym/example-v1';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function registryWithExample(): Registry {
  const registry = new Registry();
  register(registry);
  return registry;
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A raw HTTP request to the server with the headers as given (fetch would set its own Host). */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

type Structured = Record<string, unknown> & { observation: string; info: Record<string, unknown> };

/** One tool call as the structured content of its result (fails on an error result). */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Structured;
}

/** The action an agent chose, as the MCP tool call that carries it. */
function toolCallOf(action: Action): { name: string; args: Record<string, unknown> } {
  if (typeof action === 'string') return { name: 'act', args: { text: action } };
  if (typeof action === 'number') return { name: 'act', args: { index: action } };
  return { name: action.name, args: action.arguments };
}

/** Writes `text` on a fresh connection and never another byte; resolves with all the server said once it closed it. */
function rawAnswer(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(text);
  });
}

describe('serveMcp (Streamable HTTP)', () => {
  let server: McpServerHandle | undefined;
  let uninstallGuard: (() => void) | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    uninstallGuard?.();
    uninstallGuard = undefined;
  });

  it("lists the env's tools with their JSON Schemas, plus reset and act", async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const client = await connect(server.url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['reset', 'act', 'LOOKUP', 'SUBMIT']);
    const lookup = tools.find((tool) => tool.name === 'LOOKUP');
    expect(lookup?.description).toMatch(/Read the value stored under a key/);
    expect(lookup?.inputSchema).toMatchObject({
      type: 'object',
      required: ['key'],
      properties: { key: { type: 'string' } },
    });
    expect(tools.find((tool) => tool.name === 'reset')?.inputSchema.properties).toHaveProperty('seed');
    expect(client.getInstructions()).toMatch(/turngym\/example-v1/);
    await client.close();
  });

  it('plays a whole episode: the same observations and rewards as the env in-process', async () => {
    const registry = registryWithExample();
    server = await serveMcp({ registry, ids: [ID] });
    const client = await connect(server.url);
    const local = await registry.make(ID);
    const solver = new ExampleSolver();
    const reset = await call(client, 'reset', { seed: 5 });
    const localReset = await local.reset({ seed: 5 });
    expect(reset.observation).toBe(localReset.observation);
    expect(reset.info.instructions).toBe(localReset.info.instructions);
    expect(reset).toMatchObject({ env_id: ID, seed: 5 });
    await solver.start({ seed: 5, spec: local.spec, observation: localReset.observation, info: localReset.info });
    let observation = localReset.observation as string;
    let turns = 0;
    for (;;) {
      const action = await solver.act(observation);
      const expected = await local.step(action);
      const { name, args } = toolCallOf(action);
      const step = await call(client, name, args);
      expect(step).toMatchObject({
        observation: expected.observation,
        reward: expected.reward,
        terminated: expected.terminated,
        truncated: expected.truncated,
        done: expected.terminated || expected.truncated,
      });
      expect(step.info.fingerprint).toBe(expected.info.fingerprint);
      observation = expected.observation as string;
      turns += 1;
      if (step.done) {
        expect(step.info.success).toBe(true);
        break;
      }
    }
    expect(turns).toBeGreaterThan(1);
    // After the end, a step is API misuse: an error result the model can read, not a crash.
    const after = await client.callTool({ name: 'LOOKUP', arguments: { key: 'x' } });
    expect(after.isError).toBe(true);
    expect(JSON.stringify(after.content)).toMatch(/RESET_NEEDED/);
    await local.close();
    await client.close();
  });

  it('gives each MCP session its own env', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const first = await connect(server.url);
    const second = await connect(server.url);
    expect(server.liveSessions()).toBe(2);
    await call(first, 'reset', { seed: 1 });
    // The second session has not reset: its env refuses a step although the first one is mid-episode.
    const refused = await second.callTool({ name: 'act', arguments: { text: 'LOOKUP(a)' } });
    expect(refused.isError).toBe(true);
    expect((await call(first, 'act', { text: 'LOOKUP(a)' })).done).toBe(false);
    await first.close();
    await second.close();
  });

  it('refuses a session past maxSessions with a retryable CAPACITY_REACHED, and frees the slot on close', async () => {
    const closed: string[] = [];
    server = await serveMcp({
      registry: registryWithExample(),
      ids: [ID],
      maxSessions: 1,
      onSessionClosed: ({ sessionId }) => void closed.push(sessionId),
    });
    const first = await connect(server.url);
    const refusal = connect(server.url);
    await expect(refusal).rejects.toThrow(/at capacity \(1 of 1 sessions\)/);
    await expect(refusal).rejects.toThrow(/"code":"CAPACITY_REACHED".*"retryable":true/);
    const sessionId = (first.transport as StreamableHTTPClientTransport).sessionId;
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    await first.close();
    expect(closed).toEqual([sessionId]);
    const again = await connect(server.url);
    await call(again, 'reset', { seed: 2 });
    await again.close();
  });

  it('frees the slot of an initialize the transport refuses', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID], maxSessions: 1 });
    // An initialize whose Accept takes no JSON: refused (406), no session is kept.
    const refused = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(refused.status).toBe(406);
    expect(server.liveSessions()).toBe(0);
    const client = await connect(server.url);
    await client.close();
  });

  it('serves a client whose Accept takes JSON without listing both types (curl and requests send */*)', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const { port } = server;
    const post = (headers: Record<string, string>, message: unknown) =>
      rawRequest(port, 'POST', '/mcp', { 'content-type': 'application/json', ...headers }, JSON.stringify(message));
    const opened = await post({ accept: '*/*' }, INITIALIZE);
    expect(opened.status).toBe(200);
    expect(opened.headers['content-type']).toMatch(/^application\/json/);
    const session = {
      'mcp-session-id': opened.headers['mcp-session-id'] as string,
      'mcp-protocol-version': '2025-06-18',
    };
    const reset = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'reset', arguments: { seed: 1 } } };
    // No Accept at all (RFC 9110: anything), application/json alone, application/*: the reply is JSON either way.
    for (const accept of [undefined, 'application/json', 'application/*;q=0.9', 'text/html, */*;q=0.1']) {
      const reply = await post({ ...session, ...(accept === undefined ? {} : { accept }) }, reset);
      const envId = (JSON.parse(reply.body) as { result?: { structuredContent?: { env_id?: string } } }).result
        ?.structuredContent?.env_id;
      expect({ accept, status: reply.status, envId }).toEqual({ accept, status: 200, envId: ID });
    }
    // An Accept that takes no JSON is still refused, as the transport answers it.
    for (const accept of ['text/html', 'application/json;q=0, */*']) {
      expect({ accept, status: (await post({ ...session, accept }, reset)).status }).toEqual({ accept, status: 406 });
    }
    expect(server.liveSessions()).toBe(1);
  });

  it('answers a body that is not UTF-8 with Parse error, not an action with U+FFFD in it', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const client = await connect(server.url);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId as string;
    await call(client, 'reset', { seed: 1 });
    const head = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"act","arguments":{"text":"LOOKUP(';
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = httpRequest(
        {
          host: '127.0.0.1',
          port: server?.port,
          method: 'POST',
          path: '/mcp',
          headers: { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      sent.on('error', reject);
      sent.end(Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe]), Buffer.from(')"}}}')]));
    });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: -32700, message: expect.stringMatching(/UTF-8/) } });
    // The session goes on.
    expect(await call(client, 'act', { text: 'LOOKUP(a)' })).toMatchObject({ reward: 0, done: false });
    await client.close();
  });

  it('does not hold a capacity slot for an initialize naming an env it does not serve', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID], maxSessions: 1 });
    const refused = await fetch(server.url.replace(/\/mcp$/, '/envs/turngym%2Fnope-v1/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(refused.status).toBe(404);
    expect(server.liveSessions()).toBe(0);
    const client = await connect(server.url);
    await call(client, 'reset', { seed: 1 });
    await client.close();
  });

  it('answers a request that never finishes (headers or body) with 408 and a JSON-RPC error, and cuts it', async () => {
    const logged: string[] = [];
    const record = (message: string): void => void logged.push(message);
    // Small limits so the test need not wait Node's minutes; the outcome is asserted, never the time it took.
    server = await serveMcp({
      registry: registryWithExample(),
      ids: [ID],
      headersTimeoutMs: 100,
      requestTimeoutMs: 200,
      logger: { debug: record, info: record, warn: record, error: record },
    });
    const port = server.port;
    const timedOut = {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'The request did not arrive in time (headersTimeoutMs / requestTimeoutMs of this server)',
      },
    };
    for (const text of [
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 1000\r\n\r\n${JSON.stringify(INITIALIZE).slice(0, 20)}`,
    ]) {
      const [head, body] = (await rawAnswer(port, text)).split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1.1 408 Request Timeout\r\n/);
      expect(JSON.parse(body as string)).toEqual(timedOut);
    }
    // A client cut for its slowness is no fault of the server's, and the server goes on.
    expect(logged).toEqual([]);
    expect(server.liveSessions()).toBe(0);
    const client = await connect(server.url);
    await call(client, 'reset', { seed: 1 });
    await client.close();
  });

  it('answers a body over maxFrameBytes with 413 and closes that connection, so the client does not reuse it', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID], maxFrameBytes: 10000 });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const large = await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...INITIALIZE, padding: 'x'.repeat(1000000) }),
    });
    expect(large.status).toBe(413);
    expect(large.headers.get('connection')).toBe('close');
    await large.text();
    // Requests on the same origin after the refusal: none may meet a connection the server reset.
    for (let i = 0; i < 3; i++) {
      const ok = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
      expect(ok.status).toBe(200);
      const sessionId = ok.headers.get('mcp-session-id') as string;
      await ok.text();
      const deleted = await fetch(server.url, {
        method: 'DELETE',
        headers: { ...headers, 'mcp-session-id': sessionId },
      });
      expect(deleted.status).toBe(200);
    }
    expect(server.liveSessions()).toBe(0);
  });

  it('answers 413 as soon as a Content-Length over maxFrameBytes arrives, and closes bodies it will not read', async () => {
    // A request timeout short enough that a server waiting for the body answers 408 instead, within the test.
    server = await serveMcp({
      registry: registryWithExample(),
      ids: [ID],
      maxFrameBytes: 10000,
      token: 'secret',
      requestTimeoutMs: 1000,
    });
    const port = server.port;
    // A gigabyte announced, a few bytes sent: refused at once, with or without the token, never read; a client that
    // asks first (Expect: 100-continue) is refused without being told to go on.
    for (const auth of ['', 'Authorization: Bearer secret\r\nExpect: 100-continue\r\n']) {
      const [head, body] = (
        await rawAnswer(
          port,
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Length: 1000000000\r\n\r\n{"jsonrpc"`,
        )
      ).split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/);
      expect(head).toMatch(/\r\nConnection: close\r\n/i);
      // The reply is chunked (no Content-Length): its JSON-RPC error, whole, inside.
      expect(body).toContain(
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body exceeds the server\'s limit of 10000 bytes"}}',
      );
    }
    // A chunked body refused before it is read (no token): the connection is closed rather than read to its end.
    const [head] = (
      await rawAnswer(
        port,
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n${'x'.repeat(1024)}\r\n`,
      )
    ).split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1.1 401 Unauthorized\r\n/);
    expect(head).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('answers a connection over maxConnections with 503 and a JSON-RPC error, and serves again once one closes', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID], maxConnections: 2 });
    const port = server.port;
    /** A kept-alive connection that has had one request answered: certainly accepted, and still open. */
    const held = (): Promise<ReturnType<typeof connectSocket>> =>
      new Promise((resolve, reject) => {
        const socket = connectSocket({ port, host: '127.0.0.1' });
        socket.on('error', reject);
        socket.once('data', () => resolve(socket));
        socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      });
    const first = await held();
    const second = await held();
    const refused = await rawRequest(
      port,
      'POST',
      '/mcp',
      { ...JSON_HEADERS, connection: 'close' },
      JSON.stringify(INITIALIZE),
    );
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          'Too many connections: this server holds at most 2 at once (maxConnections); close idle ones or retry later',
      },
    });
    expect(server.liveSessions()).toBe(0);
    const closed = new Promise((resolve) => first.once('close', resolve));
    first.destroy();
    await closed;
    // The server sees the close on its own schedule: ask until it has (a refusal costs nothing).
    let status = 503;
    while (status === 503) status = (await rawRequest(port, 'GET', '/health', { connection: 'close' })).status;
    expect(status).toBe(200);
    second.destroy();
  });

  it('defaults maxConnections to maxSessions + 1024, or below a lower open-file limit, where it must refuse first', () => {
    // Under `ulimit -n 256` a cap of 1280 would never fire: past 256 open files every connection was reset unanswered.
    const script = [
      "require('../rl/src/__fixtures__/ts-register.js');",
      "const { serveMcp } = require('./src/serve-mcp-http.ts');",
      // Not `const { Registry }`: a script given to -e runs in the global scope, where the name would shadow the
      // global that core's compiled decorator metadata probes with `typeof Registry`.
      "const core = require('@turngym/core');",
      "const registry = new core.Registry(); require('@turngym/env-example').register(registry);",
      "serveMcp({ registry, ids: ['turngym/example-v1'] }).then((server) => {",
      '  process.stdout.write(String(server.maxConnections)); return server.close(); });',
    ].join(' ');
    const underLimit = (files: number): number =>
      Number(
        execFileSync('bash', ['-c', `ulimit -n ${files} && exec "${process.execPath}" -e "${script}"`], {
          cwd: join(__dirname, '..'),
          encoding: 'utf8',
        }),
      );
    expect(underLimit(256)).toBeGreaterThan(100);
    expect(underLimit(256)).toBeLessThan(256);
    expect(underLimit(20000)).toBe(256 + 1024);
  });

  it('answers a malformed tools/call with Invalid params (-32602) naming the field, and keeps serving', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const opened = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
    const session = { ...headers, 'mcp-session-id': opened.headers.get('mcp-session-id') as string };
    await opened.text();
    const rpc = async (id: number, method: string, params: unknown) => {
      const reply = await fetch(server!.url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      return (await reply.json()) as { error?: { code: number; message: string }; result?: unknown };
    };
    const notAnObject = await rpc(2, 'tools/call', { name: 'act', arguments: 'LOOKUP(a)' });
    expect(notAnObject.error?.code).toBe(-32602);
    expect(notAnObject.error?.message).toMatch(/arguments/);
    const noName = await rpc(3, 'tools/call', { arguments: {} });
    expect(noName.error?.code).toBe(-32602);
    expect(noName.error?.message).toMatch(/name/);
    // Methods of capabilities the server does not declare: Method not found.
    expect((await rpc(4, 'resources/list', {})).error?.code).toBe(-32601);
    expect((await rpc(5, 'prompts/list', {})).error?.code).toBe(-32601);
    expect((await rpc(6, 'tools/call', { name: 'reset', arguments: { seed: 1 } })).result).toMatchObject({
      structuredContent: { seed: 1 },
    });
  });

  it('refuses reset and act arguments of the wrong type or range with an error result naming the argument', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const client = await connect(server.url);
    const refusals = {
      reset: [{ seed: 1e300 }, { seed: 1.5 }, { seed: '1' }, { max_turns: 0 }, { unknown: 1 }],
      act: [{}, { text: 5 }, { text: 'LOOKUP(a)', extra: true }],
    };
    for (const [name, cases] of Object.entries(refusals)) {
      for (const args of cases) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError).toBe(true);
        const field = Object.keys(args)[0] ?? 'text';
        expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(
          new RegExp(`^INVALID_REQUEST: ${name}: .*${field}`),
        );
      }
    }
    // Unicode reaches the env as it was sent.
    await call(client, 'reset', { seed: 1 });
    const step = await call(client, 'LOOKUP', { key: 'ключ-日本-é' });
    expect(step.observation).toBe('LOOKUP ключ-日本-é: no such key.');
    await client.close();
  });

  it('closes the env of a session still being built when the server shuts down', async () => {
    const registry = new Registry();
    let built = 0;
    let closedEnvs = 0;
    let buildStarted: () => void = () => undefined;
    const sessionBuilding = new Promise<void>((resolve) => (buildStarted = resolve));
    registry.register({
      id: 'turngym/echo-v1',
      entryPoint: async () => {
        built += 1;
        if (built > 1) {
          // The session's env (the first build is the start-up check): slow, so close() begins meanwhile.
          buildStarted();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const env = new EchoEnv();
        const close = env.close.bind(env);
        env.close = async () => {
          closedEnvs += 1;
          await close();
        };
        return env;
      },
    });
    const served = await serveMcp({ registry, ids: ['turngym/echo-v1'] });
    const opening = fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INITIALIZE),
    });
    await sessionBuilding;
    await served.close();
    expect(closedEnvs).toBe(2); // the start-up check's env and the session's
    expect(served.liveSessions()).toBe(0);
    await opening.catch(() => undefined); // 503, or a connection the shutdown cut
  });

  it('takes a loopback Host header in any letter case or with a trailing dot, and refuses every other host', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const { port } = server;
    // Host names are case-insensitive (RFC 9110), and `localhost.` is localhost as a fully qualified name.
    for (const host of ['LocalHost', `LOCALHOST:${port}`, 'localhost.', `LocalHost.:${port}`, `[::1]:${port}`]) {
      const reply = await rawRequest(port, 'POST', '/mcp', { ...JSON_HEADERS, host }, JSON.stringify(INITIALIZE));
      expect({ host, status: reply.status }).toEqual({ host, status: 200 });
    }
    // DNS rebinding: a page of another origin names its own host, which stays refused.
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      'localhost.evil.example',
      'localhost..',
      '127.0.0.1.evil',
    ]) {
      const reply = await rawRequest(port, 'POST', '/mcp', { ...JSON_HEADERS, host }, JSON.stringify(INITIALIZE));
      expect({ host, status: reply.status }).toEqual({ host, status: 403 });
    }
    // A page of another site names itself as Origin (MCP's transport spec asks servers to check it).
    const fromPage = await rawRequest(
      port,
      'POST',
      '/mcp',
      { ...JSON_HEADERS, host: 'localhost', origin: 'https://evil.example' },
      JSON.stringify(INITIALIZE),
    );
    expect(fromPage.status).toBe(403);
    expect(JSON.parse(fromPage.body)).toEqual({ detail: 'Origin not allowed' });
    const fromLocalPage = { ...JSON_HEADERS, host: 'localhost', origin: `http://LocalHost:${port}` };
    expect((await rawRequest(port, 'POST', '/mcp', fromLocalPage, JSON.stringify(INITIALIZE))).status).toBe(200);
  });

  it("answers a session id on another env's endpoint as an unknown session (404), and serves it on its own", async () => {
    const registry = registryWithExample();
    registry.register({ id: 'turngym/echo-v1', entryPoint: () => new EchoEnv() });
    server = await serveMcp({ registry, ids: [ID, 'turngym/echo-v1'] });
    const { port } = server;
    const echoPath = '/envs/turngym%2Fecho-v1/mcp';
    const opened = await rawRequest(port, 'POST', echoPath, JSON_HEADERS, JSON.stringify(INITIALIZE));
    const sessionId = opened.headers['mcp-session-id'] as string;
    const session = { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    for (const path of ['/mcp', '/envs/turngym/example-v1/mcp', '/envs/turngym%2Fnope-v1/mcp']) {
      const reply = await rawRequest(port, 'POST', path, session, list);
      expect({ path, status: reply.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(reply.body)).toMatchObject({ error: { code: -32001, message: /Session not found/ } });
      const deleted = await rawRequest(port, 'DELETE', path, session);
      expect({ path, status: deleted.status }).toEqual({ path, status: 404 });
    }
    expect(server.liveSessions()).toBe(1);
    // Its own endpoint, spelled either way, still serves it.
    for (const path of [echoPath, '/envs/turngym/echo-v1/mcp']) {
      const reply = await rawRequest(port, 'POST', path, session, list);
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body).result.tools.map((tool: { name: string }) => tool.name)).toEqual(['reset', 'act']);
    }
    expect((await rawRequest(port, 'DELETE', echoPath, session)).status).toBe(200);
    expect(server.liveSessions()).toBe(0);
  });

  it("runs a session's env code as that session: a fault of it (a timer that throws) breaks that session's env only", async () => {
    const registry = new Registry();
    const owners: Array<EnvFaultOwner | undefined> = [];
    const built: EchoEnv[] = [];
    registry.register({
      id: 'turngym/echo-v1',
      entryPoint: () => {
        const env = new EchoEnv();
        built.push(env);
        const step = env.step.bind(env);
        // What turngym serve's process handler reads when the env's timer throws: the owner of the env code.
        env.step = (action) => {
          owners.push(currentFaultOwner());
          return step(action);
        };
        return env;
      },
    });
    // As `turngym serve --mcp` does: owners are tracked while a guard is installed.
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    uninstallGuard = installEnvFaultGuard(logger, () => undefined);
    server = await serveMcp({ registry, ids: ['turngym/echo-v1'] });
    const faulty = await connect(server.url);
    const healthy = await connect(server.url);
    const faultyId = (faulty.transport as StreamableHTTPClientTransport).sessionId as string;
    await call(faulty, 'reset', {});
    await call(healthy, 'reset', {});
    await call(faulty, 'act', { text: 'hi' });
    await call(healthy, 'act', { text: 'hi' });
    expect(owners.map((owner) => owner?.label)).toEqual([
      `MCP session ${faultyId} (turngym/echo-v1)`,
      expect.stringMatching(/^MCP session (?!${faultyId})/),
    ]);
    const brokenEnv = built.length; // envs built so far: the start's, then one per session
    owners[0]?.fail?.(new Error('thrown from the env timer'));
    // The session stays, and says what happened until a reset builds a fresh env.
    const refused = await faulty.callTool({ name: 'act', arguments: { text: 'hi' } });
    expect(refused).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^ENV_FAULT: The env failed \(Error: thrown from the env timer\)/) }],
    });
    expect(server.liveSessions()).toBe(2);
    expect((await call(faulty, 'reset', {})).observation).toBe('Say something.');
    expect(built.length).toBe(brokenEnv + 1);
    expect((await call(faulty, 'act', { text: 'again' })).observation).toBe('echo: again');
    // A late fault of the env that broke is no fault of the fresh one.
    owners[0]?.fail?.(new Error('the broken env throws again'));
    expect((await call(faulty, 'act', { text: 'fine' })).observation).toBe('echo: fine');
    expect((await call(healthy, 'act', { text: 'still there?' })).observation).toBe('echo: still there?');
    await healthy.close();
    await faulty.close();
  });

  it('answers JSON that is no JSON-RPC message with Invalid Request (-32600), not Parse error, with or without a session', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const opened = await fetch(server.url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(INITIALIZE) });
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id') as string };
    await opened.text();
    const notRpc = [
      { jsonrpc: '1.0', id: 2, method: 'tools/list' },
      { id: 3, method: 'tools/list' },
      { jsonrpc: '2.0', id: null, method: 'tools/list' },
      { jsonrpc: '2.0', id: 4, method: 7 },
      42,
      [],
    ];
    for (const headers of [JSON_HEADERS, { ...JSON_HEADERS, ...session }]) {
      for (const body of notRpc) {
        const reply = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(body) });
        expect(reply.status).toBe(400);
        expect(await reply.json()).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: expect.stringMatching(/^Invalid Request: (not a JSON-RPC 2.0 message|an empty batch)$/),
          },
        });
      }
    }
    // The session is still there.
    const listed = await fetch(server.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...session, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(server.liveSessions()).toBe(1);
  });

  it('answers an initialize sent in a batch with Invalid Request saying so, and opens no session', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const batched = await fetch(server.url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify([INITIALIZE]),
    });
    expect(batched.status).toBe(400);
    expect(await batched.json()).toMatchObject({
      error: { code: -32600, message: 'Invalid Request: initialize must be sent alone, not in a batch' },
    });
    expect(server.liveSessions()).toBe(0);
  });

  it('requires the bearer token', async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID], token: 'sesame' });
    await expect(connect(server.url)).rejects.toThrow(/401|bearer token/i);
    await expect(connect(server.url, { authorization: 'Bearer wrong' })).rejects.toThrow(/401|bearer token/i);
    const client = await connect(server.url, { authorization: 'Bearer sesame' });
    await call(client, 'reset', { seed: 3 });
    await client.close();
  });

  it("applies the client-option allow-list to reset's env_options", async () => {
    server = await serveMcp({ registry: registryWithExample(), ids: [ID] });
    const client = await connect(server.url);
    const refused = await client.callTool({ name: 'reset', arguments: { seed: 1, env_options: { secret: 1 } } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/cannot be set by clients of this server/);
    // An allowed option rebuilds the env: a chain of one key is solved by the first lookup.
    const reset = await call(client, 'reset', { seed: 1, env_options: { chainLength: 1 } });
    const start = /Start with key (\S+?)\.?$/.exec(reset.observation)?.[1];
    const step = await call(client, 'LOOKUP', { key: start });
    expect(step.observation).toMatch(/= \d{4}$/);
    await client.close();
  });

  it('closes a session idle past idleTimeoutMs (on the server clock), and not a busy one', async () => {
    const clock = new ManualClock();
    const closed: string[] = [];
    let sessionClosed: () => void = () => undefined;
    const wasClosed = new Promise<void>((resolve) => (sessionClosed = resolve));
    server = await serveMcp({
      registry: registryWithExample(),
      ids: [ID],
      idleTimeoutMs: 1000,
      clock,
      onSessionClosed: ({ sessionId }) => {
        closed.push(sessionId);
        sessionClosed();
      },
    });
    const client = await connect(server.url);
    await call(client, 'reset', { seed: 1 });
    clock.advance(900);
    await call(client, 'act', { text: 'LOOKUP(a)' });
    clock.advance(900);
    expect(closed).toEqual([]);
    clock.advance(200);
    await wasClosed;
    expect(server.liveSessions()).toBe(0);
    await expect(client.callTool({ name: 'act', arguments: { text: 'LOOKUP(a)' } })).rejects.toThrow(
      /Session not found/,
    );
    await client.close();
  });
});
