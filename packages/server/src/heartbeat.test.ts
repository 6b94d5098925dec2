import WebSocket from 'ws';
import { testRegistry } from './__fixtures__/test-envs';
import { serveEnvs, type ServerHandle } from './serve-envs';

// A peer that vanished without closing (its pongs never come) frees its session at the next heartbeats, not
// at the idle timeout; a peer that answers stays.

const HEARTBEAT_MS = 40;
const closed: string[] = [];
const waiters = new Map<string, () => void>();
let server: ServerHandle;

beforeAll(async () => {
  server = await serveEnvs({
    registry: testRegistry(),
    ids: ['test/echo-v1'],
    port: 0,
    heartbeatMs: HEARTBEAT_MS,
    // Far away: only the heartbeat can free the session within the test.
    idleTimeoutMs: 600000,
    onSessionClosed: ({ sessionId }) => {
      closed.push(sessionId);
      waiters.get(sessionId)?.();
    },
  });
});

afterAll(() => server.close());

function sessionClosed(sessionId: string): Promise<void> {
  if (closed.includes(sessionId)) return Promise.resolve();
  return new Promise((resolve) => waiters.set(sessionId, resolve));
}

/** A client whose ws library does not answer pings: to the server, a peer that is gone. */
async function connect(path: string, answerPings: boolean): Promise<WebSocket> {
  const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}`, { autoPong: answerPings });
  socket.on('error', () => undefined);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return socket;
}

function reply(socket: WebSocket, message: unknown): Promise<any> {
  return new Promise((resolve) => {
    socket.once('message', (raw: Buffer) => resolve(JSON.parse(raw.toString('utf8'))));
    socket.send(JSON.stringify(message));
  });
}

async function sessionIdOf(socket: WebSocket): Promise<string> {
  await reply(socket, { type: 'reset' });
  return (await reply(socket, { type: 'state' })).data.session_id as string;
}

describe('WebSocket heartbeat', () => {
  it('frees the session of a /ws peer that stops answering pings', async () => {
    const silent = await connect('/ws', false);
    const sessionId = await sessionIdOf(silent);
    const cut = new Promise((resolve) => silent.once('close', resolve));
    await sessionClosed(sessionId);
    await cut;
    expect(closed).toContain(sessionId);
  });

  it('frees every channel of a /mux peer that stops answering pings', async () => {
    const silent = await connect('/mux', false);
    const opened = await reply(silent, [
      { c: 1, m: { type: 'open' } },
      { c: 2, m: { type: 'open' } },
    ]);
    const ids = (opened as Array<{ m: { data: { session_id: string } } }>).map(
      (envelope) => envelope.m.data.session_id,
    );
    expect(ids).toHaveLength(2);
    await Promise.all(ids.map(sessionClosed));
  });

  it('keeps a peer that answers pings, across many heartbeats', async () => {
    const live = await connect('/ws', true);
    const sessionId = await sessionIdOf(live);
    let pings = 0;
    // Five pings answered: the server has checked this peer at least four times since its last message.
    await new Promise<void>((resolve) =>
      live.on('ping', () => {
        pings += 1;
        if (pings === 5) resolve();
      }),
    );
    expect(closed).not.toContain(sessionId);
    expect(live.readyState).toBe(WebSocket.OPEN);
    expect((await reply(live, { type: 'state' })).data.session_id).toBe(sessionId);
    live.close();
    await sessionClosed(sessionId);
  });
});
