import { EnvFaultError, runEpisode } from '@turngym/core';
import { ExampleSolver } from '@turngym/env-example';
import { ManualClock } from './manual-clock';
import { SessionEvents } from './__fixtures__/session-events';
import { ALL_IDS, EchoEnv, gates, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { RemoteEnv } from './remote-env';
import { serveEnvs, type ServerHandle } from './serve-envs';

let server: ServerHandle;
const events = new SessionEvents();

beforeAll(async () => {
  server = await serveEnvs({
    registry: testRegistry(),
    ids: ALL_IDS,
    port: 0,
    maxFrameBytes: 4096,
    maxSessions: 8,
    onSessionClosed: events.onSessionClosed,
  });
});

afterAll(async () => {
  await server.close();
  expect(openEnvs.count).toBe(0);
});

afterEach(async () => {
  await events.until(() => server.liveSessions() === 0);
});

/** Reads batches until `count` envelopes arrived. */
async function envelopes(client: WsClient, count: number): Promise<Array<{ c: number | null; m: any }>> {
  const out: Array<{ c: number | null; m: any }> = [];
  while (out.length < count) out.push(...((await client.next()) as Array<{ c: number | null; m: any }>));
  return out;
}

describe('/mux: many sessions on one connection', () => {
  it('carries independent sessions in batched frames, each answering in its own order', async () => {
    const client = await WsClient.open(`${server.url}/mux`);
    client.send([
      { c: 1, m: { type: 'open' } },
      { c: 1, m: { type: 'reset', data: { seed: 1 } } },
      { c: 2, m: { type: 'open', data: { env_id: 'test/echo-v1' } } },
      { c: 2, m: { type: 'reset', data: { seed: 2 } } },
      { c: 2, m: { type: 'step', data: { text: 'hi' } } },
      { c: 1, m: { type: 'state' } },
    ]);
    const replies = await envelopes(client, 6);
    const of = (channel: number): string[] => replies.filter((e) => e.c === channel).map((e) => e.m.type);
    expect(of(1)).toEqual(['session', 'observation', 'state']);
    expect(of(2)).toEqual(['session', 'observation', 'observation']);
    expect(replies.find((e) => e.c === 2 && e.m.data?.observation?.text === 'echo: hi')).toBeDefined();
    // A reply JSON cannot carry is an error on its channel; the connection and the other channels go on.
    client.send([{ c: 2, m: { type: 'step', data: { text: 'bigint' } } }]);
    expect((await envelopes(client, 1))[0]).toMatchObject({
      c: 2,
      m: { type: 'error', data: { code: 'EXECUTION_ERROR' } },
    });
    expect(server.liveSessions()).toBe(2);
    client.send([{ c: 1, m: { type: 'close' } }]);
    expect(await envelopes(client, 1)).toEqual([
      { c: 1, m: { type: 'closed', data: { code: 1000, reason: 'closed by client' } } },
    ]);
    await events.until(() => server.liveSessions() === 1);
    client.socket.terminate();
  });

  it('answers channel errors on the channel and frame errors with c: null', async () => {
    const client = await WsClient.open(`${server.url}/mux`);
    client.send([{ c: 5, m: { type: 'reset' } }]);
    expect(await envelopes(client, 1)).toEqual([
      { c: 5, m: { type: 'error', data: expect.objectContaining({ code: 'SESSION_ERROR' }) } },
    ]);
    client.send([{ c: 5, m: { type: 'open', data: { env_id: 'nope/nothing-v1' } } }]);
    expect((await envelopes(client, 1))[0]?.m.data).toMatchObject({
      code: 'FACTORY_ERROR',
      turngym_code: 'NAME_NOT_FOUND',
    });
    client.send([
      { c: 5, m: { type: 'open' } },
      { c: 5, m: { type: 'open' } },
      { c: 5, m: { type: 'dance' } },
    ]);
    const replies = await envelopes(client, 3);
    expect(replies.map((e) => (e.m.type === 'error' ? e.m.data.code : e.m.type)).sort()).toEqual([
      'UNKNOWN_TYPE',
      'VALIDATION_ERROR',
      'session',
    ]);
    client.send('{"nope"');
    expect(await envelopes(client, 1)).toEqual([
      { c: null, m: { type: 'error', data: expect.objectContaining({ code: 'INVALID_JSON' }) } },
    ]);
    client.send([{ c: 5, m: { type: 'step', data: { text: 'x'.repeat(5000) } } }]);
    expect((await envelopes(client, 1))[0]).toMatchObject({
      c: 5,
      m: { data: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/exceeds/) } },
    });
    // A frame that is not a batch of envelopes is not the protocol: SESSION_ERROR, connection closed.
    client.send({ type: 'reset' });
    expect((await envelopes(client, 1))[0]).toMatchObject({ c: null, m: { data: { code: 'SESSION_ERROR' } } });
    expect((await client.closed).code).toBe(1000);
  });

  it('lets a fork be claimed once, even by two opens in one frame', async () => {
    const parent = await WsClient.open(`${server.url}/ws?env=test/echo-v1`);
    await parent.request({ type: 'reset' });
    await parent.request({ type: 'step', data: { text: 'before' } });
    const fork = (await parent.request({ type: 'fork' })).data.session_id as string;
    const client = await WsClient.open(`${server.url}/mux`);
    client.send([
      { c: 1, m: { type: 'open', data: { session: fork } } },
      { c: 2, m: { type: 'open', data: { session: fork } } },
    ]);
    const replies = await envelopes(client, 2);
    expect(replies.find((e) => e.c === 1)?.m).toMatchObject({ type: 'session', data: { session_id: fork } });
    expect(replies.find((e) => e.c === 2)?.m).toMatchObject({ type: 'error', data: { code: 'SESSION_ERROR' } });
    // The loser's channel is not open: nothing it sends reaches the fork.
    client.send([{ c: 2, m: { type: 'state' } }]);
    expect((await envelopes(client, 1))[0]).toMatchObject({ c: 2, m: { data: { code: 'SESSION_ERROR' } } });
    client.send([{ c: 1, m: { type: 'state' } }]);
    expect((await envelopes(client, 1))[0]?.m.data).toMatchObject({ session_id: fork, step_count: 1 });
    client.close();
    parent.close();
  });

  it('gives every VALIDATION_ERROR an errors list', async () => {
    const client = await WsClient.open(`${server.url}/mux`);
    client.send([
      { c: 1, m: { type: 'open' } },
      { c: 1, m: { type: 'reset' } },
      // The example env takes text or tool calls; an index is a form its space does not take.
      { c: 1, m: { type: 'step', data: { index: 1 } } },
      { c: 1, m: { type: 'open' } },
    ]);
    const errors = (await envelopes(client, 4)).filter((e) => e.m.type === 'error').map((e) => e.m.data);
    client.close();
    expect(errors).toHaveLength(2);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'VALIDATION_ERROR',
          turngym_code: 'INVALID_ACTION_TYPE',
          errors: [expect.objectContaining({ type: 'value_error', msg: expect.stringMatching(/got number/) })],
        }),
        expect.objectContaining({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ loc: ['c'] })] }),
      ]),
    );
  });

  it('counts channels against capacity', async () => {
    const client = await WsClient.open(`${server.url}/mux`);
    client.send(Array.from({ length: 9 }, (_, c) => ({ c, m: { type: 'open' } })));
    const replies = await envelopes(client, 9);
    expect(replies.filter((e) => e.m.type === 'session')).toHaveLength(8);
    expect(replies.filter((e) => e.m.type === 'error')[0]?.m.data).toMatchObject({
      code: 'CAPACITY_REACHED',
      max_sessions: 8,
    });
    client.close();
  });

  it('runs 8 multiplexed RemoteEnvs at once, forks included, and ends their sessions with them', async () => {
    const envs = await Promise.all(Array.from({ length: 4 }, () => RemoteEnv.connect(server.url, { multiplex: true })));
    const outcomes = await Promise.all(envs.map((env, i) => runEpisode(env, new ExampleSolver(), i)));
    expect(outcomes.every((outcome) => outcome.success)).toBe(true);
    const twins = await Promise.all(envs.map((env) => env.fork()));
    expect(server.liveSessions()).toBe(8);
    await Promise.all([...envs, ...twins].map((env) => env.close()));
  });
});

describe('/mux lifecycle', () => {
  it('tells a multiplexed RemoteEnv when the reaper closes its session', async () => {
    // The server's clock moves only when this test moves it: the session is idle exactly when the test says.
    const clock = new ManualClock();
    const ownEvents = new SessionEvents();
    const own = await serveEnvs({
      registry: testRegistry(),
      ids: ALL_IDS,
      idleTimeoutMs: 150,
      clock,
      onSessionClosed: ownEvents.onSessionClosed,
    });
    const idle = await RemoteEnv.connect(own.url, { multiplex: true });
    await idle.reset();
    clock.advance(300);
    await ownEvents.sessionClosed(idle.sessionId);
    // The channel's `closed` notice left before the env was closed, so this step finds the channel gone.
    await expect(idle.step('LOOKUP(a)')).rejects.toThrow(/closed session channel .* \(idle timeout\)/);
    await idle.close();
    await own.close();
  });

  it('shuts down gracefully: channels closed, connection 1001, envs closed', async () => {
    const own = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS });
    const client = await WsClient.open(`${own.url}/mux`);
    client.send([
      { c: 0, m: { type: 'open', data: { env_id: 'test/echo-v1' } } },
      { c: 0, m: { type: 'reset' } },
      { c: 1, m: { type: 'open' } },
    ]);
    await envelopes(client, 3);
    const remote = await RemoteEnv.connect(own.url, { multiplex: true, envId: 'test/echo-v1' });
    await remote.reset();
    const slow = remote.step('gate:mux-shutdown');
    await gates.reached('mux-shutdown');
    const closing = own.close();
    // The idle channels are told at once, while the step of the other connection is still at its gate.
    const notices = await envelopes(client, 2);
    expect(notices.map((e) => e.m)).toEqual([
      { type: 'closed', data: { code: 1001, reason: 'server shutting down' } },
      { type: 'closed', data: { code: 1001, reason: 'server shutting down' } },
    ]);
    gates.open('mux-shutdown');
    expect((await slow).observation).toBe('echo: gate:mux-shutdown');
    await closing;
    await expect(remote.step('hi')).rejects.toBeInstanceOf(EnvFaultError);
    expect((await client.closed).code).toBe(1001);
    expect(own.liveSessions()).toBe(0);
    await remote.close();
  });

  it('ends a channel flooded with messages while its env is still being built, and closes that env once built', async () => {
    const registry = testRegistry();
    let builds = 0;
    registry.register({
      id: 'test/slow-start-v1',
      entryPoint: async () => {
        builds += 1;
        if (builds > 1) await gates.pass('mux-slow-start');
        return new EchoEnv();
      },
    });
    const own = new SessionEvents();
    const slow = await serveEnvs({ registry, ids: ['test/slow-start-v1'], onSessionClosed: own.onSessionClosed });
    const client = await WsClient.open(`${slow.url}/mux`);
    client.send([{ c: 1, m: { type: 'open' } }]);
    await gates.reached('mux-slow-start');
    // One more than a session holds waiting: the last one ends the channel.
    client.send(Array.from({ length: 1025 }, () => ({ c: 1, m: { type: 'state' } })));
    expect(await envelopes(client, 2)).toEqual([
      {
        c: 1,
        m: { type: 'error', data: { code: 'SESSION_ERROR', message: 'More than 1024 messages waiting for replies' } },
      },
      { c: 1, m: { type: 'closed', data: { code: 1000, reason: 'too many messages in flight' } } },
    ]);
    gates.open('mux-slow-start');
    await own.until(() => slow.liveSessions() === 0);
    client.close();
    await slow.close();
  });
});
