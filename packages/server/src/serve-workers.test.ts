import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { rawExchange } from './__fixtures__/raw-exchange';
import { openFileLimit } from './open-file-limit';
import { serveWorkers, type WorkerPoolHandle } from './serve-workers';

const WORKER = join(__dirname, '__fixtures__', 'cluster-worker.js');
// A worker compiles the server's sources on start: seconds on a loaded machine.
const STARTS_WORKERS_MS = 60_000;

/** A connection the primary has accepted and that never sends a byte (a leaked or hostile client). */
function idleConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('serveWorkers (the primary)', () => {
  let pool: WorkerPoolHandle | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it(
    'answers a connection over maxConnections with 503 naming the limit, and serves again once idle ones close',
    async () => {
      pool = await serveWorkers({ workers: 1, exec: WORKER, args: [], maxConnections: 3 });
      const { port } = pool;
      expect(pool.maxConnections).toBe(3);
      // Connections that never send their request line stay with the primary (for up to headTimeoutMs). The
      // kernel hands connections over in the order they came, so these three are held before the probe arrives.
      const idle = await Promise.all([idleConnection(port), idleConnection(port), idleConnection(port)]);
      const refused = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect(refused.head).toMatch(/^HTTP\/1.1 503 Service Unavailable\r\n/);
      expect(refused.head).toMatch(/\r\nRetry-After: 1\r\n/);
      expect(JSON.parse(refused.body)).toEqual({
        detail:
          'Too many connections: this server holds at most 3 at once (maxConnections); close idle ones or retry later',
      });

      const closed = idle.map((socket) => new Promise((resolve) => socket.once('close', resolve)));
      for (const socket of idle) socket.destroy();
      await Promise.all(closed);
      // The primary sees the closes on its own schedule: ask until it has (a refusal costs nothing).
      let status = 503;
      while (status === 503) status = (await fetch(`${pool.url}/health`, { headers: { connection: 'close' } })).status;
      expect(status).toBe(200);
    },
    STARTS_WORKERS_MS,
  );

  it(
    'answers a request for a session no worker holds with a 503 saying so, read to its end',
    async () => {
      pool = await serveWorkers({ workers: 1, exec: WORKER, args: [] });
      // Worker 7 does not exist (as a worker that died takes its sessions with it).
      const lost = await rawExchange(
        pool.port,
        'POST /sessions/w7-0a1b/fingerprint HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 17\r\n\r\n{"action":"LOOK"}',
      );
      expect(lost.head).toMatch(/^HTTP\/1.1 503 Service Unavailable\r\n/);
      expect(JSON.parse(lost.body)).toEqual({
        detail: 'No worker holds this session any more (worker 7 exited, and its sessions with it); open a new session',
      });
    },
    STARTS_WORKERS_MS,
  );

  it(
    'takes maxConnections as a validated option; by default it stays below the open-file limit',
    async () => {
      await expect(serveWorkers({ workers: 1, exec: WORKER, args: [], maxConnections: 0 })).rejects.toThrow(
        /maxConnections must be >= 1/,
      );
      // Past the limit, the primary could not even accept a connection to refuse it: it would reset them all.
      pool = await serveWorkers({ workers: 1, exec: WORKER, args: [] });
      expect(pool.maxConnections).toBeLessThan(openFileLimit() as number);
    },
    STARTS_WORKERS_MS,
  );
});

describe('openFileLimit', () => {
  it("reads the process's open-file limit on Linux, and is undefined where it cannot", () => {
    const limits = [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max processes             127473               127473               processes ',
      'Max open files            256                  4096                 files     ',
    ].join('\n');
    expect(openFileLimit(() => limits)).toBe(256);
    expect(openFileLimit(() => limits.replace('256 ', 'unlimited '))).toBeUndefined();
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });
});
