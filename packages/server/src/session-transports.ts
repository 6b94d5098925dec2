import type { WebSocket } from 'ws';
import { MAX_UNREAD_BYTES } from './protocol';
import type { Session } from './session';

/** OpenEnv's model: the session owns the connection; the connection's end is the session's end. */
export function attachWebSocket(session: Session, socket: WebSocket): void {
  session.attach({
    get isOpen() {
      return socket.readyState === socket.OPEN;
    },
    send: (reply) => {
      const text = JSON.stringify(reply);
      // A client that does not read its replies would make the server hold them all: drop it.
      if (socket.bufferedAmount > MAX_UNREAD_BYTES) socket.terminate();
      else socket.send(text);
    },
    end: (code, reason) => socket.close(code, reason),
  });
  socket.on('message', (raw) => session.deliverFrame(raw));
  socket.on('close', () => void session.close());
  // An 'error' is always followed by 'close'; listening keeps it from becoming an uncaught exception.
  socket.on('error', () => undefined);
}
