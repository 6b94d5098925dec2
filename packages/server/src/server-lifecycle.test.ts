import { connect } from 'node:net';
import { InvalidOptionsError, NameNotFoundError } from '@turngym/core';
import { ManualClock } from './manual-clock';
import { SessionEvents } from './__fixtures__/session-events';
import { ALL_IDS, gates, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { serveEnvs } from './serve-envs';

afterEach(() => {
  expect(openEnvs.count).toBe(0);
});

describe('serveEnvs', () => {
  it('validates its options and every id before listening', async () => {
    await expect(serveEnvs({ registry: testRegistry(), ids: [] })).rejects.toThrow(InvalidOptionsError);
    await expect(serveEnvs({ registry: testRegistry(), ids: ['test/echo-v1'], maxSessions: 0 })).rejects.toThrow(
      /maxSessions must be >= 1/,
    );
    await expect(serveEnvs({ registry: testRegistry(), ids: ['test/ehco-v1'] })).rejects.toThrow(NameNotFoundError);
  });
});

describe('bearer token', () => {
  it('guards every route but /health, by header or ?token=', async () => {
    const server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS, token: 'open-sesame' });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const refused = await fetch(`${server.url}/metadata`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${server.url}/metadata`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${server.url}/metadata`, { headers: { authorization: 'Bearer open-sesame' } })).status).toBe(
      200,
    );
    expect((await fetch(`${server.url}/schema?token=open-sesame`)).status).toBe(200);
    await expect(WsClient.open(`${server.url}/ws`)).rejects.toThrow('HTTP 401');
    const client = await WsClient.open(`${server.url}/ws`, { authorization: 'Bearer open-sesame' });
    expect((await client.request({ type: 'reset' })).type).toBe('observation');
    client.close();
    // A refused client that keeps its socket open must not hold up shutdown.
    const raw = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
    raw.on('error', () => undefined);
    const answer = new Promise<string>((resolve) => raw.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    raw.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${'a'.repeat(22)}==\r\n\r\n`,
    );
    expect(await answer).toMatch(/^HTTP\/1.1 401/);
    await server.close();
    raw.destroy();
  });
});

describe('capacity', () => {
  it('answers CAPACITY_REACHED past maxSessions (then closes), and admits again once a session ends', async () => {
    const events = new SessionEvents();
    const server = await serveEnvs({
      registry: testRegistry(),
      ids: ALL_IDS,
      maxSessions: 2,
      onSessionClosed: events.onSessionClosed,
    });
    const first = await WsClient.open(`${server.url}/ws`);
    const second = await WsClient.open(`${server.url}/ws`);
    await first.request({ type: 'reset' });
    await second.request({ type: 'reset' });
    const third = await WsClient.open(`${server.url}/ws`);
    expect(await third.next()).toEqual({
      type: 'error',
      data: expect.objectContaining({ code: 'CAPACITY_REACHED', active_sessions: 2, max_sessions: 2 }),
    });
    expect((await third.closed).code).toBe(1013);
    // Stateless HTTP requests build an env too, so they are held to the same bound.
    expect((await fetch(`${server.url}/reset`, { method: 'POST' })).status).toBe(503);
    first.close();
    await events.until(() => server.liveSessions() === 1);
    const fourth = await WsClient.open(`${server.url}/ws`);
    expect((await fourth.request({ type: 'reset' })).type).toBe('observation');
    second.close();
    fourth.close();
    await server.close();
  });
});

describe('idle reaper', () => {
  it('closes sessions idle for idleTimeoutMs (code 1001) and their envs, and spares busy ones', async () => {
    // The server's clock moves only when this test moves it, so no stall of a loaded machine is idleness.
    const clock = new ManualClock();
    const events = new SessionEvents();
    const server = await serveEnvs({
      registry: testRegistry(),
      ids: ['test/echo-v1'],
      idleTimeoutMs: 250,
      clock,
      onSessionClosed: events.onSessionClosed,
    });
    const idle = await WsClient.open(`${server.url}/ws`);
    const busy = await WsClient.open(`${server.url}/ws`);
    await Promise.all([idle.request({ type: 'reset' }), busy.request({ type: 'reset' })]);
    const step = busy.request({ type: 'step', data: { text: 'gate:reaper' } });
    await gates.reached('reaper');
    // The reaper looks every quarter timeout, so twice the timeout is past it for sure.
    clock.advance(500);
    // Both sessions have now been silent past the timeout; only the one with a step in flight is spared.
    expect(await idle.closed).toEqual({ code: 1001, reason: 'idle timeout' });
    await events.until(() => server.liveSessions() === 1);
    expect(busy.socket.readyState).toBe(busy.socket.OPEN);
    // A step that takes longer than the idle timeout is not idleness.
    gates.open('reaper');
    expect((await step).data.observation.text).toBe('echo: gate:reaper');
    // Still a live session (a reaped one would have closed right after that reply, leaving this unanswered).
    expect((await busy.request({ type: 'state' })).data.step_count).toBe(1);
    // Spared only while the step ran: once answered, it is an idle session like any other.
    clock.advance(500);
    expect(await busy.closed).toEqual({ code: 1001, reason: 'idle timeout' });
    await events.until(() => server.liveSessions() === 0);
    await server.close();
  });
});

describe('graceful shutdown', () => {
  it('lets the request in flight answer, closes every connection (1001) and every env, then stops', async () => {
    const server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS });
    const clients = await Promise.all(ALL_IDS.map((id) => WsClient.open(`${server.url}/ws?env=${id}`)));
    for (const client of clients) await client.request({ type: 'reset' });
    const parked = await clients[0]?.request({ type: 'fork' });
    expect(parked?.type).toBe('fork');
    const [idleA, busy, idleB] = clients as [WsClient, WsClient, WsClient];
    const slow = busy.request({ type: 'step', data: { text: 'gate:shutdown' } });
    await gates.reached('shutdown');
    expect(server.liveSessions()).toBe(4);
    const closing = server.close();
    // The idle connections are told at once; the busy one waits for its step, which is still at the gate.
    expect((await idleA.closed).code).toBe(1001);
    expect((await idleB.closed).code).toBe(1001);
    expect(busy.socket.readyState).toBe(busy.socket.OPEN);
    gates.open('shutdown');
    expect((await slow).data.observation.text).toBe('echo: gate:shutdown');
    expect((await busy.closed).code).toBe(1001);
    await closing;
    expect(server.liveSessions()).toBe(0);
    expect(openEnvs.count).toBe(0);
    await expect(fetch(`${server.url}/health`)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    await server.close();
  });

  it('waits for an HTTP request in flight only up to shutdownGraceMs', async () => {
    const server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS, shutdownGraceMs: 50 });
    // A client that announces a body and never sends all of it: its request stays in flight until cut.
    const raw = connect({ port: server.port, host: '127.0.0.1' });
    raw.on('error', () => undefined);
    const cut = new Promise((resolve) => raw.once('close', resolve));
    await new Promise<void>((resolve) => raw.once('connect', resolve));
    raw.write(
      'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"se',
    );
    // Sent after that request line on loopback, this answer comes once the server has read it (one thread).
    await fetch(`${server.url}/health`);
    await server.close();
    await cut;
    expect(server.liveSessions()).toBe(0);
  });
});
