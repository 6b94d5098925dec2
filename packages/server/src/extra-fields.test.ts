import { BaseEnv, Registry, type EnvResetOutcome, type EnvStepOutcome } from '@turngym/core';
import type { Action, EnvSpec } from '@turngym/spec';
import { WsClient } from './__fixtures__/ws-client';
import { serveEnvs, type ServerHandle } from './serve-envs';

// What OpenEnv callers send beyond `seed` and `episode_id`: OpenEnv's ResetRequest and StepRequest allow extra
// fields (pydantic `extra="allow"`) and hand them to the env's reset(**kwargs) / step(action, **kwargs).

/** `test/options-v1`: reports the reset options it was given in `info.options`. */
class OptionsEnv extends BaseEnv<string, Action> {
  readonly spec: EnvSpec = {
    specificationVersion: 'v1',
    id: 'test/options-v1',
    summary: 'Reports its reset options.',
    observationSpace: { type: 'text' },
    actionSpace: { type: 'text' },
    maxTurns: 3,
    rewardRange: [0, 1],
  };
  protected spawn(): OptionsEnv {
    return new OptionsEnv();
  }
  private options: Record<string, unknown> | null = null;
  protected onReset(_seed: number, options?: Record<string, unknown>): EnvResetOutcome<string> {
    this.options = options ?? null;
    return { observation: 'ready', instructions: 'Say anything.', info: { options: this.options } };
  }
  protected onStep(): EnvStepOutcome<string> {
    return { observation: 'done', reward: 0, terminated: true, info: { options: this.options } };
  }
  fingerprint(action: Action): string {
    return String(action);
  }
  anchor(): string {
    return 'start';
  }
}

let server: ServerHandle;
let client: WsClient | undefined;

beforeAll(async () => {
  const registry = new Registry();
  registry.register({ id: 'test/options-v1', entryPoint: () => new OptionsEnv() });
  server = await serveEnvs({ registry, ids: ['test/options-v1'], port: 0, heartbeatMs: 0 });
});

afterEach(() => {
  client?.socket.terminate();
  client = undefined;
});

afterAll(() => server.close());

const post = async (path: string, body: unknown): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};

const wsReset = async (data: unknown): Promise<any> => {
  client ??= await WsClient.open(`${server.url}/ws`);
  return client.request({ type: 'reset', data });
};

describe('extra reset fields are the episode options, as OpenEnv hands them to reset(**kwargs)', () => {
  it('POST /reset: extra fields join `options` and reach the env', async () => {
    const reply = await post('/reset', { seed: 3, difficulty: 'hard', task_id: 't-7', options: { level: 2 } });
    expect(reply.status).toBe(200);
    expect(reply.body.metadata).toMatchObject({ seed: 3, options: { level: 2, difficulty: 'hard', task_id: 't-7' } });
  });

  it('WebSocket reset: extra fields join `options` and reach the env; the session goes on', async () => {
    const reply = await wsReset({ seed: 3, fen: 'startpos' });
    expect(reply.type).toBe('observation');
    expect(reply.data.metadata).toMatchObject({ seed: 3, options: { fen: 'startpos' } });
    expect((await client!.request({ type: 'step', data: { text: 'hi' } })).data.metadata.options).toEqual({
      fen: 'startpos',
    });
  });

  it("/mux: a channel's reset takes extra fields as options too", async () => {
    client = await WsClient.open(`${server.url}/mux`);
    expect(await client.request([{ c: 1, m: { type: 'open' } }])).toEqual([
      expect.objectContaining({ c: 1, m: expect.objectContaining({ type: 'session' }) }),
    ]);
    const [reply] = await client.request([{ c: 1, m: { type: 'reset', data: { seed: 2, task_id: 't-1' } } }]);
    expect(reply.m.data.metadata).toMatchObject({ seed: 2, options: { task_id: 't-1' } });
  });

  it('request_id (a tracking id a client adds to every request) is accepted and is no option', async () => {
    expect((await post('/reset', { seed: 1, request_id: 'r-1' })).body.metadata.options).toBeNull();
    expect((await wsReset({ seed: 1, request_id: 'r-1' })).data.metadata.options).toBeNull();
  });

  it.each([
    ['sede', 'seed'],
    ['Seed', 'seed'],
    ['episodeId', 'episode_id'],
    ['option', 'options'],
    ['env_option', 'env_options'],
  ])('a look-alike of a field TurnGym reads (%s) is refused, naming the field it looks like', async (typo, meant) => {
    const ws = await wsReset({ [typo]: 1 });
    expect(ws.data).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(ws.data.errors).toEqual([
      expect.objectContaining({
        type: 'extra_forbidden',
        loc: ['data', typo],
        msg: expect.stringContaining(`did you mean "${meant}"`),
        input: 1,
      }),
    ]);
    expect(ws.data.message).toContain(`did you mean "${meant}"`);
    const http = await post('/reset', { [typo]: 1 });
    expect(http.status).toBe(422);
    expect(http.body.detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', typo] })]);
    // The session survives the refusal.
    expect((await wsReset({ seed: 1 })).type).toBe('observation');
  });

  it('an option given both as a field and in `options` is refused, naming it', async () => {
    const http = await post('/reset', { level: 1, options: { level: 2 } });
    expect(http.status).toBe(422);
    expect(http.body.detail).toEqual([
      expect.objectContaining({ type: 'value_error', loc: ['body', 'level'], msg: expect.stringContaining('twice') }),
    ]);
    const ws = await wsReset({ level: 1, options: { level: 2 } });
    expect(ws.data.errors).toEqual([expect.objectContaining({ type: 'value_error', loc: ['data', 'level'] })]);
  });

  it('the extension messages of TurnGym (`session`) still refuse unknown fields', async () => {
    client = await WsClient.open(`${server.url}/ws`);
    const reply = await client.request({ type: 'session', data: { difficulty: 'hard' } });
    expect(reply.data.errors).toEqual([
      expect.objectContaining({ type: 'extra_forbidden', loc: ['data', 'difficulty'] }),
    ]);
  });
});

describe('POST /step: extra fields are step parameters, which no TurnGym step takes', () => {
  it("OpenEnv's own example body (render, verbose) is stepped; the fields are not options", async () => {
    const reply = await post('/step', { action: { text: 'hi' }, render: true, verbose: false, timeout_s: 30 });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ observation: { text: 'done' }, done: true, metadata: { options: null } });
  });

  it('a look-alike of a field it reads is refused', async () => {
    const reply = await post('/step', { action: { text: 'hi' }, sede: 4 });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([
      expect.objectContaining({
        type: 'extra_forbidden',
        loc: ['body', 'sede'],
        msg: expect.stringContaining('"seed"'),
      }),
    ]);
  });
});

describe("seeds and episode ids in OpenEnv's words", () => {
  it("HTTP: a negative seed is refused as OpenEnv's ResetRequest (ge=0) refuses it", async () => {
    for (const [path, extra] of [
      ['/reset', {}],
      ['/step', { action: { text: 'hi' } }],
    ] as const) {
      const reply = await post(path, { seed: -1, ...extra });
      expect({ path, status: reply.status, detail: reply.body.detail }).toEqual({
        path,
        status: 422,
        detail: [
          {
            type: 'greater_than_equal',
            loc: ['body', 'seed'],
            msg: 'body.seed must be >= 0 (got -1)',
            input: -1,
            ctx: { ge: 0 },
          },
        ],
      });
    }
  });

  it('WebSocket: a negative seed resets as it does in-process (OpenEnv hands it to the env unchecked)', async () => {
    const reply = await wsReset({ seed: -1 });
    expect(reply.data.metadata.seed).toBe(-1);
  });

  it('a fractional seed is int_from_float; a string or a boolean int_type; an episode_id that is no string string_type', async () => {
    const cases: [unknown, string, string][] = [
      [{ seed: 1.5 }, 'seed', 'int_from_float'],
      [{ seed: '5' }, 'seed', 'int_type'],
      [{ seed: true }, 'seed', 'int_type'],
      [{ episode_id: 5 }, 'episode_id', 'string_type'],
      [{ episode_id: ['e'] }, 'episode_id', 'string_type'],
    ];
    for (const [data, field, type] of cases) {
      expect((await wsReset(data)).data.errors).toEqual([expect.objectContaining({ type, loc: ['data', field] })]);
      expect((await post('/reset', data)).body.detail).toEqual([
        expect.objectContaining({ type, loc: ['body', field] }),
      ]);
    }
  });

  it('an episode_id over 255 characters is string_too_long with its bound', async () => {
    expect((await post('/reset', { episode_id: 'e'.repeat(256) })).body.detail).toEqual([
      expect.objectContaining({ type: 'string_too_long', loc: ['body', 'episode_id'], ctx: { max_length: 255 } }),
    ]);
  });
});

describe('bodies OpenEnv accepts', () => {
  it('POST /reset with a JSON null body resets with defaults, as FastAPI reads no body', async () => {
    const response = await fetch(`${server.url}/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    });
    expect(response.status).toBe(200);
    expect((await response.json()).observation).toEqual({ text: 'ready' });
  });
});

describe('POST /step with a JSON null body', () => {
  it('is `missing` at ["body"], as FastAPI words a required body it did not get', async () => {
    const response = await fetch(`${server.url}/step`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    });
    expect(response.status).toBe(422);
    expect((await response.json()).detail).toEqual([
      { type: 'missing', loc: ['body'], msg: 'body is required', input: null },
    ]);
  });
});
