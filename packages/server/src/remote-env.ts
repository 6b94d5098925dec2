import { EnvBusyError, EnvClosedError, type BudgetLimits } from '@turngym/core';
import type { Action, Env, EnvSpec, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { decodeAction, encodeAction } from './action-codec';
import { fromErrorData } from './error-mapping';
import { inProcessSessions } from './internal/in-process-sessions';
import { requestSync } from './internal/sync-http';
import { decodeReset, decodeStep } from './observation-codec';
import type {
  ErrorData,
  ForkData,
  ObservationData,
  SessionConfigData,
  SessionData,
  StateData,
  WireAction,
} from './protocol';
import { MuxClient } from './mux-client';
import { RemoteConnection } from './remote-connection';
import type { SessionLink } from './reply-queue';
import { RemoteProtocolError } from './server-errors';

export interface RemoteEnvOptions {
  /** Which of the server's envs to run (default: the one the URL names, else the server's first). */
  envId?: string;
  /** Bearer token, if the server requires one. */
  token?: string;
  /** Longest wait for any reply, connecting included (ms). Default 60 000, OpenEnv's per-message timeout. */
  timeoutMs?: number;
  /** Options for the server's `make()` (validated there against the env's schema). */
  envOptions?: Record<string, unknown>;
  /** Turn limit (default: the env's own). */
  maxTurns?: number;
  /** Per-episode budgets, enforced on the server. */
  budget?: BudgetLimits;
  /**
   * Share one connection (`/mux`) among all multiplexed RemoteEnvs of this process that talk to the same URL,
   * batching their messages: far fewer writes when many sessions run at once (see the README's figures).
   * Off by default: one connection per session is OpenEnv's model, and what connection-level load
   * balancers spread over servers; a shared connection lands every session on one server process.
   */
  multiplex?: boolean;
}

/** Where a server lives: its WebSocket URLs and the HTTP base of its side routes. */
interface Endpoint {
  /** `/ws` URL of a session of its own (`?env=` / `?session=` included). */
  readonly wsUrl: string;
  /** `/mux` URL (no query: the env id or fork travels in `open`). */
  readonly muxUrl: string;
  readonly envId: string | undefined;
  readonly claim: string | undefined;
  readonly httpBase: string;
}

/**
 * `http://host:8000`, `ws://host:8000/ws`, `host:8000/envs/turngym/example-v1` … → the `/ws` URL (with
 * `?env=` when an id is given) and the HTTP base the same path prefix implies, as OpenEnv's client derives them.
 */
function endpointOf(url: string, envId: string | undefined, claim?: string): Endpoint {
  const parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `ws://${url}`);
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  else if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  else if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:')
    throw new RangeError(`RemoteEnv: unsupported URL scheme in "${url}"`);
  let path = parsed.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/ws')) path = `${path}/ws`;
  parsed.pathname = path;
  if (envId !== undefined) parsed.searchParams.set('env', envId);
  if (claim !== undefined) {
    parsed.searchParams.delete('env');
    parsed.searchParams.set('session', claim);
  }
  const mux = new URL(parsed.toString());
  mux.pathname = `${path.slice(0, -'/ws'.length)}/mux`;
  mux.search = '';
  const base = new URL(mux.toString());
  base.protocol = parsed.protocol === 'wss:' ? 'https:' : 'http:';
  base.pathname = path.slice(0, -'/ws'.length);
  return {
    wsUrl: parsed.toString(),
    muxUrl: mux.toString(),
    envId: parsed.searchParams.get('env') ?? undefined,
    claim,
    httpBase: base.toString().replace(/\/+$/, ''),
  };
}

function configOf(options: RemoteEnvOptions): SessionConfigData | undefined {
  const data: SessionConfigData = {
    ...(options.envOptions ? { env_options: options.envOptions } : {}),
    ...(options.maxTurns === undefined ? {} : { max_turns: options.maxTurns }),
    ...(options.budget
      ? {
          budget: {
            ...(options.budget.maxToolCalls === undefined ? {} : { max_tool_calls: options.budget.maxToolCalls }),
            ...(options.budget.maxLlmTokens === undefined ? {} : { max_llm_tokens: options.budget.maxLlmTokens }),
          },
        }
      : {}),
  };
  return Object.keys(data).length > 0 ? data : undefined;
}

/**
 * An env served by a TurnGym env server, behind the Env v1 interface: the checker, `runEpisode`, benchmarks
 * and trainers use it like a local env. reset/step/fork/close go over the session's WebSocket.
 *
 * The two synchronous hooks work like this:
 * - `anchor()` answers from the last reply (the server sends the anchor of every state it reaches);
 * - `fingerprint(action)` is cached per state; on a miss it asks the server over a blocking side request
 *   (`POST <base>/sessions/<id>/fingerprint`, ~0.2–1 ms), or calls the session directly when the server runs in
 *   this very thread. Behind a load balancer, that side request needs sticky routing to reach the session's
 *   process; `fingerprints(actions)` asks over the WebSocket instead (async, batched), and every step's
 *   `info.fingerprint` carries the fingerprint of the action taken.
 * Call the hooks between awaited calls, not while a step is in flight (the state they see would be a race).
 */
export class RemoteEnv<Obs = string> implements Env<Obs, Action> {
  private lastAnchor: string | undefined;
  private fingerprintCache = new Map<string, string>();
  private closing: Promise<void> | undefined;
  /** The step or reset awaiting its reply: another call meanwhile is ENV_BUSY, as on a local env (`BaseEnv`). */
  private inFlight: 'step' | 'reset' | undefined;

  private constructor(
    private readonly connection: SessionLink,
    private readonly endpoint: Endpoint,
    private readonly options: RemoteEnvOptions,
    private readonly session: SessionData,
  ) {}

  /** Opens a session on the server at `url` (http(s):// or ws(s):// base URL, with or without `/ws`). */
  static async connect<Obs = string>(url: string, options: RemoteEnvOptions = {}): Promise<RemoteEnv<Obs>> {
    return RemoteEnv.open<Obs>(endpointOf(url, options.envId), options, configOf(options));
  }

  private static async open<Obs>(
    endpoint: Endpoint,
    options: RemoteEnvOptions,
    config: SessionConfigData | undefined,
  ): Promise<RemoteEnv<Obs>> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    if (options.multiplex) {
      const mux = await MuxClient.shared(endpoint.muxUrl, { token: options.token, timeoutMs });
      const { link, session } = await mux.open({
        ...config,
        ...(endpoint.claim !== undefined
          ? { session: endpoint.claim }
          : endpoint.envId !== undefined
            ? { env_id: endpoint.envId }
            : {}),
      });
      return new RemoteEnv<Obs>(link, endpoint, options, session);
    }
    const connection = await RemoteConnection.open(endpoint.wsUrl, { token: options.token, timeoutMs });
    try {
      const reply = await connection.request({ type: 'session', ...(config ? { data: config } : {}) });
      return new RemoteEnv<Obs>(connection, endpoint, options, reply.data as SessionData);
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }

  get spec(): EnvSpec {
    return this.session.spec as unknown as EnvSpec;
  }

  /** The server's id of this session (a fork is a new session). */
  get sessionId(): string {
    return this.session.session_id;
  }

  get unwrapped(): Env<Obs, Action> {
    return this;
  }

  async reset(args: ResetArgs = {}): Promise<ResetResult<Obs>> {
    this.assertOpen();
    this.assertIdle('reset');
    const data = {
      ...(args.seed === undefined ? {} : { seed: args.seed }),
      ...(args.options === undefined ? {} : { options: args.options }),
    };
    this.inFlight = 'reset';
    try {
      const reply = (await this.connection.request({ type: 'reset', data })).data as ObservationData;
      const result = decodeReset(reply);
      this.enter(result.info.anchor, reply.anchor);
      return result as ResetResult<Obs>;
    } finally {
      this.inFlight = undefined;
    }
  }

  async step(action: Action): Promise<StepResult<Obs>> {
    this.assertOpen();
    this.assertIdle('step');
    this.inFlight = 'step';
    try {
      const reply = (await this.connection.request({ type: 'step', data: encodeAction(action) }))
        .data as ObservationData;
      const result = decodeStep(reply);
      this.enter(result.info.anchor, reply.anchor);
      return result as StepResult<Obs>;
    } finally {
      this.inFlight = undefined;
    }
  }

  /** A new server session at exactly this state (the server forks the env; this client claims it). */
  async fork(): Promise<RemoteEnv<Obs>> {
    this.assertOpen();
    // Forks of one state may run side by side (a tree's branches); a fork mid-step would copy a state in motion.
    this.assertIdle('fork');
    const fork = (await this.connection.request({ type: 'fork' })).data as ForkData;
    const claim = endpointOf(this.endpoint.wsUrl, undefined, fork.session_id);
    const twin = await RemoteEnv.open<Obs>(claim, this.options, undefined);
    twin.lastAnchor = this.lastAnchor;
    twin.fingerprintCache = new Map(this.fingerprintCache);
    return twin;
  }

  fingerprint(action: Action): string {
    const wire = encodeAction(action);
    const key = JSON.stringify(wire);
    const cached = this.fingerprintCache.get(key);
    if (cached !== undefined) return cached;
    this.assertOpen();
    const local = inProcessSessions().get(this.sessionId);
    const value = local
      ? local.fingerprint(decodeAction(wire, this.spec))
      : this.sideRequest<{ fingerprint: string }>('POST', 'fingerprint', { action: wire }).fingerprint;
    this.fingerprintCache.set(key, value);
    return value;
  }

  /** Fingerprints of many actions in the current state, in one WebSocket round trip (fills the cache). */
  async fingerprints(actions: readonly Action[]): Promise<string[]> {
    this.assertOpen();
    const wire: WireAction[] = actions.map(encodeAction);
    const reply = (await this.connection.request({ type: 'fingerprint', data: { actions: wire } })).data as {
      fingerprints: string[];
    };
    wire.forEach((action, i) => this.fingerprintCache.set(JSON.stringify(action), reply.fingerprints[i] as string));
    return reply.fingerprints;
  }

  anchor(): string {
    if (this.lastAnchor !== undefined) return this.lastAnchor;
    this.assertOpen();
    const local = inProcessSessions().get(this.sessionId);
    this.lastAnchor = local ? local.anchor() : this.sideRequest<{ anchor: string }>('GET', 'anchor').anchor;
    return this.lastAnchor;
  }

  /** OpenEnv's `state`: episode id, step count, plus env id, session id, seed, done. */
  async state(): Promise<StateData> {
    this.assertOpen();
    return (await this.connection.request({ type: 'state' })).data as StateData;
  }

  /** Ends the session (the server closes the env). Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.connection.close();
    return this.closing;
  }

  private enter(infoAnchor: unknown, wireAnchor: string | undefined): void {
    this.fingerprintCache.clear();
    this.lastAnchor = typeof infoAnchor === 'string' ? infoAnchor : wireAnchor;
  }

  private assertOpen(): void {
    if (this.closing) throw new EnvClosedError(this.spec.id);
  }

  /**
   * Two overlapping calls would each get a reply, but the anchor and fingerprint cache would follow whichever
   * landed last, and the server would apply them in arrival order: one caller's step would act on the other's state.
   */
  private assertIdle(call: string): void {
    if (this.inFlight) throw new EnvBusyError(this.spec.id, call, this.inFlight);
  }

  private sideRequest<T>(method: 'GET' | 'POST', operation: 'fingerprint' | 'anchor', body?: unknown): T {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.token !== undefined) headers.authorization = `Bearer ${this.options.token}`;
    const response = requestSync({
      method,
      url: `${this.endpoint.httpBase}/sessions/${encodeURIComponent(this.sessionId)}/${operation}`,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeoutMs: this.options.timeoutMs ?? 60_000,
    });
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(response.body) as Record<string, unknown>;
    } catch {
      throw new RemoteProtocolError(`HTTP_${response.status}`, `${operation}: the server's answer is not JSON`);
    }
    if (response.status === 200) return parsed as T;
    // HTTP errors carry the same fields as WS error data, with the message as `detail`.
    const detail = parsed.detail;
    const message =
      typeof detail === 'string'
        ? detail
        : Array.isArray(detail)
          ? detail.map((item) => (item as { msg?: string }).msg).join('; ')
          : `HTTP ${response.status}`;
    throw fromErrorData({
      ...(parsed as Partial<ErrorData>),
      message,
      ...(Array.isArray(detail) ? { errors: detail } : {}),
    });
  }
}
