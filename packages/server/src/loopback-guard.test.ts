import { request as httpRequest } from 'node:http';
import { testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { isLoopbackBind, isLoopbackHostHeader, isLoopbackOrigin } from './loopback-guard';
import { serveEnvs, type ServerHandle } from './serve-envs';

describe('loopback host and origin checks', () => {
  it('take loopback names in any letter case, with a port or a trailing dot', () => {
    for (const host of ['localhost', 'LocalHost', 'LOCALHOST:8000', 'localhost.', 'localhost.:8000', '127.0.0.1:1']) {
      expect({ host, loopback: isLoopbackHostHeader(host) }).toEqual({ host, loopback: true });
    }
    expect(isLoopbackHostHeader('[::1]:8000')).toBe(true);
    // The whole of 127.0.0.0/8 is loopback, IPv4-mapped too; a DNS name that merely starts like one is not.
    for (const host of ['127.0.0.2:8000', '127.255.255.254', '[::ffff:127.0.0.1]:8000']) {
      expect({ host, loopback: isLoopbackHostHeader(host) }).toEqual({ host, loopback: true });
    }
    for (const host of ['127.0.0.256', '127.0.0.1.nip.io', '128.0.0.1', '0.0.0.0']) {
      expect({ host, loopback: isLoopbackHostHeader(host) }).toEqual({ host, loopback: false });
    }
    expect([isLoopbackBind('127.0.0.2'), isLoopbackBind('::ffff:127.0.0.1'), isLoopbackBind('0.0.0.0')]).toEqual([
      true,
      true,
      false,
    ]);
    for (const host of [undefined, '', 'evil.example', 'localhost.evil.example', 'localhost..', '127.0.0.1.evil']) {
      expect({ host, loopback: isLoopbackHostHeader(host) }).toEqual({ host, loopback: false });
    }
    expect(isLoopbackOrigin(undefined)).toBe(true);
    expect(isLoopbackOrigin('http://LocalHost:3000')).toBe(true);
    expect(isLoopbackOrigin('https://[::1]')).toBe(true);
    for (const origin of [
      'https://evil.example',
      'http://localhost.evil.example',
      'null',
      'file://',
      'chrome-extension://x',
    ]) {
      expect({ origin, loopback: isLoopbackOrigin(origin) }).toEqual({ origin, loopback: false });
    }
  });
});

describe('an env server bound to loopback', () => {
  let server: ServerHandle | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('refuses a web page of another site (its Origin) over the WebSocket and HTTP, and serves programs and loopback pages', async () => {
    server = await serveEnvs({ registry: testRegistry(), ids: ['test/echo-v1'], port: 0 });
    // Any page a browser shows may open a WebSocket to 127.0.0.1: the browser names the page's origin.
    await expect(WsClient.open(`${server.url}/ws`, { origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(WsClient.open(`${server.url}/mux`, { origin: 'null' })).rejects.toThrow('HTTP 403');
    const posted = await fetch(`${server.url}/reset`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(posted.status).toBe(403);
    expect(await posted.json()).toEqual({ detail: 'Origin not allowed' });
    expect(server.liveSessions()).toBe(0);
    // A program sends no Origin; a page served from this machine is the user's own.
    for (const headers of [{}, { origin: `http://localhost:${server.port}` }]) {
      const client = await WsClient.open(`${server.url}/ws`, headers);
      expect((await client.request({ type: 'reset' })).type).toBe('observation');
      client.close();
    }
    expect((await fetch(`${server.url}/reset`, { method: 'POST' })).status).toBe(200);
    // Health stays open to monitors, as it is without a token.
    expect((await fetch(`${server.url}/health`, { headers: { origin: 'https://status.example' } })).status).toBe(200);
  });

  it('refuses a page that reached it through DNS rebinding (its own name as Host), on every route but /health', async () => {
    server = await serveEnvs({ registry: testRegistry(), ids: ['test/echo-v1'], port: 0 });
    const port = server.port;
    // The page at http://evil.example:<port> whose name now resolves to 127.0.0.1 is same-origin to these
    // requests: its GETs carry no Origin, only its name in Host.
    const rebound = `evil.example:${port}`;
    for (const path of ['/metadata', '/schema', '/envs', '/state', '/envs/test/echo-v1/openapi.json']) {
      expect({ path, ...(await get(port, path, { host: rebound })) }).toEqual({
        path,
        status: 403,
        body: { detail: expect.stringMatching(/^Host not allowed: /) },
      });
    }
    await expect(WsClient.open(`${server.url}/ws`, { host: rebound })).rejects.toThrow('HTTP 403');
    expect((await get(port, '/health', { host: rebound })).status).toBe(200);
    // Programs name the loopback host they dialled, in whatever spelling.
    for (const host of [`127.0.0.1:${port}`, `LocalHost:${port}`, `localhost.:${port}`, 'localhost', `[::1]:${port}`]) {
      expect({ host, status: (await get(port, '/schema', { host })).status }).toEqual({ host, status: 200 });
    }
    const client = await WsClient.open(`${server.url}/ws`, { host: `localhost:${port}` });
    expect((await client.request({ type: 'reset' })).type).toBe('observation');
    client.close();
  });

  it('leaves the origin and host to the operator when bound to another interface', async () => {
    server = await serveEnvs({ registry: testRegistry(), ids: ['test/echo-v1'], port: 0, host: '0.0.0.0' });
    expect((await get(server.port, '/schema', { host: 'envs.internal.example' })).status).toBe(200);
    const client = await WsClient.open(`${server.url}/ws`, { origin: 'https://dashboard.example' });
    expect((await client.request({ type: 'reset' })).type).toBe('observation');
    client.close();
  });
});

/** A GET with headers fetch() would not let a test set (Host). */
function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    request.on('error', reject);
    request.end();
  });
}
