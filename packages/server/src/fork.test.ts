import { ManualClock } from './manual-clock';
import { SessionEvents } from './__fixtures__/session-events';
import { ALL_IDS, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { serveEnvs, type ServerHandle } from './serve-envs';

let server: ServerHandle;
// Forks expire on this clock, which moves only when a test moves it: a fork is never lost to a slow claim.
const clock = new ManualClock();
const events = new SessionEvents();

beforeAll(async () => {
  server = await serveEnvs({
    registry: testRegistry(),
    ids: ALL_IDS,
    port: 0,
    forkTtlMs: 150,
    maxSessions: 4,
    clock,
    onSessionClosed: events.onSessionClosed,
  });
});

afterAll(async () => {
  await server.close();
  expect(openEnvs.count).toBe(0);
});

describe('fork over the wire', () => {
  it('makes a new session at the same state, claimed with /ws?session=<id>', async () => {
    const parent = await WsClient.open(`${server.url}/ws?env=test/echo-v1`);
    await parent.request({ type: 'reset', data: { seed: 3, episode_id: 'e' } });
    await parent.request({ type: 'step', data: { text: 'one' } });
    const fork = await parent.request({ type: 'fork' });
    expect(fork).toEqual({ type: 'fork', data: { session_id: expect.any(String), expires_in_ms: 150 } });

    const child = await WsClient.open(`${server.url}/ws?session=${fork.data.session_id}`);
    const state = await child.request({ type: 'state' });
    expect(state.data).toMatchObject({
      session_id: fork.data.session_id,
      env_id: 'test/echo-v1',
      episode_id: 'e',
      step_count: 1,
      seed: 3,
    });
    expect((await child.request({ type: 'anchor' })).data.anchor).toBe('said-1');

    // Independent from here on: the child ends its episode, the parent goes on.
    expect((await child.request({ type: 'step', data: { text: 'bye' } })).data).toMatchObject({
      done: true,
      reward: 1,
    });
    expect((await parent.request({ type: 'step', data: { text: 'two' } })).data).toMatchObject({
      done: false,
      metadata: { anchor: 'said-2' },
    });
    expect((await child.request({ type: 'state' })).data.step_count).toBe(2);

    // A session is claimed once; a second claim is a SESSION_ERROR.
    const again = await WsClient.open(`${server.url}/ws?session=${fork.data.session_id}`);
    expect((await again.next()).data).toMatchObject({ code: 'SESSION_ERROR' });
    expect((await again.closed).code).toBe(1000);
    parent.close();
    child.close();
    await events.until(() => server.liveSessions() === 0);
  });

  it("is claimed on the env path of the session it was forked from only, as if unknown on another env's path", async () => {
    const parent = await WsClient.open(`${server.url}/envs/test%2Fecho-v1/ws`);
    await parent.request({ type: 'reset', data: { seed: 3 } });
    await parent.request({ type: 'step', data: { text: 'one' } });
    const forkId = (await parent.request({ type: 'fork' })).data.session_id as string;
    // A proxy that lets a client reach /envs/test/choice-v1/ only must not hand it echo's sessions.
    for (const elsewhere of [
      `/envs/test%2Fchoice-v1/ws?session=${forkId}`,
      `/ws?session=${forkId}`,
      `/ws?env=test/echo-v1&session=${forkId}`,
    ]) {
      const claim = await WsClient.open(`${server.url}${elsewhere}`);
      expect({ elsewhere, reply: (await claim.next()).data }).toEqual({
        elsewhere,
        reply: expect.objectContaining({ code: 'SESSION_ERROR', message: expect.stringContaining(forkId) }),
      });
      await claim.closed;
    }
    const mux = await WsClient.open(`${server.url}/envs/test%2Fchoice-v1/mux`);
    const [refused] = await mux.request([{ c: 1, m: { type: 'open', data: { session: forkId } } }]);
    expect(refused).toMatchObject({ c: 1, m: { type: 'error', data: { code: 'SESSION_ERROR' } } });
    mux.close();
    // Still unclaimed, so its own path (in either spelling of the id) takes it.
    const child = await WsClient.open(`${server.url}/envs/test/echo-v1/ws?session=${forkId}`);
    expect((await child.request({ type: 'state' })).data).toMatchObject({ session_id: forkId, step_count: 1 });
    // Its own forks stay on that path too.
    const grandchild = (await child.request({ type: 'fork' })).data.session_id as string;
    const wrong = await WsClient.open(`${server.url}/ws?session=${grandchild}`);
    expect((await wrong.next()).data.code).toBe('SESSION_ERROR');
    const right = await WsClient.open(`${server.url}/envs/test%2Fecho-v1/ws?session=${grandchild}`);
    expect((await right.request({ type: 'state' })).data.session_id).toBe(grandchild);
    // Its side routes (RemoteEnv's synchronous hooks) answer on that path only, as its forks are claimed.
    for (const prefix of ['', '/envs/test%2Fchoice-v1', '/envs/nope', '/other']) {
      const reply = await fetch(`${server.url}${prefix}/sessions/${forkId}/anchor`);
      expect({ prefix, status: reply.status }).toEqual({ prefix, status: 404 });
    }
    for (const prefix of ['/envs/test%2Fecho-v1', '/envs/test/echo-v1']) {
      expect(await (await fetch(`${server.url}${prefix}/sessions/${forkId}/anchor`)).json()).toEqual({
        anchor: 'said-1',
      });
    }
    for (const client of [parent, child, right]) client.close();
    await events.until(() => server.liveSessions() === 0);
  });

  it('closes an unclaimed fork after forkTtlMs', async () => {
    const parent = await WsClient.open(`${server.url}/ws`);
    await parent.request({ type: 'reset' });
    const fork = await parent.request({ type: 'fork' });
    expect(server.liveSessions()).toBe(2);
    clock.advance(149);
    // Not expired at 149 ms. A round trip lets a close the reaper began (no I/O in it) finish before we look.
    expect((await parent.request({ type: 'state' })).type).toBe('state');
    expect(server.liveSessions()).toBe(2);
    // The reaper looks every quarter TTL, so twice the TTL is past it for sure.
    clock.advance(300);
    await events.sessionClosed(fork.data.session_id);
    const late = await WsClient.open(`${server.url}/ws?session=${fork.data.session_id}`);
    expect((await late.next()).data.code).toBe('SESSION_ERROR');
    parent.close();
    await events.until(() => server.liveSessions() === 0);
  });

  it('counts forks against capacity: a fork at capacity is a CAPACITY_REACHED reply, the session goes on', async () => {
    const parent = await WsClient.open(`${server.url}/ws`);
    await parent.request({ type: 'reset' });
    const forks = [];
    for (let i = 0; i < 3; i++) forks.push(await parent.request({ type: 'fork' }));
    expect(forks.map((fork) => fork.type)).toEqual(['fork', 'fork', 'fork']);
    const full = await parent.request({ type: 'fork' });
    expect(full.data).toMatchObject({ code: 'CAPACITY_REACHED', active_sessions: 4, max_sessions: 4, retryable: true });
    expect((await parent.request({ type: 'step', data: { text: 'LOOKUP(a)' } })).type).toBe('observation');
    parent.close();
    // The unclaimed forks outlive their parent until they expire.
    clock.advance(300);
    await events.until(() => server.liveSessions() === 0);
  });
});
