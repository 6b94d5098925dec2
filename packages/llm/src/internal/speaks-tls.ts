import { isIP } from 'node:net';
import { connect } from 'node:tls';

/**
 * Whether `host:port` completes a TLS handshake within `timeoutMs`: how a plain `http://` base URL pointed at an HTTPS
 * port is told apart from a server that hung up. A TLS server given plain HTTP closes the connection without a word
 * (Node's, and most others'), which reads as "the server closed the connection" and was retried as one. Nothing is
 * sent over the connection and it is closed at once, so the certificate is not checked: only the protocol is asked.
 */
export function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const bare = host.replace(/^\[|\]$/g, '');
    const socket = connect({
      host: bare,
      port,
      ...(isIP(bare) === 0 ? { servername: bare } : {}),
      rejectUnauthorized: false,
    });
    const finish = (speaks: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(speaks);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.once('secureConnect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
