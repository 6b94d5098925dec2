import { connect } from 'node:net';
import { InvalidOptionsError } from '@turngym/core';
import { rawExchange } from './__fixtures__/raw-exchange';
import { ALL_IDS, openEnvs, testRegistry } from './__fixtures__/test-envs';
import { serveEnvs } from './serve-envs';

afterEach(() => {
  expect(openEnvs.count).toBe(0);
});

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
    const headers = await rawExchange(server.port, 'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(headers.head).toMatch(/^HTTP\/1.1 408 Request Timeout\r\n/);
    expect(headers.head).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    expect(JSON.parse(headers.body)).toEqual({ detail });
    // An endless body: headers complete, the body promised and never sent in full.
    const body = await rawExchange(
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
    const garbage = await rawExchange(server.port, 'HELLO THERE\r\n\r\n');
    expect(garbage.head).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
    expect(JSON.parse(garbage.body)).toEqual({ detail: expect.stringMatching(/^Malformed HTTP request/) });
    const large = await rawExchange(
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

describe('a request body over maxFrameBytes', () => {
  const tooLarge = { detail: "Request body over the server's limit of 1024 bytes" };

  it('is answered 413 as soon as its Content-Length says so, on any path, and its connection closed', async () => {
    // A request timeout short enough that a server waiting for the body answers 408 instead, within the test.
    const server = await serveEnvs({
      registry: testRegistry(),
      ids: ALL_IDS,
      maxFrameBytes: 1024,
      requestTimeoutMs: 1000,
    });
    for (const path of ['/reset', '/step', '/mcp', '/nowhere']) {
      // A gigabyte announced, ten bytes sent: the server must not wait for (or read) the rest.
      const reply = await rawExchange(
        server.port,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\n\r\n{"seed":1,`,
      );
      expect(reply.head).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/);
      expect(reply.head).toMatch(/\r\nConnection: close\r\n/i);
      expect(JSON.parse(reply.body)).toEqual(tooLarge);
    }
    expect(server.liveSessions()).toBe(0);
    await server.close();
  });

  it('is refused before the client sends it when the client asks first (Expect: 100-continue)', async () => {
    const server = await serveEnvs({
      registry: testRegistry(),
      ids: ALL_IDS,
      maxFrameBytes: 1024,
      requestTimeoutMs: 1000,
    });
    const refused = await rawExchange(
      server.port,
      'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 1000000000\r\n\r\n',
    );
    // No "100 Continue" first: that would tell the client to send its gigabyte.
    expect(refused.head).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/);
    expect(JSON.parse(refused.body)).toEqual(tooLarge);
    // A body within the limit is asked for, and served.
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect({ port: server.port, host: '127.0.0.1' });
      let received = '';
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('utf8');
        if (received === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write('{"seed":1}');
        if (/\r\n\r\n\{.*\}$/s.test(received)) socket.end();
      });
      socket.on('close', () => resolve(received));
      socket.write(
        'POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n',
      );
    });
    expect(reply).toMatch(/^HTTP\/1.1 100 Continue\r\n\r\nHTTP\/1.1 200 OK\r\n/);
    await server.close();
  });

  it('is answered 413 once a chunked body passes the limit, without waiting for its last chunk', async () => {
    const server = await serveEnvs({
      registry: testRegistry(),
      ids: ALL_IDS,
      maxFrameBytes: 1024,
      requestTimeoutMs: 1000,
    });
    const chunk = 'x'.repeat(2000);
    const reply = await rawExchange(
      server.port,
      `POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    );
    expect(reply.head).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/);
    expect(JSON.parse(reply.body)).toEqual(tooLarge);
    // A body within the limit is still served.
    expect((await fetch(`${server.url}/reset`, { method: 'POST', body: '{"seed":1}' })).status).toBe(200);
    await server.close();
  });

  it('is not read on when the request is refused before its body (401, 404): the connection is closed', async () => {
    const server = await serveEnvs({ registry: testRegistry(), ids: ALL_IDS, token: 'secret', requestTimeoutMs: 1000 });
    for (const [path, status] of [
      ['/reset', '401 Unauthorized'],
      ['/nowhere', '404 Not Found'],
    ]) {
      // A chunked body has no length to refuse up front: kept open, the connection would take in all of it.
      const reply = await rawExchange(
        server.port,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n${'x'.repeat(1024)}\r\n`,
      );
      expect(reply.head).toMatch(new RegExp(`^HTTP/1.1 ${status}\\r\\n`));
      expect(reply.head).toMatch(/\r\nConnection: close\r\n/i);
    }
    await server.close();
  });
});
