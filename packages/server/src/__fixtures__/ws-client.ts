import WebSocket from 'ws';

/** A bare protocol client for conformance tests: sends raw frames, reads replies in order. */
export class WsClient {
  private readonly inbox: unknown[] = [];
  private readonly waiters: Array<(message: unknown) => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (raw: Buffer) => {
      const message = JSON.parse(raw.toString('utf8')) as unknown;
      const waiter = this.waiters.shift();
      if (waiter) waiter(message);
      else this.inbox.push(message);
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers, maxPayload: 0 });
      socket.once('open', () => resolve(new WsClient(socket)));
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => {
        socket.on('error', () => undefined);
        socket.terminate();
        reject(new Error(`HTTP ${response.statusCode}`));
      });
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
  }

  next(timeoutMs = 5000): Promise<any> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const waiter = (message: unknown): void => {
        clearTimeout(timer);
        resolve(message);
      };
      // A waiter that gave up leaves the queue, or it would swallow the next message meant for the one after it.
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no message within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  async request(message: unknown): Promise<any> {
    this.send(message);
    return this.next();
  }

  close(): void {
    this.socket.close();
  }
}
