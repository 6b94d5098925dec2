import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** The `fetch` shape the MCP SDK's Streamable HTTP client transport takes (its `fetch` option). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A `FetchLike` that holds connections open between requests, and lets them go. */
export type ClosableFetch = FetchLike & {
  /**
   * Closes the kept-alive connections. Without it each client left its sockets to the server's idle timeout:
   * 50 forks of a URL env, each closed, left 51 connections open, and a search that forks thousands of times
   * runs out of file descriptors.
   */
  close(): void;
};

/** Statuses whose Response must have no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * Largest JSON reply, or SSE event, read from a server: the MCP SDK's stdio client stops at the same 10 MiB. Without
 * it a server that answers a call with an endless body grew the env's memory by about 100 MB a second for as long as
 * the call ran, and on after it had timed out, until the env was closed.
 */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Cuts `response` with an error once one message in it passes `limit` bytes: the whole body, or for a stream of
 * server-sent events (`text/event-stream`, which may stay open for a whole session) the bytes since the last
 * event's end (a blank line).
 */
function limitMessages(response: IncomingMessage, limit: number): void {
  const events = /^text\/event-stream/i.test(response.headers['content-type'] ?? '');
  let size = 0;
  let endedWithNewline = false;
  const cut = (): void =>
    void response.destroy(
      new Error(
        `the server's reply passed ${limit} bytes${events ? ' in one event' : ''}, the most a message may have`,
      ),
    );
  response.on('data', (chunk: Buffer) => {
    let from = 0;
    if (events) {
      // A blank line split between two chunks ends an event too.
      if (endedWithNewline && (chunk[0] === 0x0a || (chunk[0] === 0x0d && chunk[1] === 0x0a))) size = 0;
      endedWithNewline = chunk[chunk.length - 1] === 0x0a;
      for (;;) {
        const boundary = nextBlankLine(chunk, from);
        if (boundary === undefined) break;
        size += boundary.at - from;
        if (size > limit) return cut();
        size = 0;
        from = boundary.at + boundary.length;
      }
    }
    size += chunk.length - from;
    if (size > limit) cut();
  });
}

/** Where the next blank line (`\n\n` or `\n\r\n`) in `chunk` from `from` is, and how long it is. */
function nextBlankLine(chunk: Buffer, from: number): { at: number; length: number } | undefined {
  const plain = chunk.indexOf('\n\n', from);
  const crlf = chunk.indexOf('\n\r\n', from);
  if (plain < 0 && crlf < 0) return undefined;
  return crlf < 0 || (plain >= 0 && plain < crlf) ? { at: plain, length: 2 } : { at: crlf, length: 3 };
}

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/**
 * A `fetch` for the MCP SDK's HTTP client made of node:http with kept-alive connections. Node 20's global fetch
 * (undici) costs ~11 ms a request on loopback here against ~0.5 ms for node:http (measured on the same server:
 * p50 of 200 sequential POSTs), and an env makes one request per step; responses stream (SSE works) as with
 * fetch. Bodies are what the SDK sends: strings, or none. A reply (or one server-sent event) over
 * `maxMessageBytes` fails with an error saying so.
 */
export function nodeHttpFetch(maxMessageBytes = MAX_MESSAGE_BYTES): ClosableFetch {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const fetch: FetchLike = (url, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const send = secure ? httpsRequest : httpRequest;
      const request = send(
        target,
        {
          method: init.method ?? 'GET',
          headers,
          agent: secure ? agents.https : agents.http,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (response) => {
          const status = response.statusCode ?? 500;
          const stream = NULL_BODY.has(status) ? null : (Readable.toWeb(response) as unknown as ReadableStream);
          if (stream === null) response.resume();
          else limitMessages(response, maxMessageBytes);
          resolve(
            new Response(stream, {
              status,
              statusText: response.statusMessage ?? '',
              headers: toHeaders(response.headers),
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  return Object.assign(fetch, {
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  });
}
