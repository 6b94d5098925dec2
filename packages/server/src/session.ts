import type { Logger } from '@turngym/core';
import type { Action, Env, EnvSpec, StepResult } from '@turngym/spec';
import type { RawData } from 'ws';
import { decodeAction } from './action-codec';
import { closeEnvWithin } from './close-env-within';
import { runOwnedBy, sessionFaultOwner, type EnvFaultOwner } from './env-fault-scope';
import { toErrorData } from './error-mapping';
import { checkJsonDepth } from './json-depth';
import { frameByteLength, frameText, NOT_UTF8 } from './frame-text';
import { inProcessSessions } from './internal/in-process-sessions';
import { answerRpc, McpRequestError, type McpScope } from './mcp-route';
import { calledTool, callToolReply, isListTools, listToolsReply } from './mcp-tool-actions';
import { validateMessage } from './message-schemas';
import { encodeReset, encodeStep } from './observation-codec';
import {
  CLOSE_CODES,
  type ErrorData,
  type ForkData,
  type SessionConfigData,
  type SessionData,
  type StateData,
} from './protocol';
import { SessionNotFoundError } from './server-errors';
import { configData, mergeConfig, sameConfig, type SessionConfig } from './session-config';

/** What a session needs from its server. */
export interface SessionHost {
  /** The canonical id of a served env; throws NameNotFoundError (FACTORY_ERROR) for any other. */
  resolveEnvId(id: string): string;
  /**
   * Builds an env for a config (served ids only); throws FACTORY/VALIDATION errors, and a VALIDATION_ERROR at
   * `loc` for an env option clients may not set.
   */
  buildEnv(config: SessionConfig, loc?: readonly (string | number)[]): Promise<Env<unknown, Action>>;
  /** Registers a forked env as a new, unclaimed session; throws CapacityReachedError when full. */
  fork(parent: Session): Promise<ForkData>;
  /** Called once the session's env is closed. */
  sessionClosed(session: Session): void;
  /** MCP's `openenv/session/close` of a session `POST /mcp` created on `endpoint`; throws McpRequestError. */
  closeMcpSession(sessionId: string, endpoint: string | undefined): Promise<unknown>;
  /** The server's clock (ms): idleness and fork age are measured on it. */
  now(): number;
  readonly maxFrameBytes: number;
  readonly shutdownGraceMs: number;
  readonly serverVersion: string;
  readonly logger?: Logger | undefined;
}

/** Episode bookkeeping for OpenEnv's `state` message. */
export interface EpisodeState {
  episodeId: string;
  stepCount: number;
  seed: number | null;
  done: boolean;
  resets: number;
}

export type Reply = { type: string; data: unknown };

/** Messages a session holds before it answers them; a client past this is flooding, not waiting. */
export const MAX_PENDING_MESSAGES = 1024;

/**
 * Bytes of frames a session holds before it answers them (or one frame of `maxFrameBytes`, if larger): 1024
 * frames of the largest size would be gigabytes per session while a slow step holds the queue.
 */
export const MAX_PENDING_BYTES = 64 * 1024 * 1024;

/**
 * Where a session's replies go: its own WebSocket (`/ws`, OpenEnv's model) or a channel of a multiplexed
 * connection (`/mux`). `end` closes the transport for this session only.
 */
export interface SessionTransport {
  readonly isOpen: boolean;
  send(reply: Reply): void;
  end(code: number, reason: string): void;
}

function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * One env and the connection that drives it (OpenEnv: the WebSocket connection is the session; TurnGym's
 * `/mux` also carries many sessions on one connection, one per channel). Messages are handled strictly in
 * order, one at a time, so replies come back in request order as OpenEnv's client expects; an error reply
 * never ends the session, except for a frame that is not a JSON object (SESSION_ERROR, as in OpenEnv).
 * A fork is a session without a transport until a client claims it.
 */
export class Session {
  readonly createdAt: number;
  lastActivity: number;
  /** Messages received and not yet answered. */
  pending = 0;
  /** Their frames' bytes, held until each is handled (`/ws` only: `/mux` bounds its own frames). */
  private pendingBytes = 0;
  private transport: SessionTransport | undefined;
  /** Taken by the first client to open or claim the session, before the `await` that attaches its transport. */
  private claimed = false;
  private queue: Promise<void> = Promise.resolve();
  private closing = false;
  private closed: Promise<void> | undefined;
  /** What this session's env code runs as: a fault of it outside any request ends this session only. */
  readonly faultOwner: EnvFaultOwner;

  constructor(
    private readonly host: SessionHost,
    readonly id: string,
    private config: SessionConfig,
    private env: Env<unknown, Action>,
    readonly state: EpisodeState = { episodeId: `${id}:0`, stepCount: 0, seed: null, done: false, resets: 0 },
    /**
     * The canonical id of the env whose path (`/envs/<id>/ws`, `/envs/<id>/mux`) the session was opened on, or
     * undefined for the server's own paths (`/ws`, `/mux`). Its forks are claimed on that path only: a proxy may
     * grant a client one env's path and not another's.
     */
    readonly endpoint: string | undefined = undefined,
  ) {
    this.createdAt = host.now();
    this.lastActivity = this.createdAt;
    const self = new WeakRef<Session>(this);
    this.faultOwner = sessionFaultOwner(`session ${id}`, () => self.deref());
    inProcessSessions().set(id, {
      fingerprint: (action) => this.env.fingerprint(action),
      anchor: () => this.env.anchor(),
    });
  }

  get attached(): boolean {
    return this.transport !== undefined;
  }

  /** True once a client has taken the session (its transport may still be on the way). */
  get isClaimed(): boolean {
    return this.claimed;
  }

  /**
   * Takes the session for one client; false if another took it first. Synchronous, so two claims of one fork
   * racing through the same turn of the event loop (two `open`s in one `/mux` frame) cannot both succeed.
   */
  claim(): boolean {
    if (this.claimed || this.closing) return false;
    this.claimed = true;
    return true;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  get spec(): EnvSpec {
    return this.env.spec;
  }

  get envId(): string {
    return this.config.envId;
  }

  /** The current env (the server's HTTP side channel evaluates fingerprint/anchor on it). */
  get currentEnv(): Env<unknown, Action> {
    return this.env;
  }

  get currentConfig(): SessionConfig {
    return this.config;
  }

  /** Binds the session to its transport; from here on, the transport's end is the session's end. */
  attach(transport: SessionTransport): void {
    this.claimed = true;
    this.transport = transport;
    this.lastActivity = this.host.now();
  }

  /** A raw WebSocket frame (`/ws`): checked for size and parsed here, in turn with the other messages. */
  deliverFrame(raw: RawData): void {
    const size = frameByteLength(raw);
    // Refused in turn (replies keep their order), without holding the frame until then.
    if (size > this.host.maxFrameBytes) {
      this.enqueue(async () => this.refuseFrame(size));
      return;
    }
    this.enqueue(() => this.processFrame(raw), size);
  }

  /** A message already parsed by a multiplexed connection (`/mux`). */
  deliverMessage(message: unknown): void {
    this.enqueue(() => this.processMessage(message));
  }

  /** Queues `work` (holding `bytes` of frame until it is done), unless the client floods the session. */
  private enqueue(work: () => Promise<void>, bytes = 0): boolean {
    this.lastActivity = this.host.now();
    const byteLimit = Math.max(MAX_PENDING_BYTES, this.host.maxFrameBytes);
    const flooding =
      this.pending >= MAX_PENDING_MESSAGES
        ? `More than ${MAX_PENDING_MESSAGES} messages waiting for replies`
        : this.pendingBytes + bytes > byteLimit
          ? `More than ${byteLimit} bytes of messages waiting for replies`
          : undefined;
    if (flooding) {
      // Clients wait for each reply (OpenEnv's does); one that floods would grow this queue without bound.
      if (!this.closing) {
        this.sendError({ message: flooding, code: 'SESSION_ERROR' });
        void this.close(CLOSE_CODES.normal, 'too many messages in flight');
      }
      return false;
    }
    this.pending += 1;
    this.pendingBytes += bytes;
    this.queue = this.queue.then(async () => {
      try {
        if (!this.closing) await runOwnedBy(this.faultOwner, work);
      } catch (error) {
        this.host.logger?.error(`session ${this.id}: ${(error as Error)?.stack ?? String(error)}`);
      } finally {
        this.pending -= 1;
        this.pendingBytes -= bytes;
        this.lastActivity = this.host.now();
      }
    });
    return true;
  }

  private refuseFrame(size: number): void {
    const message = `Frame of ${size} bytes exceeds the server's limit of ${this.host.maxFrameBytes} bytes`;
    this.sendError({
      message,
      code: 'VALIDATION_ERROR',
      errors: [{ type: 'frame_too_large', loc: [], msg: message }],
    });
  }

  private async processFrame(raw: RawData): Promise<void> {
    const text = frameText(raw);
    if (text === undefined) {
      this.sendError({ message: NOT_UTF8, code: 'INVALID_JSON' });
      return;
    }
    let message: unknown;
    try {
      checkJsonDepth(text, []);
    } catch (error) {
      this.sendError(toErrorData(error));
      return;
    }
    try {
      message = JSON.parse(text);
    } catch (error) {
      this.sendError({ message: `Invalid JSON: ${(error as Error).message}`, code: 'INVALID_JSON' });
      return;
    }
    await this.processMessage(message);
  }

  private async processMessage(message: unknown): Promise<void> {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      // OpenEnv ends the session here: such a client is not speaking the protocol at all.
      this.sendError({ message: 'A message must be a JSON object with a "type"', code: 'SESSION_ERROR' });
      this.closing = true;
      void this.close(CLOSE_CODES.normal, 'protocol error');
      return;
    }
    try {
      const reply = await this.dispatch(message as Record<string, unknown>);
      if (reply) this.send(reply);
    } catch (error) {
      this.sendError(toErrorData(error));
    }
  }

  private async dispatch(message: Record<string, unknown>): Promise<Reply | undefined> {
    const type = message.type;
    switch (type) {
      case 'step': {
        const { data } = validateMessage.step(message);
        // OpenEnv's ListToolsAction asks what the tools are: answered from the spec, no turn taken, before a reset too.
        if (isListTools(data, ['data']))
          return { type: 'observation', data: listToolsReply(this.env.spec, this.state.done) };
        const reply = encodeStep(await this.takeTurn(decodeAction(data, this.env.spec)), () => this.env.anchor());
        const toolName = calledTool(data);
        return { type: 'observation', data: toolName === undefined ? reply : callToolReply(reply, toolName) };
      }
      case 'mcp': {
        const { data } = validateMessage.mcp(message);
        return { type: 'mcp', data: await answerRpc(this.mcpScope(), data) };
      }
      case 'reset': {
        const data = validateMessage.reset(message).data ?? {};
        await this.reconfigure(data);
        const result = await this.env.reset({
          ...(data.seed === undefined ? {} : { seed: data.seed }),
          ...(data.options === undefined ? {} : { options: data.options }),
        });
        this.state.resets += 1;
        // The seed the env reports using (`info.seed`: a seedless reset draws one), so the episode can be replayed.
        const reported = (result.info as { seed?: unknown } | undefined)?.seed;
        const unwrappedSeed = (this.env.unwrapped as { seed?: unknown } | undefined)?.seed;
        this.state.episodeId = data.episode_id ?? `${this.id}:${this.state.resets}`;
        this.state.stepCount = 0;
        this.state.seed =
          data.seed ??
          (typeof reported === 'number' ? reported : typeof unwrappedSeed === 'number' ? unwrappedSeed : null);
        this.state.done = false;
        return { type: 'observation', data: encodeReset(result, () => this.env.anchor()) };
      }
      case 'state':
        validateMessage.state(message);
        return { type: 'state', data: this.stateData() };
      case 'close':
        validateMessage.close(message);
        this.closing = true;
        void this.close(CLOSE_CODES.normal, 'closed by client');
        return undefined;
      case 'session': {
        const { data } = validateMessage.session(message);
        await this.reconfigure(data ?? {});
        return { type: 'session', data: this.describe() };
      }
      case 'fork':
        validateMessage.fork(message);
        return { type: 'fork', data: await this.host.fork(this) };
      case 'fingerprint': {
        const { data } = validateMessage.fingerprint(message);
        const actions = data.actions.map((action, i) => decodeAction(action, this.env.spec, ['data', 'actions', i]));
        return { type: 'fingerprint', data: { fingerprints: actions.map((action) => this.env.fingerprint(action)) } };
      }
      case 'anchor':
        validateMessage.anchor(message);
        return { type: 'anchor', data: { anchor: this.env.anchor() } };
      default: {
        const shown = typeof type === 'string' ? type : type === undefined ? '' : JSON.stringify(type);
        const error: ErrorData = { message: `Unknown message type: ${shown}`, code: 'UNKNOWN_TYPE' };
        return { type: 'error', data: error };
      }
    }
  }

  /** One turn of the episode, with its bookkeeping: every way of stepping (a `step`, MCP's `tools/call`) comes here. */
  private async takeTurn(action: Action): Promise<StepResult<unknown>> {
    const result = await this.env.step(action);
    this.state.stepCount += 1;
    this.state.done = result.terminated || result.truncated;
    return result;
  }

  /**
   * MCP JSON-RPC over this session (`{"type": "mcp"}`, and `POST /mcp` naming it): `tools/call` is the episode's next
   * turn; `openenv/session/create` names this session, which only its connection's end closes.
   */
  private mcpScope(): McpScope {
    return {
      spec: this.env.spec,
      serverVersion: this.host.serverVersion,
      instructions:
        `TurnGym environment ${this.env.spec.id}: ${this.env.spec.summary} Every tools/call is the next turn of ` +
        "this session's episode.",
      step: async (action) => {
        const result = await this.takeTurn(action);
        return encodeStep(result, () => this.env.anchor());
      },
      createSession: async () => ({ session_id: this.id, env_id: this.config.envId }),
      closeSession: async (sessionId) => {
        if (sessionId === this.id)
          throw new McpRequestError(-32600, 'Cannot close active WebSocket-managed session via MCP method');
        return this.host.closeMcpSession(sessionId, this.endpoint);
      },
    };
  }

  /**
   * Handles a message in turn with the others and resolves with its reply, for a session no connection carries (one
   * that `POST /mcp`'s `openenv/session/create` made). A session past its queue's bounds refuses, as it would a
   * connection's.
   */
  ask(message: Record<string, unknown>): Promise<Reply | undefined> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const queued = this.enqueue(async () => {
        answered = true;
        try {
          resolve(await this.dispatch(message));
        } catch (error) {
          reject(error);
        }
      });
      // Refused, or the session closed before its turn came: the work never ran.
      if (!queued || this.closing) return reject(new SessionNotFoundError(this.id));
      void this.queue.then(() => {
        if (!answered) reject(new SessionNotFoundError(this.id));
      });
    });
  }

  /** The `session` reply: ids, the env's spec, the config it was built from. */
  describe(): SessionData & { config: SessionConfigData } {
    return {
      session_id: this.id,
      env_id: this.config.envId,
      spec: this.env.spec as unknown as Record<string, unknown>,
      config: configData(this.config),
    };
  }

  stateData(): StateData {
    return {
      episode_id: this.state.episodeId,
      step_count: this.state.stepCount,
      env_id: this.config.envId,
      session_id: this.id,
      seed: this.state.seed,
      done: this.state.done,
    };
  }

  /** Rebuilds the env when the client asks for another id, other options, turn limit or budget. */
  private async reconfigure(data: SessionConfigData): Promise<void> {
    const next = mergeConfig(this.config, {
      ...(data.env_id === undefined ? {} : { env_id: this.host.resolveEnvId(data.env_id) }),
      ...(data.env_options === undefined ? {} : { env_options: data.env_options }),
      ...(data.max_turns === undefined ? {} : { max_turns: data.max_turns }),
      ...(data.budget === undefined ? {} : { budget: data.budget }),
    });
    if (sameConfig(next, this.config)) return;
    const env = await this.host.buildEnv(next, ['data', 'env_options']);
    const previous = this.env;
    this.env = env;
    this.config = next;
    this.state.episodeId = `${this.id}:${this.state.resets}`;
    this.state.stepCount = 0;
    this.state.seed = null;
    this.state.done = false;
    await this.closeEnv(previous);
  }

  private send(reply: Reply): void {
    if (this.transport?.isOpen) this.transport.send(reply);
  }

  private sendError(data: ErrorData): void {
    this.send({ type: 'error', data });
  }

  /**
   * Ends the session: stops taking messages, lets the request in flight finish and send its reply (up to the
   * shutdown grace), closes the connection if still open, then closes the env. Idempotent; resolves when the
   * env is closed.
   */
  close(code: number = CLOSE_CODES.normal, reason = ''): Promise<void> {
    if (this.closed) return this.closed;
    this.closing = true;
    this.closed = (async () => {
      try {
        const grace = delay(this.host.shutdownGraceMs);
        await Promise.race([this.queue, grace.promise]);
        grace.cancel();
        inProcessSessions().delete(this.id);
        if (this.transport?.isOpen) this.transport.end(code, reason);
        await this.closeEnv(this.env);
      } finally {
        // Whatever the env or the transport did, the slot is freed: a leaked one would fill maxSessions.
        this.host.sessionClosed(this);
      }
    })();
    return this.closed;
  }

  /**
   * The env threw outside any request (an exception from its timer): its state is suspect, so the session ends
   * (close code 1011, after the request in flight, if any, within the grace). Other sessions go on.
   */
  fail(): void {
    if (this.closing) return;
    void this.close(CLOSE_CODES.internalError, 'the env failed outside a request');
  }

  /** Closes an env within the shutdown grace; a close that throws or hangs is logged, never waited on. */
  private closeEnv(env: Env<unknown, Action>): Promise<void> {
    return runOwnedBy(this.faultOwner, () =>
      closeEnvWithin(env, this.host.shutdownGraceMs, this.host.logger, `session ${this.id}`),
    );
  }
}
