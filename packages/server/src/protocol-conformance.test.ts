import { ExampleEnv } from '@turngym/env-example';
import { SessionEvents } from './__fixtures__/session-events';
import { ALL_IDS, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { serveEnvs, type ServerHandle } from './serve-envs';

let server: ServerHandle;
const events = new SessionEvents();

beforeAll(async () => {
  server = await serveEnvs({
    registry: testRegistry(),
    ids: ALL_IDS,
    port: 0,
    maxFrameBytes: 4096,
    onSessionClosed: events.onSessionClosed,
  });
});

afterAll(async () => {
  await server.close();
  expect(openEnvs.count).toBe(0);
});

const ws = (path = '/ws'): Promise<WsClient> => WsClient.open(`${server.url}${path}`);
const body = async (response: Response | Promise<Response>): Promise<any> => (await response).json();
const withoutWallMs = (info: any): any => ({ ...info, cost: { ...info.cost, wallMs: 0 } });

describe('WebSocket /ws, OpenEnv messages', () => {
  it('reset and step reply with OpenEnv observation data, and the info survives as metadata', async () => {
    const client = await ws();
    const local = new ExampleEnv();
    const localReset = await local.reset({ seed: 3 });
    const reset = await client.request({ type: 'reset', data: { seed: 3 } });
    expect(reset.type).toBe('observation');
    expect(reset.data).toMatchObject({ observation: { text: localReset.observation }, reward: null, done: false });
    expect(withoutWallMs(reset.data.metadata)).toEqual(withoutWallMs(localReset.info));

    const localStep = await local.step('LOOKUP(nowhere)');
    const step = await client.request({ type: 'step', data: { text: 'LOOKUP(nowhere)' } });
    expect(step).toMatchObject({
      type: 'observation',
      data: {
        observation: { text: localStep.observation },
        reward: 0,
        done: false,
        terminated: false,
        truncated: false,
      },
    });
    expect(withoutWallMs(step.data.metadata)).toEqual(withoutWallMs(localStep.info));

    // A structured tool call is the same action as its text form.
    const submit = await client.request({
      type: 'step',
      data: { tool: 'SUBMIT', arguments: { answer: '0' }, metadata: {} },
    });
    expect(submit.data).toMatchObject({
      done: true,
      terminated: true,
      metadata: { fingerprint: 'SUBMIT', success: false },
    });
    client.close();
    await local.close();
  });

  it('state reports OpenEnv State (episode_id, step_count) plus env and session ids', async () => {
    const client = await ws();
    await client.request({ type: 'reset', data: { seed: 1, episode_id: 'ep-1' } });
    await client.request({ type: 'step', data: { text: 'LOOKUP(x)' } });
    const state = await client.request({ type: 'state' });
    expect(state).toEqual({
      type: 'state',
      data: {
        episode_id: 'ep-1',
        step_count: 1,
        env_id: 'turngym/example-v1',
        session_id: expect.any(String),
        seed: 1,
        done: false,
      },
    });
    client.close();
  });

  it("takes null for OpenEnv's optional fields as absent, as OpenEnv's client sends env.reset(seed=None)", async () => {
    const client = await ws();
    const reset = await client.request({ type: 'reset', data: { seed: null, episode_id: null } });
    expect(reset).toMatchObject({ type: 'observation', data: { done: false } });
    const state = await client.request({ type: 'state' });
    expect(state.data.episode_id).toBe(`${state.data.session_id}:1`);
    expect(state.data.seed).toEqual(expect.any(Number)); // drawn by the env, as for a reset without a seed
    // TurnGym's own keys are not optional in OpenEnv's sense: null there is still a wrong type.
    const refused = await client.request({ type: 'reset', data: { seed: null, max_turns: null } });
    expect(refused.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ type: 'int_type', loc: ['data', 'max_turns'] }],
    });
    client.close();
    const post = (path: string, payload: unknown): Promise<Response> =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
    expect((await post('/reset', { seed: null, episode_id: null })).status).toBe(200);
    const step = await post('/step', { action: { text: 'LOOKUP(x)' }, timeout_s: null, request_id: null, seed: null });
    expect(step.status).toBe(200);
    expect((await step.json()).observation).toEqual({ text: expect.any(String) });
  });

  it('close gets no reply: the server closes the connection with 1000 and the env', async () => {
    await events.until(() => server.liveSessions() === 0);
    const client = await ws();
    await client.request({ type: 'reset' });
    expect(server.liveSessions()).toBe(1);
    client.send({ type: 'close' });
    expect((await client.closed).code).toBe(1000);
    await events.until(() => server.liveSessions() === 0);
  });
});

describe('error replies', () => {
  let client: WsClient;
  beforeEach(async () => {
    client = await ws();
  });
  afterEach(() => client.close());

  it('INVALID_JSON for a frame that is not JSON; the session goes on', async () => {
    expect(await client.request('{"type": "reset"')).toEqual({
      type: 'error',
      data: { code: 'INVALID_JSON', message: expect.stringMatching(/^Invalid JSON/) },
    });
    expect((await client.request({ type: 'reset' })).type).toBe('observation');
  });

  it('INVALID_JSON for a binary frame whose bytes are not UTF-8, not a message with U+FFFD in them', async () => {
    const bytes = Buffer.from([...Buffer.from('{"type":"step","data":{"text":"'), 0xff, 0xfe, ...Buffer.from('"}}')]);
    client.socket.send(bytes, { binary: true });
    expect(await client.next()).toEqual({
      type: 'error',
      data: { code: 'INVALID_JSON', message: 'Invalid JSON: the frame is not valid UTF-8' },
    });
    // A binary frame of UTF-8 JSON is a message like any other.
    client.socket.send(Buffer.from(JSON.stringify({ type: 'reset', data: { seed: 1 } })), { binary: true });
    expect((await client.next()).type).toBe('observation');
    const mux = await ws('/mux');
    mux.socket.send(Buffer.from([0x5b, 0xff, 0x5d]), { binary: true });
    expect(await mux.next()).toEqual([
      {
        c: null,
        m: { type: 'error', data: { code: 'INVALID_JSON', message: 'Invalid JSON: the frame is not valid UTF-8' } },
      },
    ]);
    mux.close();
  });

  it('VALIDATION_ERROR naming the seed for one past the bounds every env takes, over the WebSocket and HTTP', async () => {
    const refused = await client.request({ type: 'reset', data: { seed: 1e300 } });
    expect(refused.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ type: 'less_than_equal', loc: ['data', 'seed'] }],
    });
    expect((await client.request({ type: 'reset', data: { seed: -Number.MAX_SAFE_INTEGER } })).type).toBe(
      'observation',
    );
    for (const path of ['/reset', '/step']) {
      const reply = await fetch(`${server.url}${path}`, {
        method: 'POST',
        body: JSON.stringify({ seed: -(2 ** 60), ...(path === '/step' ? { action: { text: 'hi' } } : {}) }),
      });
      expect({ path, status: reply.status, detail: (await reply.json()).detail }).toEqual({
        path,
        status: 422,
        detail: [expect.objectContaining({ type: 'greater_than_equal', loc: ['body', 'seed'] })],
      });
    }
  });

  it('UNKNOWN_TYPE for a message type the server does not know', async () => {
    expect(await client.request({ type: 'dance' })).toEqual({
      type: 'error',
      data: { code: 'UNKNOWN_TYPE', message: 'Unknown message type: dance' },
    });
    expect((await client.request({ data: {} })).data).toEqual({
      code: 'UNKNOWN_TYPE',
      message: 'Unknown message type: ',
    });
  });

  it('VALIDATION_ERROR with pydantic-style errors for extra fields, wrong types, malformed actions', async () => {
    const state = await client.request({ type: 'state', data: {} });
    expect(state.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ type: 'extra_forbidden', loc: ['data'], input: {} }],
    });
    const reset = await client.request({ type: 'reset', data: { sede: 1 } });
    expect(reset.data.errors).toEqual([
      expect.objectContaining({
        loc: ['data', 'sede'],
        msg: expect.stringContaining('allowed fields: seed, episode_id'),
      }),
    ]);
    const seed = await client.request({ type: 'reset', data: { seed: 1.5 } });
    expect(seed.data.errors).toEqual([
      expect.objectContaining({ type: 'int_from_float', loc: ['data', 'seed'], input: 1.5 }),
    ]);
    await client.request({ type: 'reset', data: { seed: 1 } });
    const action = await client.request({ type: 'step', data: { txt: 'LOOKUP(a)' } });
    expect(action.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('{"text": …} or {"tool": …}'),
    });
    const noData = await client.request({ type: 'step' });
    expect(noData.data.errors).toEqual([expect.objectContaining({ type: 'missing', loc: ['data'] })]);
    const args = await client.request({ type: 'step', data: { tool: 'LOOKUP', arguments: 'key' } });
    expect(args.data.errors).toEqual([expect.objectContaining({ loc: ['data', 'arguments'] })]);
  });

  it('EXECUTION_ERROR for API misuse, carrying the TurnGymError code', async () => {
    const step = await client.request({ type: 'step', data: { text: 'LOOKUP(a)' } });
    expect(step.data).toMatchObject({ code: 'EXECUTION_ERROR', turngym_code: 'RESET_NEEDED', retryable: false });
  });

  it('an action form the space does not take is VALIDATION_ERROR / INVALID_ACTION_TYPE', async () => {
    await client.request({ type: 'reset' });
    const step = await client.request({ type: 'step', data: { index: 2 } });
    expect(step.data).toMatchObject({ code: 'VALIDATION_ERROR', turngym_code: 'INVALID_ACTION_TYPE' });
    // OpenEnv's clients read `errors` on every VALIDATION_ERROR, not only on schema failures.
    expect(step.data.errors).toEqual([
      { type: 'value_error', loc: [], msg: expect.stringContaining('{"text": …} or {"tool": …}') },
    ]);
  });

  it('an oversized frame gets VALIDATION_ERROR and the session goes on; a huge one is cut off (1009)', async () => {
    await client.request({ type: 'reset' });
    const big = await client.request({ type: 'step', data: { text: 'x'.repeat(5000) } });
    expect(big.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/exceeds the server's limit of 4096 bytes/),
    });
    expect((await client.request({ type: 'step', data: { text: 'LOOKUP(a)' } })).type).toBe('observation');
    client.send({ type: 'step', data: { text: 'x'.repeat(20000) } });
    expect((await client.closed).code).toBe(1009);
  });

  it('JSON that is not an object is a SESSION_ERROR and ends the session, as in OpenEnv', async () => {
    expect((await client.request('[1, 2]')).data).toMatchObject({ code: 'SESSION_ERROR' });
    expect((await client.closed).code).toBe(1000);
  });

  it('an env that throws is an EXECUTION_ERROR reply; the server and the session survive', async () => {
    const echo = await ws('/ws?env=test/echo-v1');
    await echo.request({ type: 'reset' });
    expect((await echo.request({ type: 'step', data: { text: 'crash' } })).data).toEqual({
      code: 'EXECUTION_ERROR',
      message: 'Error: the echo env crashed',
    });
    expect((await echo.request({ type: 'step', data: { text: 'bigint' } })).data).toEqual({
      code: 'EXECUTION_ERROR',
      message: expect.stringContaining('BigInt'),
    });
    expect((await echo.request({ type: 'step', data: { text: 'hi' } })).data.observation).toEqual({ text: 'echo: hi' });
    echo.close();
  });
});

describe('choice of env per session, budgets, extensions', () => {
  it('picks the env by ?env=, by /envs/<id>/ws, and by reset env_id; unknown ids are FACTORY_ERROR', async () => {
    const byQuery = await ws('/ws?env=test/echo-v1');
    expect((await byQuery.request({ type: 'reset' })).data.observation.text).toMatch(/^Say something/);
    const byPath = await ws('/envs/test/choice-v1/ws');
    expect((await byPath.request({ type: 'reset' })).data.observation.text).toBe('Three doors.');
    expect((await byPath.request({ type: 'step', data: { index: 2 } })).data).toMatchObject({ reward: 1, done: true });
    const switching = await ws();
    expect(
      (await switching.request({ type: 'reset', data: { env_id: 'test/echo-v1', seed: 4 } })).data.observation.text,
    ).toBe('Say something (seed 4).');
    expect((await switching.request({ type: 'state' })).data.env_id).toBe('test/echo-v1');
    expect((await switching.request({ type: 'reset', data: { env_id: 'nope/nothing-v1' } })).data).toMatchObject({
      code: 'FACTORY_ERROR',
      turngym_code: 'NAME_NOT_FOUND',
      factory_name: 'nope/nothing-v1',
    });
    const unknown = await ws('/ws?env=nope/nothing-v1');
    expect((await unknown.next()).data).toMatchObject({
      code: 'FACTORY_ERROR',
      message: expect.stringContaining('turngym/example-v1'),
    });
    expect((await unknown.closed).code).toBe(1000);
    for (const client of [byQuery, byPath, switching]) client.close();
  });

  it('session configures env options, turn limit and budgets; bad options are VALIDATION_ERROR', async () => {
    const client = await ws();
    const session = await client.request({
      type: 'session',
      data: { env_options: { chainLength: 1 }, max_turns: 2, budget: { max_tool_calls: 5 } },
    });
    expect(session.data).toMatchObject({
      env_id: 'turngym/example-v1',
      spec: { id: 'turngym/example-v1', maxTurns: 10 },
    });
    await client.request({ type: 'reset', data: { seed: 1 } });
    const first = await client.request({ type: 'step', data: { text: 'LOOKUP(a)' } });
    expect(first.data.metadata.budget).toEqual({ toolCalls: 4 });
    const second = await client.request({ type: 'step', data: { text: 'LOOKUP(b)' } });
    expect(second.data).toMatchObject({ truncated: true, done: true, metadata: { truncatedBy: 'time-limit' } });
    const bad = await client.request({ type: 'session', data: { env_options: { chainLength: 'long' } } });
    expect(bad.data).toMatchObject({ code: 'VALIDATION_ERROR', turngym_code: 'INVALID_OPTIONS' });
    client.close();
  });

  it('fingerprint and anchor messages evaluate the hooks in the current state', async () => {
    const client = await ws();
    await client.request({ type: 'reset', data: { seed: 2 } });
    const local = new ExampleEnv();
    await local.reset({ seed: 2 });
    const actions = ['LOOKUP(zzz)', 'SUBMIT(1)', 'garbage ((('];
    const reply = await client.request({ type: 'fingerprint', data: { actions: actions.map((text) => ({ text })) } });
    expect(reply).toEqual({
      type: 'fingerprint',
      data: { fingerprints: actions.map((action) => local.fingerprint(action)) },
    });
    expect(await client.request({ type: 'anchor' })).toEqual({ type: 'anchor', data: { anchor: local.anchor() } });
    client.close();
    await local.close();
  });
});

describe('HTTP routes', () => {
  const get = (path: string): Promise<Response> => fetch(`${server.url}${path}`);
  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it("POST /step and a WebSocket step take a call whose arguments are a JSON string (OpenAI's form)", async () => {
    const call = { tool: 'LOOKUP', arguments: { key: 'amber-17' } };
    const asString = { ...call, arguments: JSON.stringify(call.arguments) };
    const plain = await post('/step', { action: call, seed: 2 });
    const stringed = await post('/step', { action: asString, seed: 2 });
    expect(stringed.status).toBe(200);
    const [expected, got] = [await body(plain), await body(stringed)];
    expect({ ...got, metadata: withoutWallMs(got.metadata) }).toEqual({
      ...expected,
      metadata: withoutWallMs(expected.metadata),
    });
    const client = await ws();
    await client.request({ type: 'reset', data: { seed: 2 } });
    const step = await client.request({ type: 'step', data: asString });
    expect(step.type).toBe('observation');
    expect(step.data.observation).toEqual(expected.observation);
    // Not JSON of an object: refused at `arguments`, as before.
    const notObject = await post('/step', { action: { tool: 'LOOKUP', arguments: '["amber-17"]' } });
    expect(notObject.status).toBe(422);
    expect((await body(notObject)).detail).toEqual([expect.objectContaining({ loc: ['arguments'] })]);
    client.close();
  });

  it('GET /health, /metadata, /schema, /envs, /openapi.json', async () => {
    expect(await body(get('/health'))).toEqual({ status: 'healthy' });
    const metadata = await body(get('/metadata'));
    expect(Object.keys(metadata).sort()).toEqual(['description', 'name', 'readme_content', 'version']);
    expect(metadata).toMatchObject({
      name: 'turngym/example-v1',
      readme_content: expect.stringContaining('## Action Space'),
      // The version its registration records (the env's package).
      version: '0.1.0-test',
    });
    // An env that records no version has none (OpenEnv's `version` is optional).
    expect(await body(get('/envs/test/echo-v1/metadata'))).toEqual({
      name: 'test/echo-v1',
      description: expect.any(String),
      readme_content: expect.any(String),
    });
    const schema = await body(get('/schema'));
    expect(Object.keys(schema).sort()).toEqual(['action', 'observation', 'state']);
    // Flat object schemas, as pydantic emits them: a generic client builds an action from `properties`.
    expect(schema.action).toMatchObject({ type: 'object', required: [] });
    expect(schema.action).not.toHaveProperty('oneOf');
    expect(Object.keys(schema.action.properties)).toEqual(['text', 'metadata', 'tool', 'arguments', 'id']);
    expect(schema.observation).toMatchObject({ type: 'object', required: ['text'], properties: { text: {} } });
    const choice = (await body(get('/schema?env=test/choice-v1'))).action;
    expect(Object.keys(choice.properties)).toEqual(['index', 'metadata', 'text']);
    expect((await body(get('/schema?env=test/echo-v1'))).action).toMatchObject({
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string' } },
    });
    expect((await body(get('/envs'))).envs.map((env: { id: string }) => env.id)).toEqual(ALL_IDS);
    expect(typeof (await body(get('/openapi.json'))).info.version).toBe('string');
  });

  it('POST /reset and /step are stateless and answer like the WebSocket', async () => {
    const local = new ExampleEnv();
    const expected = await local.reset({ seed: 5 });
    const reset = await body(post('/reset', { seed: 5 }));
    expect(reset).toMatchObject({ observation: { text: expected.observation }, reward: null, done: false });
    expect((await body(post('/reset', ''))).done).toBe(false);
    const step = await post('/step', { action: { text: 'SUBMIT(1234)' }, seed: 5, timeout_s: 1, request_id: 'r1' });
    expect(step.status).toBe(200);
    expect(await body(step)).toMatchObject({
      reward: expect.any(Number),
      done: true,
      metadata: { fingerprint: 'SUBMIT' },
    });
    await local.close();
  });

  it('invalid requests are 422 with a pydantic-style detail list; unknown paths 404; wrong methods 405', async () => {
    const invalid = await post('/step', { action: { nope: 1 } });
    expect(invalid.status).toBe(422);
    expect((await body(invalid)).detail).toEqual([expect.objectContaining({ loc: ['body', 'action'] })]);
    // A bad field of the action is located at the field itself, as OpenEnv's action model words it.
    const badField = await post('/step', { action: { text: 5 } });
    expect(badField.status).toBe(422);
    expect((await body(badField)).detail).toEqual([expect.objectContaining({ type: 'string_type', loc: ['text'] })]);
    expect((await body(post('/step', { action: { text: 'x', extra: 1 } }))).detail).toEqual([
      expect.objectContaining({ type: 'extra_forbidden', loc: ['extra'] }),
    ]);
    const missing = await post('/step', {});
    expect((await body(missing)).detail).toEqual([
      { type: 'missing', loc: ['body', 'action'], msg: 'body.action is required', input: {} },
    ]);
    const broken = await post('/reset', '{oops');
    expect(broken.status).toBe(422);
    expect((await body(broken)).detail[0].type).toBe('json_invalid');
    // Bytes that are not UTF-8 are malformed JSON too, not text with U+FFFD in place of them.
    const notUtf8 = await fetch(`${server.url}/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from([...Buffer.from('{"episode_id":"'), 0xff, 0xfe, ...Buffer.from('"}')]),
    });
    expect(notUtf8.status).toBe(422);
    expect((await body(notUtf8)).detail).toEqual([expect.objectContaining({ type: 'json_invalid', loc: ['body'] })]);
    expect((await post('/reset', 'x'.repeat(5000))).status).toBe(413);
    expect((await get('/nowhere')).status).toBe(404);
    expect((await get('/reset')).status).toBe(405);
    // HEAD is a GET without the body, as on OpenEnv's server (Starlette): monitors probe /health with it.
    for (const path of ['/health', '/schema', '/envs']) {
      const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
      expect({ path, status: head.status, body: await head.text() }).toEqual({ path, status: 200, body: '' });
    }
    expect((await fetch(`${server.url}/reset`, { method: 'HEAD' })).status).toBe(405);
    // A probe of one env's path is told when that env is not served (a typo is not "healthy"), without the list.
    expect((await get('/envs/test%2Fecho-v1/health')).status).toBe(200);
    for (const path of ['/envs/test%2Fehco-v1/health', '/health?env=nope/nothing-v1']) {
      const probe = await get(path);
      expect({ path, status: probe.status, body: await probe.json() }).toEqual({
        path,
        status: 404,
        body: { detail: 'Not Found' },
      });
    }
    expect((await get('/ws')).status).toBe(426);
    expect((await get('/metadata?env=nope/nothing-v1')).status).toBe(404);
  });

  it('POST /mcp lists the env tools and calls one (JSON-RPC 2.0)', async () => {
    const list = await body(post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(list).toMatchObject({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'LOOKUP' }, { name: 'SUBMIT' }] } });
    const call = await body(
      post('/mcp', {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'LOOKUP', arguments: { key: 'x' } },
      }),
    );
    expect(call.result.content[0]).toEqual({ type: 'text', text: 'LOOKUP x: no such key.' });
    expect((await body(post('/mcp', { jsonrpc: '2.0', id: 3, method: 'nope' }))).error.code).toBe(-32601);
    expect((await body(post('/mcp', '{'))).error.code).toBe(-32700);
  });

  it('POST /mcp answers a JSON-RPC notification with 202 and no body', async () => {
    const notified = await post('/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe('');
    // An id of null is still a request, and gets its answer.
    expect((await body(post('/mcp', { jsonrpc: '2.0', id: null, method: 'tools/list' }))).id).toBeNull();
  });

  it('ignores unknown query parameters (cache-busters) and still validates the known ones', async () => {
    expect((await get('/health?_=1712345')).status).toBe(200);
    expect((await body(get('/metadata?cb=1&env=test/echo-v1'))).name).toBe('test/echo-v1');
    const client = await ws('/ws?env=test/echo-v1&utm_source=probe');
    expect((await client.request({ type: 'reset' })).type).toBe('observation');
    client.close();
    const badEnv = await get('/schema?env=&cb=1');
    expect(badEnv.status).toBe(422);
    expect((await body(badEnv)).detail).toEqual([expect.objectContaining({ loc: ['query', 'env'] })]);
  });
});
