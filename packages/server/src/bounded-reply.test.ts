import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TurnGymError } from '@turngym/core';
import { listRemoteEnvs } from './list-remote-envs';
import { RemoteEnvPool } from './remote-env-pool';
import { RemoteProtocolError } from './server-errors';

/** Writes 64 KiB chunks for as long as the client reads them: a reply that never ends. */
function endless(response: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const more = (): void => {
    while (!response.destroyed && response.write(chunk));
  };
  response.on('drain', more);
  response.writeHead(200, { 'content-type': 'application/json' });
  more();
}

type Answer = (response: ServerResponse) => void;

/** A server that is no TurnGym server: each path answers as `answers` says. */
async function brokenServer(answers: Record<string, Answer>): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const answer = answers[request.url ?? ''];
    if (answer) answer(response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("a server's replies are read to a bound", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  const reject = async (promise: Promise<unknown>): Promise<RemoteProtocolError> => {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(RemoteProtocolError);
    return error as RemoteProtocolError;
  };

  it('listRemoteEnvs refuses a listing that declares a gigabyte, without waiting for it', async () => {
    const broken = await brokenServer({
      '/envs': (response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 30) });
        response.write('{"envs": [');
      },
    });
    server = broken.server;
    const error = await reject(listRemoteEnvs(broken.url, { timeoutMs: 600_000 }));
    expect(error.protocolCode).toBe('REPLY_TOO_LARGE');
    expect(error.message).toMatch(/\/envs sent a reply larger than \d+ bytes/);
  });

  it('listRemoteEnvs stops reading a listing that never ends', async () => {
    const broken = await brokenServer({ '/envs': endless });
    server = broken.server;
    const error = await reject(listRemoteEnvs(broken.url, { timeoutMs: 600_000 }));
    expect(error.protocolCode).toBe('REPLY_TOO_LARGE');
  });

  it('listRemoteEnvs says a reply that is not JSON, or JSON null, is no listing (a typed error)', async () => {
    const broken = await brokenServer({
      '/envs': (response) => response.writeHead(200).end('<html>proxy login</html>'),
      '/x/envs': (response) => response.writeHead(200).end('null'),
    });
    server = broken.server;
    const notJson = await reject(listRemoteEnvs(broken.url));
    expect(notJson.protocolCode).toBe('INVALID_REPLY');
    expect(notJson.message).toMatch(/not JSON/);
    const nothing = await reject(listRemoteEnvs(`${broken.url}/x`));
    expect(nothing.protocolCode).toBe('INVALID_REPLY');
    expect(TurnGymError.isInstance(nothing)).toBe(true);
  });

  it('RemoteEnvPool.checkHealth marks down a server whose /health never ends, naming why', async () => {
    const broken = await brokenServer({ '/health': endless });
    server = broken.server;
    const pool = new RemoteEnvPool([broken.url], { healthIntervalMs: 0, healthTimeoutMs: 600_000 });
    try {
      const [state] = await pool.checkHealth();
      expect(state?.healthy).toBe(false);
      expect(state?.lastError).toMatch(/\/health failed: .*\/health sent a reply larger than 65536 bytes/);
    } finally {
      pool.close();
    }
  });

  it('RemoteEnvPool.checkHealth still takes a healthy server', async () => {
    const broken = await brokenServer({
      '/health': (response) => response.writeHead(200).end('{"status":"healthy"}'),
    });
    server = broken.server;
    const pool = new RemoteEnvPool([broken.url], { healthIntervalMs: 0 });
    try {
      expect((await pool.checkHealth())[0]?.healthy).toBe(true);
    } finally {
      pool.close();
    }
  });
});
