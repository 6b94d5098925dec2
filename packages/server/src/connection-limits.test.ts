import { execFileSync } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { rawExchange } from './__fixtures__/raw-exchange';
import { ALL_IDS, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { EnvServer } from './env-server';
import { serveEnvs } from './serve-envs';
import { ListenError } from './server-errors';
import { validateServeSettings } from './server-options';

afterEach(() => {
  expect(openEnvs.count).toBe(0);
});

/** A kept-alive connection that has had one request answered: certainly accepted, and still open. */
function heldConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.on('error', reject);
    socket.once('data', () => resolve(socket));
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

describe('maxConnections', () => {
  it('answers a connection over the cap with 503 naming the limit, and serves again once one closes', async () => {
    const server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS, maxConnections: 2 });
    const first = await heldConnection(server.port);
    const ws = await WsClient.open(`${server.url}/ws`);
    const refused = await rawExchange(server.port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(refused.head).toMatch(/^HTTP\/1.1 503 Service Unavailable\r\n/);
    expect(refused.head).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(JSON.parse(refused.body)).toEqual({
      detail:
        'Too many connections: this server holds at most 2 at once (maxConnections); close idle ones or retry later',
    });
    // A WebSocket client is refused the same way, before its upgrade.
    await expect(WsClient.open(`${server.url}/ws`)).rejects.toThrow(/503/);
    // The held session is untouched by the refusals.
    expect((await ws.request({ type: 'reset' })).type).toBe('observation');

    const closed = new Promise((resolve) => first.once('close', resolve));
    first.destroy();
    await closed;
    // The server sees the close on its own schedule: ask until it has (a refusal costs nothing).
    let status = 503;
    while (status === 503) status = (await fetch(`${server.url}/health`, { headers: { connection: 'close' } })).status;
    expect(status).toBe(200);
    ws.close();
    await server.close();
  });

  it('defaults to maxSessions + 1024, and is validated', async () => {
    const server = new EnvServer(validateServeSettings({ ids: ALL_IDS, maxSessions: 10 }), testRegistry());
    expect(server.maxConnections).toBe(1034);
    await expect(serveEnvs({ registry: testRegistry(), ids: ALL_IDS, maxConnections: 0 })).rejects.toThrow(
      /maxConnections must be >= 1/,
    );
  });
});

describe('maxConnections under a low open-file limit', () => {
  it('defaults below the limit, so that the cap, not the kernel, refuses connections once descriptors run short', () => {
    // A server started under `ulimit -n 256`: maxSessions + 1024 (1280) would never be reached, and past 256 open
    // files every new connection, /health included, was reset unanswered.
    const script = [
      "require('../rl/src/__fixtures__/ts-register.js');",
      "const { EnvServer } = require('./src/env-server.ts');",
      "const { validateServeSettings } = require('./src/server-options.ts');",
      "const server = new EnvServer(validateServeSettings({ ids: ['test/example-v1'] }), undefined);",
      'process.stdout.write(String(server.maxConnections));',
    ].join(' ');
    const shown = execFileSync('bash', ['-c', `ulimit -n 256 && exec "${process.execPath}" -e "${script}"`], {
      cwd: join(__dirname, '..'),
      encoding: 'utf8',
    });
    expect(Number(shown)).toBeGreaterThan(100);
    expect(Number(shown)).toBeLessThan(256);
  });
});

describe('a cluster worker (connections handed over, no port of its own)', () => {
  it('still answers a request that never finishes with 408 and cuts it', async () => {
    // A worker's HTTP server never listens, and Node only enforces its timeouts on a server that did.
    const worker = new EnvServer(
      validateServeSettings({ ids: ALL_IDS, headersTimeoutMs: 100, requestTimeoutMs: 200 }),
      testRegistry(),
    );
    await worker.start({ listen: false });
    const primary = createServer({ pauseOnConnect: true }, (socket) => worker.adopt(socket, Buffer.alloc(0)));
    await new Promise<void>((resolve) => primary.listen(0, '127.0.0.1', resolve));
    const { port } = primary.address() as AddressInfo;
    const stalled = await rawExchange(port, 'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(stalled.head).toMatch(/^HTTP\/1.1 408 Request Timeout\r\n/);
    await worker.close();
    await new Promise((resolve) => primary.close(resolve));
  });
});

describe('a port it cannot listen on', () => {
  it('is a ListenError saying why and what to do', async () => {
    const taken = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS });
    const second = serveEnvs({ registry: testRegistry(), ids: ALL_IDS, port: taken.port });
    await expect(second).rejects.toThrow(ListenError);
    await expect(second).rejects.toThrow(
      `Cannot listen on 127.0.0.1:${taken.port}: the port is in use (another server is on it): choose another port, or 0 for any free one`,
    );
    await taken.close();
  });

  it('names the env whose factory failed when several are served, after closing the ones already built', async () => {
    const registry = testRegistry();
    registry.register({
      id: 'test/broken-v1',
      entryPoint: () => {
        throw new Error('no browser installed');
      },
    });
    await expect(serveEnvs({ registry, ids: [...ALL_IDS, 'test/broken-v1'] })).rejects.toThrow(
      'The env test/broken-v1 could not be built: Error: no browser installed',
    );
  });
});
