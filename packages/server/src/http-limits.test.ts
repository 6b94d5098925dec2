import { connect } from 'node:net';
import { InvalidOptionsError } from '@turngym/core';
import { ALL_IDS, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { serveEnvs } from './serve-envs';

afterEach(() => {
  expect(openEnvs.count).toBe(0);
});

/**
 * Writes `text` on a raw socket and never sends another byte (a slowloris, or a client that hung mid-request),
 * then reads everything the server says until it closes the connection.
 */
function stallAfter(port: number, text: string): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ head, body });
    });
    socket.write(text);
  });
}

describe('a client that never finishes its request', () => {
  it('is answered 408 with a JSON error, and cut, whether it stalls in its headers or in its body', async () => {
    // Small limits so the test need not wait Node's minutes; the outcome is asserted, never the time it took.
    const server = await serveEnvs({
      registry: testRegistry(),
      ids: ALL_IDS,
      headersTimeoutMs: 100,
      requestTimeoutMs: 200,
    });
    const detail = 'The request did not arrive in time (headersTimeoutMs / requestTimeoutMs of this server)';
    const headers = await stallAfter(server.port, 'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(headers.head).toMatch(/^HTTP\/1.1 408 Request Timeout\r\n/);
    expect(headers.head).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    expect(JSON.parse(headers.body)).toEqual({ detail });
    // An endless body: headers complete, the body promised and never sent in full.
    const body = await stallAfter(
      server.port,
      'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"seed":',
    );
    expect(body.head).toMatch(/^HTTP\/1.1 408 Request Timeout\r\n/);
    expect(JSON.parse(body.body)).toEqual({ detail });
    // The server goes on, and no env was left behind by the cut requests.
    expect((await fetch(`${server.url}/reset`, { method: 'POST', body: '{"seed":1}' })).status).toBe(200);
    expect(server.liveSessions()).toBe(0);
    await server.close();
  });

  it('answers a request that is not HTTP, or whose headers are too large, with a JSON error', async () => {
    const server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS });
    const garbage = await stallAfter(server.port, 'HELLO THERE\r\n\r\n');
    expect(garbage.head).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
    expect(JSON.parse(garbage.body)).toEqual({ detail: expect.stringMatching(/^Malformed HTTP request/) });
    const large = await stallAfter(
      server.port,
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`,
    );
    expect(large.head).toMatch(/^HTTP\/1.1 431 /);
    expect(JSON.parse(large.body)).toEqual({ detail: 'The request headers are over the limit of 16 KiB' });
    await server.close();
  });

  it('takes its limits as validated options, naming a bad one', async () => {
    for (const field of ['headersTimeoutMs', 'requestTimeoutMs'] as const) {
      const serving = serveEnvs({ registry: testRegistry(), ids: ALL_IDS, [field]: 0 });
      await expect(serving).rejects.toThrow(InvalidOptionsError);
      await expect(serving).rejects.toThrow(new RegExp(`${field} must be >= 1`));
    }
  });
});
