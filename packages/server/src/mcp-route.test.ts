import { ALL_IDS, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { MCP_PROTOCOL_VERSIONS } from './mcp-route';
import { serveEnvs, type ServerHandle } from './serve-envs';

// `POST /mcp` as an MCP client speaks to it over Streamable HTTP: the handshake (initialize with its version
// negotiation, notifications/initialized), ping, and the transport's header and message rules. The SDK's own
// Client against `turngym serve` is in test/cli-serve-mcp-client.test.ts.

let server: ServerHandle;

beforeAll(async () => {
  server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS, port: 0 });
});

afterAll(async () => {
  await server.close();
  expect(openEnvs.count).toBe(0);
});

const rpc = (message: unknown, headers: Record<string, string> = {}, path = '/mcp'): Promise<Response> =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });

const initialize = (protocolVersion: unknown): Promise<Response> =>
  rpc({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } },
  });

describe('POST /mcp: the MCP handshake', () => {
  it.each(MCP_PROTOCOL_VERSIONS)('initialize agrees to version %s when the client asks for it', async (version) => {
    const response = await initialize(version);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: version,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'turngym-env-server', title: 'TurnGym turngym/example-v1', version: expect.any(String) },
        instructions: expect.stringContaining('stateless'),
      },
    });
  });

  it('offers its newest version to a client asking for one it does not speak', async () => {
    const reply = await (await initialize('2099-01-01')).json();
    expect(reply.result.protocolVersion).toBe(MCP_PROTOCOL_VERSIONS[0]);
  });

  it('initialize on an env path names that env', async () => {
    const reply = await (
      await rpc({ jsonrpc: '2.0', id: 'a', method: 'initialize', params: {} }, {}, '/envs/test%2Fecho-v1/mcp')
    ).json();
    expect(reply.result.serverInfo.title).toBe('TurnGym test/echo-v1');
  });

  it('acknowledges notifications/initialized with 202 and answers ping with {}', async () => {
    const notified = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe('');
    expect(await (await rpc({ jsonrpc: '2.0', id: 7, method: 'ping' })).json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {},
    });
  });

  it('acknowledges a JSON-RPC response a client posts with 202', async () => {
    const response = await rpc({ jsonrpc: '2.0', id: 3, result: {} });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });

  it('takes requests with a negotiated MCP-Protocol-Version header, and refuses one it does not speak with 400', async () => {
    const listed = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' });
    expect(listed.status).toBe(200);
    expect((await listed.json()).result.tools.length).toBeGreaterThan(0);
    const refused = await rpc(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-protocol-version': '1999-01-01' },
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32600, message: expect.stringMatching(/Unsupported MCP-Protocol-Version "1999-01-01"/) },
    });
  });
});

describe('POST /mcp: tools/call params', () => {
  const call = async (params: unknown, path = '/mcp'): Promise<any> =>
    (await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }, {}, path)).json();

  it('refuses a tool the env does not list, naming the ones it does', async () => {
    expect((await call({ name: 'DELETE_ALL', arguments: {} })).error).toEqual({
      code: -32602,
      message: 'Unknown tool "DELETE_ALL"; this env\'s tools: LOOKUP, SUBMIT',
    });
    expect((await call({ name: 'LOOKUP' }, '/envs/test%2Fecho-v1/mcp')).error).toEqual({
      code: -32602,
      message: 'Unknown tool "LOOKUP"; this env\'s tools: act',
    });
  });

  it('refuses arguments that are not an object', async () => {
    expect((await call({ name: 'LOOKUP', arguments: ['x'] })).error.code).toBe(-32602);
    expect((await call({ name: 'LOOKUP', arguments: 'x' })).error.code).toBe(-32602);
  });

  it('calls a listed tool on a fresh env', async () => {
    const reply = await call({ name: 'act', arguments: { text: 'hello' } }, '/envs/test%2Fecho-v1/mcp');
    expect(reply.result).toMatchObject({ isError: false, structuredContent: { done: false } });
  });
});
