import { BaseEnv, Registry, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { Action, EnvSpec } from '@turngym/spec';
import { ALL_IDS, testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { ENV_ROUTES } from './routes';
import { serveEnvs, type ServerHandle } from './serve-envs';

// What generic OpenEnv clients read: /openapi.json, /state, and 4xx (never 500) for hostile JSON.

/** `test/seeded-v1`: reports the seed it drew in `info.seed`, as core's seedless reset does. */
class SeededEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/seeded-v1',
    summary: 'Reports its seed.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text' },
    maxTurns: 3,
    rewardRange: [0, 1],
  };
  protected spawn(): SeededEnv {
    return new SeededEnv();
  }
  protected onReset(): EnvResetOutcome<string> {
    return { observation: 'ready', instructions: 'Say anything.', info: { seed: 424242 } };
  }
  protected onStep(): EnvStepOutcome<string> {
    return { observation: 'done', reward: 0, terminated: true, info: {} };
  }
  fingerprint(action: Action): string {
    return String(action);
  }
  anchor(): string {
    return 'start';
  }
}

let server: ServerHandle;

beforeAll(async () => {
  const registry: Registry = testRegistry();
  registry.register({ id: 'test/seeded-v1', entryPoint: () => new SeededEnv() });
  server = await serveEnvs({ registry, ids: [...ALL_IDS, 'test/seeded-v1'], port: 0, heartbeatMs: 0 });
});

afterAll(() => server.close());

const post = (path: string, body: string): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('OpenEnv shapes', () => {
  it('/openapi.json lists every route the server answers, /state included', async () => {
    const paths = Object.keys((await (await fetch(`${server.url}/openapi.json`)).json()).paths);
    for (const route of ENV_ROUTES) {
      expect(paths).toContain(`/${route}`);
      expect(paths).toContain(`/envs/{env_id}/${route}`);
    }
    expect(paths).toEqual(
      expect.arrayContaining(['/envs', '/sessions/{session_id}/fingerprint', '/sessions/{session_id}/anchor']),
    );
  });

  it('/state carries an episode id over HTTP and on a session before its first reset', async () => {
    const state = await (await fetch(`${server.url}/state`)).json();
    expect(state).toMatchObject({ episode_id: expect.any(String), step_count: 0 });
    const client = await WsClient.open(`${server.url}/ws`);
    const before = await client.request({ type: 'state' });
    expect(before.data.episode_id).toEqual(expect.any(String));
    client.close();
  });

  it("/state reports the seed the last reset's info reports when the client sent none", async () => {
    const client = await WsClient.open(`${server.url}/ws?env=test/seeded-v1`);
    const reset = await client.request({ type: 'reset' });
    expect(reset.data.metadata.seed).toEqual(expect.any(Number));
    expect((await client.request({ type: 'state' })).data.seed).toBe(reset.data.metadata.seed);
    client.close();
  });
});

describe('deeply nested JSON is a 4xx validation error, never a 500', () => {
  const levels = 100000;
  const arrays = '['.repeat(levels) + ']'.repeat(levels);
  const objects = '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  const inOptions = `{"env_options":${objects}}`;

  it.each([
    ['/reset', arrays],
    ['/reset', inOptions],
    ['/step', `{"action":{"tool":"LOOKUP","arguments":${objects}}}`],
    ['/mcp', arrays],
  ])('POST %s', async (path, text) => {
    const response = await post(path, text);
    if (path === '/mcp') {
      // JSON-RPC answers every request with 200 and an error object.
      expect(response.status).toBe(200);
      expect((await response.json()).error.code).toBe(-32700);
      return;
    }
    expect(response.status).toBe(422);
    expect((await response.json()).detail).toEqual([
      expect.objectContaining({ type: 'json_invalid', loc: ['body'], msg: expect.stringContaining('nested deeper') }),
    ]);
  });

  it('over the WebSocket and /mux: a VALIDATION_ERROR reply, and the session goes on', async () => {
    const client = await WsClient.open(`${server.url}/ws`);
    const reply = await client.request(`{"type":"reset","data":${inOptions}}`);
    expect(reply).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect((await client.request({ type: 'reset' })).type).toBe('observation');
    client.close();

    const mux = await WsClient.open(`${server.url}/mux`);
    const [frameError] = await mux.request(`[{"c":1,"m":${arrays}}]`);
    expect(frameError).toMatchObject({ c: null, m: { type: 'error', data: { code: 'VALIDATION_ERROR' } } });
    const [opened] = await mux.request([{ c: 1, m: { type: 'open' } }]);
    expect(opened).toMatchObject({ c: 1, m: { type: 'session' } });
    mux.close();
  });
});
