import { createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import { EnvFaultError } from '@turngym/core';
import { requestSync, stopSyncRequests } from './sync-http';

/** An HTTP server on another thread (this one blocks while it waits): echoes, or never answers /hang. */
const SERVER = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = http.createServer((request, response) => {
  if (request.url === '/hang') return;
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ method: request.method, auth: request.headers.authorization, body }));
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

let worker: Worker;
let base: string;

beforeAll(async () => {
  worker = new Worker(SERVER, { eval: true });
  base = `http://127.0.0.1:${await new Promise<number>((resolve) => worker.once('message', resolve))}`;
});

afterAll(async () => {
  await stopSyncRequests();
  await worker.terminate();
});

describe('requestSync', () => {
  it('blocks until the answer comes and returns its status and body', () => {
    for (let i = 0; i < 3; i++) {
      const response = requestSync({
        method: 'POST',
        url: `${base}/x`,
        headers: { authorization: 'Bearer t' },
        body: `{"i":${i}}`,
        timeoutMs: 5000,
      });
      expect(response.status).toBe(201);
      expect(JSON.parse(response.body)).toEqual({ method: 'POST', auth: 'Bearer t', body: `{"i":${i}}` });
    }
  });

  it('gives up after the timeout with a retryable EnvFaultError', () => {
    expect(() => requestSync({ method: 'GET', url: `${base}/hang`, headers: {}, timeoutMs: 200 })).toThrow(
      EnvFaultError,
    );
  });

  it('fails with EnvFaultError when nothing listens', async () => {
    const free = createServer();
    const port = await new Promise<number>((resolve) =>
      free.listen(0, '127.0.0.1', () => resolve((free.address() as { port: number }).port)),
    );
    await new Promise((resolve) => free.close(resolve));
    expect(() =>
      requestSync({ method: 'GET', url: `http://127.0.0.1:${port}/`, headers: {}, timeoutMs: 2000 }),
    ).toThrow(/failed: .*ECONNREFUSED/);
  });
});
