import { testRegistry } from './__fixtures__/test-envs';
import { WsClient } from './__fixtures__/ws-client';
import { isLoopbackHostHeader, isLoopbackOrigin } from './loopback-guard';
import { serveEnvs, type ServerHandle } from './serve-envs';

describe('loopback host and origin checks', () => {
  it('take loopback names in any letter case, with a port or a trailing dot', () => {
    for (const host of ['localhost', 'LocalHost', 'LOCALHOST:8000', 'localhost.', 'localhost.:8000', '127.0.0.1:1']) {
      expect({ host, loopback: isLoopbackHostHeader(host) }).toEqual({ host, loopback: true });
    }
    expect(isLoopbackHostHeader('[::1]:8000')).toBe(true);
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

  it('leaves the origin to the operator when bound to another interface', async () => {
    server = await serveEnvs({ registry: testRegistry(), ids: ['test/echo-v1'], port: 0, host: '0.0.0.0' });
    const client = await WsClient.open(`${server.url}/ws`, { origin: 'https://dashboard.example' });
    expect((await client.request({ type: 'reset' })).type).toBe('observation');
    client.close();
  });
});
