import { openEnvs, testRegistry, ALL_IDS } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { ManualClock } from './manual-clock';
import { serveEnvs, type ServerHandle } from './serve-envs';

// What OpenEnv's MCP tool client sends (meta-pytorch/OpenEnv 685de411, src/openenv/core/mcp_client.py and
// env_server/): `MCPToolClient.list_tools()` / `call_tool()` step with `{"type": "list_tools"}` and
// `{"type": "call_tool", "tool_name", "arguments"}` over /ws and read `observation.tools` / `observation.tool_name`,
// `result`, `error`; its server side also answers `{"type": "mcp", "data": <JSON-RPC>}` over /ws, and its production
// mode posts `openenv/session/create`, `tools/*` with `session_id` and `openenv/session/close` to `/mcp`.

let server: ServerHandle;

beforeAll(async () => {
  server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS, port: 0, heartbeatMs: 0 });
});

afterAll(async () => {
  await server.close();
  expect(openEnvs.count).toBe(0);
});

const ECHO = '/envs/test%2Fecho-v1';

const rpc = async (body: unknown, path = '/mcp'): Promise<any> =>
  (
    await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json();

describe('/ws: OpenEnv ListToolsAction', () => {
  it("lists the env's tools as OpenEnv's ListToolsObservation, before a reset too, and takes no turn", async () => {
    const client = await WsClient.open(`${server.url}/ws`);
    const before = await client.request({ type: 'step', data: { type: 'list_tools' } });
    expect(before.type).toBe('observation');
    expect(before.data).toEqual({
      observation: {
        tools: [
          expect.objectContaining({
            name: 'LOOKUP',
            description: expect.any(String),
            input_schema: expect.any(Object),
          }),
          expect.objectContaining({ name: 'SUBMIT', input_schema: expect.objectContaining({ required: ['answer'] }) }),
        ],
      },
      reward: null,
      done: false,
    });
    await client.request({ type: 'reset', data: { seed: 3 } });
    await client.request({ type: 'step', data: { type: 'list_tools', metadata: {} } });
    expect((await client.request({ type: 'state' })).data.step_count).toBe(0);
    // The episode goes on as if the list had not been asked for.
    const step = await client.request({ type: 'step', data: { tool: 'LOOKUP', arguments: { key: 'nope' } } });
    expect(step.data.reward).toBe(0);
    expect((await client.request({ type: 'state' })).data.step_count).toBe(1);
    client.close();
  });

  it('offers "act" on an env without tools, and refuses extra fields by name', async () => {
    const client = await WsClient.open(`${server.url}${ECHO}/ws`);
    const listed = await client.request({ type: 'step', data: { type: 'list_tools' } });
    expect(listed.data.observation.tools).toEqual([
      expect.objectContaining({ name: 'act', input_schema: expect.objectContaining({ required: ['text'] }) }),
    ]);
    const refused = await client.request({ type: 'step', data: { type: 'list_tools', verbose: true } });
    expect(refused.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [expect.objectContaining({ type: 'extra_forbidden', loc: ['data', 'verbose'] })],
    });
    client.close();
  });
});

describe('/ws: OpenEnv CallToolAction is an ordinary turn', () => {
  it('plays the same turn as the tool form (reward, done, info), with CallToolObservation keys', async () => {
    const viaTool = await WsClient.open(`${server.url}/ws`);
    const viaCall = await WsClient.open(`${server.url}/ws`);
    const first = (await viaTool.request({ type: 'reset', data: { seed: 11 } })).data.observation.text as string;
    await viaCall.request({ type: 'reset', data: { seed: 11 } });
    const key = /key (\S+)\./.exec(first)?.[1] as string;
    for (const args of [{ key }, { answer: '0000' }]) {
      const name = 'key' in args ? 'LOOKUP' : 'SUBMIT';
      const tool = await viaTool.request({ type: 'step', data: { tool: name, arguments: args } });
      const call = await viaCall.request({
        type: 'step',
        data: { type: 'call_tool', tool_name: name, arguments: args },
      });
      const { observation, ...rest } = call.data;
      const { observation: toolObservation, ...toolRest } = tool.data;
      // The same turn: every key alike but the wall-clock time it took.
      const timeless = (data: any): unknown => ({
        ...data,
        metadata: { ...data.metadata, cost: { ...data.metadata.cost, wallMs: 0 } },
      });
      expect(timeless(rest)).toEqual(timeless(toolRest));
      expect(observation).toEqual({
        ...toolObservation,
        tool_name: name,
        result: expect.objectContaining({ data: toolObservation.text, is_error: false }),
        error: null,
      });
    }
    const state = (await viaCall.request({ type: 'state' })).data;
    expect(state).toMatchObject({ step_count: 2, done: true });
    viaTool.close();
    viaCall.close();
  });

  it('an unknown tool or bad arguments are the env feedback of a turn, as the tool form is', async () => {
    const client = await WsClient.open(`${server.url}/ws`);
    await client.request({ type: 'reset', data: { seed: 1 } });
    const unknown = await client.request({
      type: 'step',
      data: { type: 'call_tool', tool_name: 'DELETE_ALL', arguments: {} },
    });
    expect(unknown.type).toBe('observation');
    expect(unknown.data.metadata.invalidAction).toBe(true);
    expect(unknown.data.observation.result.is_error).toBe(true);
    expect(unknown.data.observation.result.data).toMatch(/Unknown tool "DELETE_ALL"/);
    const badArgs = await client.request({ type: 'step', data: { type: 'call_tool', tool_name: 'LOOKUP' } });
    expect(badArgs.data.metadata.invalidAction).toBe(true);
    expect((await client.request({ type: 'state' })).data.step_count).toBe(2);
    client.close();
  });

  it('on an env without tools, "act" takes the action object, and any other tool is a VALIDATION_ERROR', async () => {
    const client = await WsClient.open(`${server.url}${ECHO}/ws`);
    await client.request({ type: 'reset', data: { seed: 1 } });
    const acted = await client.request({
      type: 'step',
      data: { type: 'call_tool', tool_name: 'act', arguments: { text: 'hello' } },
    });
    expect(acted.data.observation).toMatchObject({
      text: 'echo: hello',
      tool_name: 'act',
      result: { data: 'echo: hello' },
    });
    const wrongTool = await client.request({
      type: 'step',
      data: { type: 'call_tool', tool_name: 'LOOKUP', arguments: { key: 'x' } },
    });
    expect(wrongTool.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('call "act"'),
      errors: [expect.objectContaining({ loc: ['data', 'tool_name'] })],
    });
    const notObject = await client.request({
      type: 'step',
      data: { type: 'call_tool', tool_name: 'act', arguments: ['hello'] },
    });
    expect(notObject.data.code).toBe('VALIDATION_ERROR');
    expect((await client.request({ type: 'state' })).data.step_count).toBe(1);
    client.close();
  });

  it('POST /step takes both actions too: list_tools answers the list, call_tool one step', async () => {
    const post = async (action: unknown): Promise<any> =>
      (
        await fetch(`${server.url}/step`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ action }),
        })
      ).json();
    expect((await post({ type: 'list_tools' })).observation.tools.map((tool: any) => tool.name)).toEqual([
      'LOOKUP',
      'SUBMIT',
    ]);
    const called = await post({ type: 'call_tool', tool_name: 'SUBMIT', arguments: { answer: '1' } });
    expect(called).toMatchObject({ done: true, observation: { tool_name: 'SUBMIT', error: null } });
  });
});

describe('/mux: the same messages on a channel', () => {
  it('lists the tools, calls one as a turn, and answers mcp, in order', async () => {
    const client = await WsClient.open(`${server.url}/mux`);
    client.send([
      { c: 1, m: { type: 'open', data: { env_id: 'test/echo-v1' } } },
      { c: 1, m: { type: 'reset', data: { seed: 1 } } },
      { c: 1, m: { type: 'step', data: { type: 'list_tools' } } },
      { c: 1, m: { type: 'step', data: { type: 'call_tool', tool_name: 'act', arguments: { text: 'hi' } } } },
      { c: 1, m: { type: 'mcp', data: { jsonrpc: '2.0', id: 1, method: 'tools/list' } } },
      { c: 1, m: { type: 'state' } },
    ]);
    const replies: Array<{ c: number | null; m: any }> = [];
    while (replies.length < 6) replies.push(...((await client.next()) as Array<{ c: number | null; m: any }>));
    expect(replies.map((envelope) => envelope.m.type)).toEqual([
      'session',
      'observation',
      'observation',
      'observation',
      'mcp',
      'state',
    ]);
    expect(replies[2]?.m.data.observation.tools[0].name).toBe('act');
    expect(replies[3]?.m.data.observation).toMatchObject({ text: 'echo: hi', tool_name: 'act' });
    expect(replies[5]?.m.data.step_count).toBe(1);
    client.socket.terminate();
  });
});

describe('/ws: {"type": "mcp"} JSON-RPC on the session', () => {
  it("tools/list, and tools/call as the next turn of the session's episode", async () => {
    const client = await WsClient.open(`${server.url}${ECHO}/ws`);
    await client.request({ type: 'reset', data: { seed: 2 } });
    const listed = await client.request({ type: 'mcp', data: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(listed).toEqual({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 1, result: { tools: [expect.objectContaining({ name: 'act' })] } },
    });
    const called = await client.request({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'act', arguments: { text: 'bye' } } },
    });
    expect(called.data.result).toMatchObject({
      content: [{ type: 'text', text: 'echo: bye' }],
      isError: false,
      structuredContent: { reward: 1, done: true },
    });
    expect((await client.request({ type: 'state' })).data).toMatchObject({ step_count: 1, done: true });
    client.close();
  });

  it('openenv/session/create names this session, which it cannot close; bad requests get JSON-RPC errors', async () => {
    const client = await WsClient.open(`${server.url}/ws`);
    const own = (await client.request({ type: 'state' })).data.session_id;
    const created = await client.request({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 'c', method: 'openenv/session/create' },
    });
    expect(created.data.result.session_id).toBe(own);
    const closed = await client.request({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 'd', method: 'openenv/session/close', params: { session_id: own } },
    });
    expect(closed.data.error.code).toBe(-32600);
    expect((await client.request({ type: 'mcp', data: { method: 'tools/list' } })).data).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('Invalid Request') },
    });
    expect(
      (await client.request({ type: 'mcp', data: { jsonrpc: '2.0', id: 5, method: 'dance' } })).data.error.code,
    ).toBe(-32601);
    expect((await client.request({ type: 'mcp' })).data).toMatchObject({ code: 'VALIDATION_ERROR' });
    // The session goes on.
    expect((await client.request({ type: 'reset', data: { seed: 1 } })).type).toBe('observation');
    client.close();
  });
});

describe('POST /mcp: openenv/session/create, tools with session_id, openenv/session/close', () => {
  it('holds one episode across calls, seeded as asked, until closed', async () => {
    const created = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'openenv/session/create', params: { seed: 5 } },
      `${ECHO}/mcp`,
    );
    const sessionId = created.result.session_id as string;
    expect(created.result).toEqual({ session_id: expect.any(String), env_id: 'test/echo-v1', seed: 5 });
    const call = (text: string): Promise<any> =>
      rpc(
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'act', arguments: { text }, session_id: sessionId },
        },
        `${ECHO}/mcp`,
      );
    expect((await call('hello')).result.structuredContent).toMatchObject({ done: false, metadata: { feedback: 'ok' } });
    const listed = await rpc(
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { session_id: sessionId } },
      `${ECHO}/mcp`,
    );
    expect(listed.result.tools.map((tool: any) => tool.name)).toEqual(['act']);
    expect((await call('bye')).result.structuredContent).toMatchObject({ reward: 1, done: true });
    // The episode is over: the next call says so rather than playing a fresh one.
    expect((await call('again')).error).toEqual({ code: -32603, message: expect.any(String) });
    const closed = await rpc(
      { jsonrpc: '2.0', id: 4, method: 'openenv/session/close', params: { session_id: sessionId } },
      `${ECHO}/mcp`,
    );
    expect(closed.result).toEqual({ session_id: sessionId, closed: true });
    expect((await call('hello')).error).toEqual({ code: -32602, message: `Unknown session_id: ${sessionId}` });
  });

  it("names only sessions it made, on the same path: not a /ws session's id, not another env path's", async () => {
    const client = await WsClient.open(`${server.url}/ws`);
    const wsSession = (await client.request({ type: 'state' })).data.session_id;
    const refused = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'LOOKUP', arguments: { key: 'x' }, session_id: wsSession },
    });
    expect(refused.error).toEqual({ code: -32602, message: `Unknown session_id: ${wsSession}` });
    expect(
      (await rpc({ jsonrpc: '2.0', id: 2, method: 'openenv/session/close', params: { session_id: wsSession } })).error
        .code,
    ).toBe(-32602);
    client.close();
    const made = (await rpc({ jsonrpc: '2.0', id: 3, method: 'openenv/session/create' }, `${ECHO}/mcp`)).result;
    expect(made.seed).toEqual(expect.any(Number));
    const elsewhere = await rpc({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: { session_id: made.session_id },
    });
    expect(elsewhere.error.code).toBe(-32602);
    await rpc(
      { jsonrpc: '2.0', id: 5, method: 'openenv/session/close', params: { session_id: made.session_id } },
      `${ECHO}/mcp`,
    );
  });

  it('counts its sessions against maxSessions, and frees the slot on close', async () => {
    const small = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS, port: 0, heartbeatMs: 0, maxSessions: 1 });
    const post = async (body: unknown): Promise<any> =>
      (
        await fetch(`${small.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();
    try {
      const first = (await post({ jsonrpc: '2.0', id: 1, method: 'openenv/session/create' })).result.session_id;
      expect(small.liveSessions()).toBe(1);
      const full = await post({ jsonrpc: '2.0', id: 2, method: 'openenv/session/create' });
      expect(full.error).toEqual({ code: -32000, message: expect.stringMatching(/capacity|sessions/i) });
      await post({ jsonrpc: '2.0', id: 3, method: 'openenv/session/close', params: { session_id: first } });
      expect(small.liveSessions()).toBe(0);
      const again = await post({ jsonrpc: '2.0', id: 4, method: 'openenv/session/create' });
      expect(again.result.session_id).toEqual(expect.any(String));
    } finally {
      await small.close();
    }
  });

  it('closes a session its client forgot after idleTimeoutMs, as a connection it carried would be', async () => {
    const clock = new ManualClock();
    let sessionClosed: (id: string) => void = () => undefined;
    const closed = new Promise<string>((resolve) => {
      sessionClosed = resolve;
    });
    const idle = await serveEnvs({
      registry: testRegistry(),
      ids: ALL_IDS,
      port: 0,
      heartbeatMs: 0,
      idleTimeoutMs: 1000,
      clock,
      onSessionClosed: ({ sessionId }) => sessionClosed(sessionId),
    });
    try {
      const made = await (
        await fetch(`${idle.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'openenv/session/create' }),
        })
      ).json();
      clock.advance(2000);
      expect(await closed).toBe(made.result.session_id);
      expect(idle.liveSessions()).toBe(0);
    } finally {
      await idle.close();
    }
  });

  it('refuses params it does not take, by name', async () => {
    const reply = await rpc({ jsonrpc: '2.0', id: 1, method: 'openenv/session/create', params: { sede: 1 } });
    expect(reply.error).toEqual({ code: -32602, message: expect.stringContaining('"sede"') });
    expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'openenv/session/close', params: {} })).error.code).toBe(-32602);
  });
});
