import WebSocket from 'ws';
import { ManualClock } from './manual-clock';
import { SessionEvents } from './__fixtures__/session-events';
import { testRegistry } from './__fixtures__/test-envs';
import { serveEnvs, type ServerHandle } from './serve-envs';

// A peer that vanished without closing (its pongs never come) frees its session at the next heartbeats, not
// at the idle timeout; a peer that answers stays. Every test moves a manual clock beat by beat: on the system
// clock a loaded machine could let two beats pass between a client's connect and its first message (a 40 ms
// stall), cutting the silent peer before the test had its session id, and a stall between a ping and its pong
// would look like a dead peer.

const HEARTBEAT_MS = 40;
const closed: string[] = [];
const waiters = new Map<string, () => void>();
let server: ServerHandle;
const clock = new ManualClock();

/** Two beats: the first pings (the peer was live: it connected and sent frames), the second cuts a silent peer. */
function twoBeats(): void {
  clock.advance(HEARTBEAT_MS);
  clock.advance(HEARTBEAT_MS);
}

beforeAll(async () => {
  server = await serveEnvs({
    registry: testRegistry(),
    ids: ['test/echo-v1'],
    port: 0,
    heartbeatMs: HEARTBEAT_MS,
    clock,
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
async function connect(path: string, answerPings: boolean, url = server.url): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { autoPong: answerPings });
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
    twoBeats();
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
    const freed = Promise.all(ids.map(sessionClosed));
    twoBeats();
    await freed;
  });

  it('keeps a peer that answers pings, across many heartbeats, and cuts a silent one beside it', async () => {
    const clock = new ManualClock(); // its own, so this server's beats are this test's alone
    const events = new SessionEvents();
    const own = await serveEnvs({
      registry: testRegistry(),
      ids: ['test/echo-v1'],
      heartbeatMs: HEARTBEAT_MS,
      idleTimeoutMs: 600000,
      clock,
      onSessionClosed: events.onSessionClosed,
    });
    const live = await connect('/ws', true, own.url);
    const silent = await connect('/ws', false, own.url);
    const liveId = await sessionIdOf(live);
    const silentId = await sessionIdOf(silent);
    for (let beat = 0; beat < 6; beat++) {
      const pinged = new Promise((resolve, reject) => {
        live.once('ping', resolve);
        live.once('close', () => reject(new Error('the server cut a peer that answers its pings')));
      });
      clock.advance(HEARTBEAT_MS);
      await pinged;
      // ws answered that ping before telling us of it. A ping of our own comes back only after the server read
      // what we sent before it, so the server has our pong when this resolves.
      await new Promise((resolve) => {
        live.once('pong', resolve);
        live.ping();
      });
    }
    // The silent peer missed its first ping and was cut at the next beat; the live one was checked 5 times.
    await events.sessionClosed(silentId);
    expect(events.closed).toEqual([silentId]);
    expect(live.readyState).toBe(WebSocket.OPEN);
    expect((await reply(live, { type: 'state' })).data.session_id).toBe(liveId);
    live.close();
    await events.sessionClosed(liveId);
    await own.close();
  });
});
