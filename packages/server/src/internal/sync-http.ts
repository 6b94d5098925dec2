import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { EnvFaultError } from '@turngym/core';

export interface SyncRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
}

export interface SyncResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * The helper thread: plain JavaScript (it runs from a string, so it works from `src/` under jest and from
 * `dist/` alike) that performs one HTTP request per message over a keep-alive agent, posts the answer on the
 * message's port, and wakes the waiting thread through the shared signal.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
parentPort.on('message', ({ signal, port, request }) => {
  let done = false;
  const finish = (answer) => {
    if (done) return;
    done = true;
    port.postMessage(answer);
    port.close();
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  try {
    const url = new URL(request.url);
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method: request.method, headers: request.headers, agent: agents[url.protocol], timeout: request.timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => finish({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => finish({ error: error.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => finish({ error: error.message }));
    req.end(request.body);
  } catch (error) {
    finish({ error: String(error && error.message || error) });
  }
});
`;

let worker: Worker | undefined;

function helper(): Worker {
  if (!worker) {
    worker = new Worker(WORKER_SOURCE, { eval: true });
    // Never keeps the process alive; a blocked caller still gets its answer, since the thread is running.
    worker.unref();
    worker.on('error', () => {
      worker = undefined;
    });
    worker.on('exit', () => {
      worker = undefined;
    });
  }
  return worker;
}

/**
 * An HTTP request that blocks the calling thread until the answer comes (`Atomics.wait` on a shared flag
 * while a helper thread does the I/O). Only for short, rare calls: `RemoteEnv.fingerprint()`/`anchor()` are
 * synchronous in the Env contract. Never call it for a server running in this same thread: it would wait on
 * itself until the timeout.
 */
export function requestSync(request: SyncRequest): SyncResponse {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  try {
    helper().postMessage({ signal, port: port2, request }, [port2]);
    const outcome = Atomics.wait(signal, 0, 0, request.timeoutMs + 1000);
    const received = receiveMessageOnPort(port1);
    if (!received) {
      throw new EnvFaultError(
        `${request.method} ${request.url}: ${outcome === 'timed-out' ? `no answer within ${request.timeoutMs} ms` : 'no answer'}`,
      );
    }
    const answer = received.message as SyncResponse & { error?: string };
    if (answer.error !== undefined) throw new EnvFaultError(`${request.method} ${request.url} failed: ${answer.error}`);
    return { status: answer.status, body: answer.body };
  } finally {
    port1.close();
  }
}

/** Stops the helper thread (it is restarted on demand). */
export async function stopSyncRequests(): Promise<void> {
  const running = worker;
  worker = undefined;
  if (running) await running.terminate();
}
