import { EnvFaultError } from '@turngym/core';
import type WebSocket from 'ws';
import type { ClosedData, MuxEnvelope, OpenData, SessionData } from './protocol';
import { openSocket, type OpenedSocket } from './remote-connection';
import { ReplyQueue, type Reply, type SessionLink } from './reply-queue';
import { RemoteProtocolError } from './server-errors';

/** Frames are cut at about this size so a big batch never runs into the server's frame limit. */
const BATCH_BYTES = 256 * 1024;

/** One session on a shared `/mux` connection. */
class MuxChannel implements SessionLink {
  readonly replies: ReplyQueue;
  private ended = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly client: MuxClient,
    readonly id: number,
    readonly url: string,
    timeoutMs: number,
  ) {
    // A reply that never comes breaks this channel's order only: the channel is given up, the connection stays.
    this.replies = new ReplyQueue(timeoutMs, url, () => {
      this.client.post(this.id, '{"type":"close"}');
      this.end();
    });
  }

  request(message: { type: string; data?: unknown }): Promise<Reply> {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const reply = this.replies.expect(message.type);
    if (!this.replies.failed) this.client.post(this.id, text);
    return reply;
  }

  /** Sends `close`, waits for the server's `closed`. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.ended
      ? Promise.resolve()
      : this.request({ type: 'close' }).then(
          () => undefined,
          () => undefined,
        );
    return this.closing;
  }

  receive(message: Reply): void {
    if (message?.type === 'closed') {
      // The answer to our `close`, or the server ending the session on its own (idle timeout, shutdown).
      if (this.replies.head === 'close') this.replies.settle(message);
      const { reason } = (message.data ?? {}) as Partial<ClosedData>;
      this.replies.fail(
        new EnvFaultError(`The server closed session channel ${this.id}${reason ? ` (${reason})` : ''}.`),
      );
      this.end();
      return;
    }
    if (!this.replies.settle(message)) {
      this.replies.fail(
        new RemoteProtocolError('UNEXPECTED_REPLY', `${this.url} sent channel ${this.id} a reply nobody asked for`),
      );
    }
  }

  /** Forgets the channel locally (the server has closed it, or it is unusable). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.client.release(this);
  }
}

/**
 * Client side of `/mux`: one WebSocket shared by many RemoteEnvs of this process (one per URL and token).
 * Requests issued during one turn of the event loop leave as one frame, as the server's replies do, so
 * 64 sessions cost a handful of writes per round instead of 64. The connection closes with its last channel.
 */
export class MuxClient {
  private static readonly pool = new Map<string, Promise<MuxClient>>();
  private readonly channels = new Map<number, MuxChannel>();
  private nextId = 0;
  private outbox: string[] = [];
  private outboxBytes = 0;
  private flushing = false;
  private failure: Error | undefined;
  /** Closed with its last channel: a late opener goes to the pool's next connection. */
  private retired = false;

  private readonly socket: WebSocket;

  private constructor(
    opened: OpenedSocket,
    readonly url: string,
    private readonly key: string,
    private readonly options: { token?: string | undefined; timeoutMs: number },
  ) {
    const socket = opened.socket;
    this.socket = socket;
    socket.on('message', (raw: Buffer) => this.receive(raw));
    socket.on('close', (code: number, reason: Buffer) => {
      const why = reason.length > 0 ? `: ${reason.toString()}` : '';
      this.fail(new EnvFaultError(`Connection to ${url} closed (code ${code}${why}).`));
    });
    socket.on('error', (error: Error) =>
      this.fail(new EnvFaultError(`Connection to ${url} failed: ${error.message}`, { cause: error })),
    );
    for (const raw of opened.takeEarly()) this.receive(raw);
  }

  /** The process's connection to `url` (opened on first use). */
  static shared(url: string, options: { token?: string | undefined; timeoutMs: number }): Promise<MuxClient> {
    const key = `${url}\n${options.token ?? ''}`;
    let client = MuxClient.pool.get(key);
    if (!client) {
      client = openSocket(url, options.token, options.timeoutMs).then(
        (opened) => new MuxClient(opened, url, key, options),
      );
      MuxClient.pool.set(key, client);
      client.catch(() => MuxClient.pool.delete(key));
    }
    return client;
  }

  /** Opens a session on a new channel: a fresh env (`data` configures it) or a fork to claim (`data.session`). */
  async open(data: OpenData): Promise<{ link: SessionLink; session: SessionData }> {
    if (this.retired) return (await MuxClient.shared(this.url, this.options)).open(data);
    if (this.failure) throw this.failure;
    const channel = new MuxChannel(this, this.nextId++, this.url, this.options.timeoutMs);
    this.channels.set(channel.id, channel);
    try {
      const reply = await channel.request({ type: 'open', data });
      return { link: channel, session: reply.data as SessionData };
    } catch (error) {
      channel.end();
      throw error;
    }
  }

  /** Queues one serialized message; everything queued in this turn of the event loop leaves as one frame. */
  post(channel: number, message: string): void {
    this.outbox.push(`{"c":${channel},"m":${message}}`);
    this.outboxBytes += message.length + 16;
    if (this.outboxBytes > BATCH_BYTES) this.flush();
    else if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => this.flush());
    }
  }

  release(channel: MuxChannel): void {
    if (this.channels.get(channel.id) !== channel) return;
    this.channels.delete(channel.id);
    if (this.channels.size === 0) {
      // Last channel gone: drop the connection so an idle process can exit.
      this.retired = true;
      MuxClient.pool.delete(this.key);
      this.flush();
      this.socket.close(1000);
    }
  }

  private flush(): void {
    this.flushing = false;
    if (this.outbox.length === 0) return;
    const batch = this.outbox;
    this.outbox = [];
    this.outboxBytes = 0;
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(`[${batch.join(',')}]`);
  }

  private receive(raw: Buffer): void {
    let envelopes: MuxEnvelope[];
    try {
      envelopes = JSON.parse(raw.toString('utf8')) as MuxEnvelope[];
      if (!Array.isArray(envelopes)) throw new TypeError('not an array');
    } catch {
      this.fail(new RemoteProtocolError('INVALID_JSON', `${this.url} sent a frame that is not a batch of envelopes`));
      this.socket.terminate();
      return;
    }
    for (const { c, m } of envelopes) {
      if (c === null) {
        // A frame-level error: nothing to match it with; the channels it concerns get their own replies.
        continue;
      }
      this.channels.get(c)?.receive(m as Reply);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    if (MuxClient.pool.get(this.key) !== undefined && !this.retired) MuxClient.pool.delete(this.key);
    for (const channel of [...this.channels.values()]) {
      channel.replies.fail(error);
      channel.end();
    }
  }
}
