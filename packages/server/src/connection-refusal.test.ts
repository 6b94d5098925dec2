import { connect, createServer, type Server, type Socket } from 'node:net';
import { MAX_HELD_REFUSALS, refuseConnection } from './connection-refusal';

describe('refuseConnection', () => {
  let server: Server;
  const refused: Socket[] = [];
  const clients: Socket[] = [];
  let port = 0;
  beforeEach(async () => {
    server = createServer((socket) => {
      refused.push(socket);
      refuseConnection(socket, 'full');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    for (const socket of refused.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A client that sends a request and never closes its end, reading whatever it is told. */
  const stubbornClient = (): Promise<string> =>
    new Promise((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      clients.push(socket);
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.on('end', () => resolve(received));
      socket.on('error', () => resolve(received));
      socket.on('close', () => resolve(received));
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });

  it('answers 503 with Retry-After to a client that keeps its end open', async () => {
    const reply = await stubbornClient();
    expect(reply).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(reply).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(reply.endsWith('{"detail":"full"}')).toBe(true);
  });

  it('holds at most MAX_HELD_REFUSALS sockets open under a flood of clients that never close', async () => {
    const flood = MAX_HELD_REFUSALS + 40;
    await Promise.all(Array.from({ length: flood }, () => stubbornClient()));
    expect(refused).toHaveLength(flood);
    // Each holder waits for its client (which never closes) or the 1 s cutoff; the rest were closed at once.
    expect(refused.filter((socket) => !socket.destroyed).length).toBeLessThanOrEqual(MAX_HELD_REFUSALS);
  });
});
