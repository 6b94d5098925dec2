import type { RawData, WebSocket } from 'ws';
import { toErrorData } from './error-mapping';
import { frameByteLength, frameText, NOT_UTF8 } from './frame-text';
import { checkJsonDepth } from './json-depth';
import { validateMessage, validateMuxFrame } from './message-schemas';
import { CLOSE_CODES, MAX_UNREAD_BYTES, type ErrorData, type MuxEnvelope, type OpenData } from './protocol';
import { MAX_PENDING_MESSAGES, type Reply, type Session } from './session';

/** What a multiplexed connection needs from the server. */
export interface MuxHost {
  readonly maxFrameBytes: number;
  /**
   * A new session (capacity checked, env built) or a claimed fork (of a session opened on the same env path);
   * throws the typed error to reply with.
   */
  openSession(data: OpenData, defaultEnvId: string, pathEnvId?: string): Promise<Session>;
}

interface Channel {
  session?: Session;
  /** Messages that arrived while the channel was opening, delivered in order once it is open. */
  readonly early: unknown[];
}

/**
 * Server side of `/mux`: many sessions on one WebSocket, one per channel. Each channel's session behaves
 * exactly as a `/ws` session (same messages, same order, same error replies); what differs is framing:
 * replies produced while handling one batch leave together, as one frame, at the end of the event-loop turn.
 */
export class MuxConnection {
  private readonly channels = new Map<number, Channel>();
  /** Envelopes serialized as they are posted, so a reply that is not JSON fails in its session, not here. */
  private outbox: string[] = [];
  private flushing = false;

  constructor(
    private readonly host: MuxHost,
    private readonly socket: WebSocket,
    private readonly defaultEnvId: string,
    /** The env id of the path the connection came in on (`/envs/<id>/mux`), if any. */
    private readonly pathEnvId?: string,
  ) {
    socket.on('message', (raw) => this.receive(raw));
    socket.on('close', () => this.closeAll());
    socket.on('error', () => undefined);
  }

  /** Live channels (open or opening). */
  get size(): number {
    return this.channels.size;
  }

  /** Shutdown: sends what is queued (the channels' `closed` notices) and closes the connection. */
  shutdown(code: number, reason: string): void {
    this.flush();
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(code, reason);
  }

  private receive(raw: RawData): void {
    const size = frameByteLength(raw);
    const text = frameText(raw);
    if (text === undefined) {
      this.post(null, { type: 'error', data: { message: NOT_UTF8, code: 'INVALID_JSON' } });
      return;
    }
    try {
      checkJsonDepth(text, ['frame']);
    } catch (error) {
      this.post(null, { type: 'error', data: toErrorData(error) });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      this.post(null, {
        type: 'error',
        data: { message: `Invalid JSON: ${(error as Error).message}`, code: 'INVALID_JSON' },
      });
      return;
    }
    let envelopes: MuxEnvelope[];
    try {
      envelopes = validateMuxFrame(parsed, ['frame']);
    } catch (error) {
      // Not the protocol at all: as OpenEnv does with a frame that is not an object, end the connection.
      this.post(null, { type: 'error', data: { ...toErrorData(error), code: 'SESSION_ERROR' } });
      this.shutdown(CLOSE_CODES.normal, 'protocol error');
      return;
    }
    if (size > this.host.maxFrameBytes) {
      const message = `Frame of ${size} bytes exceeds the server's limit of ${this.host.maxFrameBytes} bytes`;
      const error: ErrorData = {
        message,
        code: 'VALIDATION_ERROR',
        errors: [{ type: 'frame_too_large', loc: [], msg: message }],
      };
      // Every message in it gets its error reply, so no client waits for an answer that never comes.
      for (const envelope of envelopes) this.post(envelope.c, { type: 'error', data: error });
      return;
    }
    for (const { c, m } of envelopes) this.route(c as number, m);
  }

  private route(channelId: number, message: unknown): void {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'open') {
      void this.open(channelId, message);
      return;
    }
    const channel = this.channels.get(channelId);
    if (!channel) {
      this.post(channelId, {
        type: 'error',
        data: { message: `Channel ${channelId} is not open: send {"type": "open"} first`, code: 'SESSION_ERROR' },
      });
    } else if (channel.session) {
      channel.session.deliverMessage(message);
    } else if (channel.early.length < MAX_PENDING_MESSAGES) {
      channel.early.push(message);
    } else {
      // A client that floods a channel whose env is still being built (a browser may take seconds to start) is
      // told, as a session's own queue tells it; the channel ends, and its env is closed once built.
      this.channels.delete(channelId);
      channel.early.length = 0;
      this.post(channelId, {
        type: 'error',
        data: { message: `More than ${MAX_PENDING_MESSAGES} messages waiting for replies`, code: 'SESSION_ERROR' },
      });
      this.post(channelId, {
        type: 'closed',
        data: { code: CLOSE_CODES.normal, reason: 'too many messages in flight' },
      });
    }
  }

  private async open(channelId: number, message: unknown): Promise<void> {
    if (this.channels.has(channelId)) {
      const message = `Channel ${channelId} is already open`;
      this.post(channelId, {
        type: 'error',
        data: { message, code: 'VALIDATION_ERROR', errors: [{ type: 'value_error', loc: ['c'], msg: message }] },
      });
      return;
    }
    const channel: Channel = { early: [] };
    this.channels.set(channelId, channel);
    let session: Session;
    try {
      const { data } = validateMessage.open(message, []);
      session = await this.host.openSession(data ?? {}, this.defaultEnvId, this.pathEnvId);
    } catch (error) {
      this.channels.delete(channelId);
      this.post(channelId, { type: 'error', data: toErrorData(error) });
      for (let i = 0; i < channel.early.length; i++) {
        this.post(channelId, {
          type: 'error',
          data: { message: `Channel ${channelId} failed to open`, code: 'SESSION_ERROR' },
        });
      }
      return;
    }
    if (this.channels.get(channelId) !== channel) {
      // The connection went away while the env was being built.
      await session.close();
      return;
    }
    channel.session = session;
    const isOpen = (): boolean =>
      this.channels.get(channelId) === channel && this.socket.readyState === this.socket.OPEN;
    session.attach({
      get isOpen() {
        return isOpen();
      },
      send: (reply) => this.post(channelId, reply),
      end: (code, reason) => {
        this.channels.delete(channelId);
        this.post(channelId, { type: 'closed', data: { code, reason } });
      },
    });
    this.post(channelId, { type: 'session', data: session.describe() });
    for (const early of channel.early.splice(0)) session.deliverMessage(early);
  }

  private post(channelId: number | null, reply: Reply): void {
    this.outbox.push(`{"c":${channelId === null ? 'null' : channelId},"m":${JSON.stringify(reply)}}`);
    if (!this.flushing) {
      this.flushing = true;
      // Replies produced during this turn of the event loop (a whole batch of sessions) leave as one frame.
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushing = false;
    if (this.outbox.length === 0) return;
    const batch = this.outbox;
    this.outbox = [];
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > MAX_UNREAD_BYTES) {
      // A client that does not read its replies would make the server hold them all: drop it.
      this.socket.terminate();
      return;
    }
    this.socket.send(`[${batch.join(',')}]`);
  }

  private closeAll(): void {
    const channels = [...this.channels.values()];
    this.channels.clear();
    for (const channel of channels) void channel.session?.close();
  }
}
