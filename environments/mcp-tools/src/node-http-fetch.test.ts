import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeHttpFetch } from './node-http-fetch';

/** A server that answers every request with `parts`, written one after another, as `contentType`. */
async function serving(contentType: string, parts: readonly string[]): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    for (const part of parts) response.write(part);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('nodeHttpFetch', () => {
  const fetch = nodeHttpFetch(1000);
  const servers: Server[] = [];
  afterAll(async () => {
    fetch.close();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('cuts a reply past the most a message may have, saying so, instead of reading it all into memory', async () => {
    const { url, server } = await serving('application/json', [`{"text":"${'x'.repeat(600)}`, `${'x'.repeat(600)}"}`]);
    servers.push(server);
    await expect((await fetch(url, { method: 'POST', body: '{}' })).text()).rejects.toThrow(
      "the server's reply passed 1000 bytes, the most a message may have",
    );
    const small = await serving('application/json', ['{"text":"fits"}']);
    servers.push(small.server);
    expect(await (await fetch(small.url, { method: 'POST', body: '{}' })).json()).toEqual({ text: 'fits' });
  });

  it('counts a stream of server-sent events event by event: a long stream passes, one event too large does not', async () => {
    const event = (size: number): string => `event: message\ndata: ${'y'.repeat(size)}\n\n`;
    const long = await serving(
      'text/event-stream',
      Array.from({ length: 10 }, () => event(600)),
    );
    servers.push(long.server);
    expect(await (await fetch(long.url)).text()).toBe(event(600).repeat(10));
    const large = await serving('text/event-stream', [event(100), event(600).slice(0, 400), event(600)]);
    servers.push(large.server);
    await expect((await fetch(large.url)).text()).rejects.toThrow(
      "the server's reply passed 1000 bytes in one event, the most a message may have",
    );
  });
});
