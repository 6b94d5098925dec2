import type { Socket } from 'node:net';

/**
 * Answers a connection with a 503 (Retry-After: 1) whose JSON body `bodyOf` shapes from `detail` (the env server's
 * `{"detail": …}`, the MCP server's JSON-RPC error), and closes it. What the client sends meanwhile is read and
 * dropped: a socket closed with bytes unread is reset, and the reset could destroy this answer before the client
 * reads it. A client that never closes its end is cut after a second.
 */
export function refuseConnection(
  socket: Socket,
  detail: string,
  bodyOf: (detail: string) => unknown = (text) => ({ detail: text }),
): void {
  const text = JSON.stringify(bodyOf(detail));
  socket.on('error', () => undefined);
  socket.on('end', () => socket.destroy());
  const cutoff = setTimeout(() => socket.destroy(), 1000);
  cutoff.unref();
  socket.once('close', () => clearTimeout(cutoff));
  socket.resume();
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** The refusal's detail for a connection over `maxConnections` (the env server's, MCP's, a cluster primary's). */
export function tooManyConnections(limit: number): string {
  return `Too many connections: this server holds at most ${limit} at once (maxConnections); close idle ones or retry later`;
}
