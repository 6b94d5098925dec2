import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long a client may take to send a request, for the env server's and the MCP server's HTTP layer. */
export interface HttpLimits {
  /** Longest a request's headers may take to arrive (ms); capped by `requestTimeoutMs`. */
  headersTimeoutMs: number;
  /** Longest a whole request, headers and body, may take to arrive (ms). Answering it is not counted. */
  requestTimeoutMs: number;
}

/**
 * Node's HTTP server options that enforce `limits`. Node checks its timeouts only every
 * `connectionsCheckingInterval` (30 s by default, longer than short limits): a quarter of the shorter limit,
 * within 10 ms to 1 s, keeps a request from outliving its limit by much.
 */
export function httpServerOptions(limits: HttpLimits): ServerOptions {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(headersTimeout / 4))),
  };
}

/** The answer to a request Node's HTTP parser gave up on, by the code of its error. */
function refusalOf(error: NodeJS.ErrnoException): { status: number; reason: string; detail: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        detail: 'The request did not arrive in time (headersTimeoutMs / requestTimeoutMs of this server)',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        detail: 'The request headers are over the limit of 16 KiB',
      };
    default:
      return { status: 400, reason: 'Bad Request', detail: `Malformed HTTP request (${error.code ?? error.message})` };
  }
}

/**
 * The server's `clientError` handler: a request Node's parser gave up on (too slow, headers too large, not HTTP)
 * is answered with a JSON error, as every other refusal of the server is, and its connection closed. A slow
 * client (a slowloris trickling its headers or body) thereby holds a socket for the request timeout at most,
 * and learns why it was cut. A connection whose reply already started, or that is gone, is only closed.
 * `bodyOf` shapes the JSON body (the env server's `{"detail": …}`, the MCP server's JSON-RPC error).
 */
export function answerClientError(
  error: Error,
  socket: Duplex,
  bodyOf: (detail: string) => unknown = (detail) => ({ detail }),
): void {
  const reply = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || reply?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, reason, detail } = refusalOf(error as NodeJS.ErrnoException);
  const body = JSON.stringify(bodyOf(detail));
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Whether a request's Content-Length is over `limit`: it is refused (413) before a byte of its body is read. */
export function declaresBodyOver(request: IncomingMessage, limit: number): boolean {
  const declared = request.headers['content-length'];
  return declared !== undefined && Number(declared) > limit;
}

/**
 * Whether a reply goes out before the request's chunked body was read (a 401, a 404, a 405 …): its connection must
 * be closed. Kept, Node would read and drop the rest of that body to reach the next request, however long it is,
 * and an unauthenticated client could stream gigabytes into the server that way. A body with a Content-Length is
 * within the server's limit (a longer one is refused up front), so Node may drain it.
 */
export function leavesChunkedBodyUnread(response: ServerResponse): boolean {
  const request = response.req as IncomingMessage | undefined;
  return request !== undefined && !request.complete && request.headers['transfer-encoding'] !== undefined;
}
