import type { IncomingMessage } from 'node:http';
import { EnvFaultError } from '@turngym/core';
import WebSocket from 'ws';
import { fromErrorData } from './error-mapping';
import type { ErrorData } from './protocol';
import { ReplyQueue, type Reply, type SessionLink } from './reply-queue';
import { RemoteProtocolError, UnauthorizedError } from './server-errors';

/** Options of a client WebSocket to an env server. */
export function socketOptions(token: string | undefined, timeoutMs: number): WebSocket.ClientOptions {
  return {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    handshakeTimeout: timeoutMs,
    perMessageDeflate: false,
    // Observations can be large (pages, screenshots); OpenEnv's client allows 100 MB.
    maxPayload: 100 * 1024 * 1024,
  };
}

/** An open client socket, and the frames it received before its owner started listening. */
export interface OpenedSocket {
  readonly socket: WebSocket;
  /** Stops buffering and returns what came early (a server may reply the moment it accepts: capacity …). */
  takeEarly(): Buffer[];
}

/** Opens a client WebSocket; a refused upgrade becomes the typed error its status means. */
export function openSocket(url: string, token: string | undefined, timeoutMs: number): Promise<OpenedSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, socketOptions(token, timeoutMs));
    // Frames can arrive with the handshake's answer, before the promise's consumer runs: keep them.
    const early: Buffer[] = [];
    const keep = (raw: Buffer): void => void early.push(raw);
    socket.on('message', keep);
    const onError = (error: Error): void =>
      reject(new EnvFaultError(`Cannot connect to ${url}: ${error.message}`, { cause: error }));
    socket.once('error', onError);
    socket.once('unexpected-response', (_request, response: IncomingMessage) => {
      socket.off('error', onError);
      socket.on('error', () => undefined);
      void readRefusal(response).then((detail) => {
        socket.terminate();
        const status = response.statusCode ?? 0;
        if (status === 401) reject(new UnauthorizedError());
        else if (status === 503)
          reject(new EnvFaultError(`${url}: ${detail || 'service unavailable'}`, { isRetryable: true }));
        else reject(new RemoteProtocolError(`HTTP_${status}`, `${url} refused the WebSocket upgrade: ${detail}`));
      });
    });
    socket.once('open', () => {
      socket.off('error', onError);
      resolve({
        socket,
        takeEarly: () => {
          socket.off('message', keep);
          return early.splice(0);
        },
      });
    });
  });
}

/** The body of a refused upgrade (`{"detail": …}`), read for the error message. */
function readRefusal(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        const detail = (JSON.parse(text) as { detail?: unknown }).detail;
        resolve(typeof detail === 'string' ? detail : JSON.stringify(detail));
      } catch {
        resolve(text);
      }
    });
    response.on('error', () => resolve(''));
  });
}

/**
 * One `/ws` session seen from the client (OpenEnv's model: the connection is the session). Requests go out in
 * order and replies come back in the same order. A lost connection or a reply that never comes rejects with
 * `EnvFaultError` (retryable); a timed-out connection is dropped, since replies could no longer be matched.
 */
export class RemoteConnection implements SessionLink {
  private readonly replies: ReplyQueue;
  /** An error the server sent before we asked anything (capacity, unknown env): the reason it will close. */
  private refusal: Error | undefined;
  private readonly closed: Promise<void>;
  private readonly socket: WebSocket;

  private constructor(
    opened: OpenedSocket,
    readonly url: string,
    private readonly timeoutMs: number,
  ) {
    const socket = opened.socket;
    this.socket = socket;
    this.replies = new ReplyQueue(timeoutMs, url, () => socket.terminate());
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('message', (raw: Buffer) => this.receive(raw));
    socket.on('close', (code: number, reason: Buffer) => {
      const why = reason.length > 0 ? `: ${reason.toString()}` : '';
      this.replies.fail(this.refusal ?? new EnvFaultError(`Connection to ${url} closed (code ${code}${why}).`));
    });
    socket.on('error', (error: Error) =>
      this.replies.fail(new EnvFaultError(`Connection to ${url} failed: ${error.message}`, { cause: error })),
    );
    for (const raw of opened.takeEarly()) this.receive(raw);
  }

  static async open(
    url: string,
    options: { token?: string | undefined; timeoutMs: number },
  ): Promise<RemoteConnection> {
    return new RemoteConnection(await openSocket(url, options.token, options.timeoutMs), url, options.timeoutMs);
  }

  request(message: { type: string; data?: unknown }): Promise<Reply> {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const reply = this.replies.expect(message.type);
    if (!this.replies.failed) this.socket.send(text);
    return reply;
  }

  /** Sends OpenEnv's `close`, then waits for the server to close the connection (or gives up after the timeout). */
  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ type: 'close' }));
      const timer = setTimeout(() => this.socket.terminate(), this.timeoutMs);
      await this.closed;
      clearTimeout(timer);
    } else if (this.socket.readyState !== WebSocket.CLOSED) {
      this.socket.terminate();
      await this.closed;
    }
    this.replies.fail(new EnvFaultError(`Connection to ${this.url} is closed.`));
  }

  private receive(raw: Buffer): void {
    let reply: Reply;
    try {
      reply = JSON.parse(raw.toString('utf8')) as Reply;
    } catch {
      this.replies.fail(new RemoteProtocolError('INVALID_JSON', `${this.url} sent a frame that is not JSON`));
      this.socket.terminate();
      return;
    }
    if (!this.replies.settle(reply) && reply?.type === 'error') this.refusal = fromErrorData(reply.data as ErrorData);
  }
}
