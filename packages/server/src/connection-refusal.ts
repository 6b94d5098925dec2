import type { Socket } from 'node:net';
import { openFileLimit } from './open-file-limit';

/**
 * How many refused connections may be held open at once, process-wide, while their clients read the 503: each holds
 * a file descriptor for up to a second, and a flood of clients that never close their end (at a few hundred
 * connections a second) would otherwise hold that many, past the tenth of the open-file limit a server's default
 * `maxConnections` leaves for refusals, until even `accept` failed. A twentieth of the limit, at most 64.
 */
export const MAX_HELD_REFUSALS = Math.max(1, Math.min(64, Math.floor((openFileLimit() ?? 65_536) / 20)));

let heldRefusals = 0;

/**
 * Answers a connection with a 503 (Retry-After: 1) whose JSON body `bodyOf` shapes from `detail` (the env server's
 * `{"detail": …}`, the MCP server's JSON-RPC error), and closes it. What the client sends meanwhile is read and
 * dropped: a socket closed with bytes unread is reset, and the reset could destroy this answer before the client
 * reads it. A client that never closes its end is cut after a second. Past `MAX_HELD_REFUSALS` refusals held at
 * once (a flood), the answer is written and the socket closed at once: its client may see a reset instead.
 */
export function refuseConnection(
  socket: Socket,
  detail: string,
  bodyOf: (detail: string) => unknown = (text) => ({ detail: text }),
): void {
  const text = JSON.stringify(bodyOf(detail));
  const answer = `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${text}`;
  if (socket.destroyed) return;
  socket.on('error', () => undefined);
  if (heldRefusals >= MAX_HELD_REFUSALS) {
    socket.end(answer);
    socket.destroy();
    return;
  }
  heldRefusals += 1;
  socket.on('end', () => socket.destroy());
  const cutoff = setTimeout(() => socket.destroy(), 1000);
  cutoff.unref();
  socket.once('close', () => {
    heldRefusals -= 1;
    clearTimeout(cutoff);
  });
  socket.resume();
  socket.end(answer);
}

/** The refusal's detail for a connection over `maxConnections` (the env server's, MCP's, a cluster primary's). */
export function tooManyConnections(limit: number): string {
  return `Too many connections: this server holds at most ${limit} at once (maxConnections); close idle ones or retry later`;
}
