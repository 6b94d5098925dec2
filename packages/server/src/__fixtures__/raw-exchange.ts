import { connect } from 'node:net';

/**
 * Writes `text` on a fresh connection to `port` and never sends another byte (a slowloris, a client that hung
 * mid-request, or a whole request), then reads everything the server says until it closes the connection.
 */
export function rawExchange(port: number, text: string): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ head, body });
    });
    socket.write(text);
  });
}
