import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createListener, type AddressInfo, type Server as Listener, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { NameNotFoundError, TurnGymError, type Logger, type Registry } from '@turngym/core';
import type { Action, Env, EnvSpec } from '@turngym/spec';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ClientOptionsPolicy } from './client-options';
import { closeEnvWithin } from './close-env-within';
import { refuseConnection, tooManyConnections } from './connection-refusal';
import { runOwnedBy, sessionFaultOwner } from './env-fault-scope';
import { toErrorData } from './error-mapping';
import { frameByteLength } from './frame-text';
import { answerClientError, declaresBodyOver, httpServerOptions } from './http-limits';
import { handleHttp, sendJson, sendPayloadTooLarge, type HttpContext } from './http-routes';
import { loopbackRefusal } from './loopback-guard';
import { McpRequestError } from './mcp-route';
import { validateQuery } from './message-schemas';
import { MuxConnection, type MuxHost } from './mux-connection';
import { connectionsWithinFileLimit } from './open-file-limit';
import { CLOSE_CODES, type ErrorData, type ForkData, type OpenData } from './protocol';
import { parseRoute } from './routes';
import { systemClock, type ServerClock } from './server-clock';
import {
  CapacityReachedError,
  EnvBuildError,
  ListenError,
  SessionNotFoundError,
  UnauthorizedError,
} from './server-errors';
import type { ServeSettings } from './server-options';
import { MAX_PENDING_BYTES, MAX_PENDING_MESSAGES, Session, type SessionHost } from './session';
import { makeOptionsOf, mergeConfig, type SessionConfig } from './session-config';
import { attachWebSocket } from './session-transports';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const SERVER_VERSION = (require('../package.json') as { version: string }).version;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function displayHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Rejects an upgrade before the WebSocket handshake, with an HTTP status and a JSON body. */
function refuseUpgrade(socket: Duplex, status: number, reason: string, body: unknown): void {
  const text = JSON.stringify(body);
  // Upgraded sockets are outside the HTTP server's bookkeeping: destroy it, or close() would wait on it.
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/**
 * The env server: OpenEnv's HTTP routes and `/ws` sessions on one port, for the envs of a registry.
 * Capacity counts every live env (connected sessions, unclaimed forks, envs of stateless HTTP requests and
 * envs being built), so `maxSessions` bounds memory whatever clients do.
 */
export class EnvServer implements SessionHost, HttpContext, MuxHost {
  readonly serverVersion = SERVER_VERSION;
  private readonly sessions = new Map<string, Session>();
  private readonly specs = new Map<string, EnvSpec>();
  private readonly aliases = new Map<string, string>();
  /** Canonical id (the spec's) → the id it is registered under, for make(). */
  private readonly registered = new Map<string, string>();
  private readonly http: Server;
  /** The port's listener (absent on a cluster worker, whose connections the primary accepts). */
  private listener: Listener | undefined;
  /** Connections open now, each counted from `accept` until it closes. */
  private connections = 0;
  /** `maxConnections`, or its default (read once: `accept` asks for it on every connection). */
  private readonly connectionCap: number;
  /** Whether the refusal of a connection over maxConnections was logged since the server was last below it. */
  private refusalLogged = false;
  private readonly wss: WebSocketServer;
  private readonly tokenDigest: Buffer | undefined;
  /** Envs that exist outside `sessions`: being built, or serving a stateless HTTP request. */
  private transient = 0;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly muxConnections = new Set<MuxConnection>();
  /** Sessions `POST /mcp`'s `openenv/session/create` made: the only ones its `session_id` params may name. */
  private readonly mcpSessions = new Set<string>();
  private stopReaper: (() => void) | undefined;
  private stopHeartbeat: (() => void) | undefined;
  /** Connections that answered the last ping (or sent anything) since it left. */
  private readonly alive = new WeakSet<WebSocket>();
  private readonly clientOptions: ClientOptionsPolicy;
  private stopping: Promise<void> | undefined;
  private boundPort = 0;

  constructor(
    private readonly settings: ServeSettings,
    private readonly registry: Registry,
    readonly logger?: Logger,
    private readonly onSessionClosed?: (session: { sessionId: string; envId: string }) => void,
    private readonly clock: ServerClock = systemClock,
    /** Starts every session id (`w1-…` on cluster worker 1), so the cluster's primary can route by id. */
    private readonly sessionIdPrefix = '',
  ) {
    this.clientOptions = new ClientOptionsPolicy(settings.clientOptions);
    // Under a low open-file limit (`ulimit -n 1024`), a cap above it would never fire: descriptors run out first.
    // 40 files for the server's own (stdio, the listener, libuv's); an env's processes and files come on top.
    this.connectionCap =
      settings.maxConnections ??
      Math.min(settings.maxSessions + 1024, connectionsWithinFileLimit(40) ?? Number.MAX_SAFE_INTEGER);
    this.tokenDigest = settings.token === undefined ? undefined : digest(settings.token);
    this.http = createServer(httpServerOptions(settings), (request, response) => this.onRequest(request, response));
    // The WS layer's own cap is generous: frames between the limit and it get a VALIDATION_ERROR reply.
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: settings.maxFrameBytes * 4,
      perMessageDeflate: false,
    });
    this.http.on('upgrade', (request, socket, head) => this.onUpgrade(request, socket, head));
    // `Expect: 100-continue` (curl's way with a large body): go on only for a body the server will read; one over
    // the limit gets its 413 before the client sends a byte of it.
    this.http.on('checkContinue', (request, response) => {
      if (!declaresBodyOver(request, this.maxFrameBytes)) response.writeContinue();
      this.onRequest(request, response);
    });
    this.http.on('clientError', (error, socket) => answerClientError(error, socket));
  }

  get maxFrameBytes(): number {
    return this.settings.maxFrameBytes;
  }

  get shutdownGraceMs(): number {
    return this.settings.shutdownGraceMs;
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `http://${displayHost(this.settings.host)}:${this.boundPort}`;
  }

  get maxConnections(): number {
    return this.connectionCap;
  }

  /** Live envs: sessions (connected or unclaimed forks) plus envs of in-flight HTTP requests. */
  liveSessions(): number {
    return this.sessions.size + this.transient;
  }

  /**
   * Checks every id (building each env once for its spec), then listens; with `listen: false` (a cluster
   * worker) connections arrive through `adopt` instead.
   */
  async start({ listen = true }: { listen?: boolean } = {}): Promise<void> {
    for (const id of this.settings.ids) {
      // With several ids served, a factory's bare error ("no browser installed") must say whose it is.
      const env = await this.registry.make(id).catch((error: unknown) => {
        throw TurnGymError.isInstance(error) ? error : new EnvBuildError(id, error);
      });
      try {
        this.clientOptions.add(env.spec.id, this.registry.get(id));
        this.specs.set(env.spec.id, env.spec);
        this.registered.set(env.spec.id, id);
        this.aliases.set(id, env.spec.id);
        this.aliases.set(env.spec.id, env.spec.id);
      } finally {
        // The spec is read; an env whose close() fails or hangs is logged, and the server starts all the same.
        await closeEnvWithin(env, this.settings.shutdownGraceMs, this.logger, `starting ${id}`);
      }
    }
    if (listen) {
      // A listener of its own rather than http.listen(): every connection passes `accept`, which counts it
      // against maxConnections before the HTTP layer sees it, as a cluster worker's connections do.
      const listener = createListener({ allowHalfOpen: true, noDelay: true }, (socket) =>
        this.accept(socket, Buffer.alloc(0)),
      );
      await new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        // The kernel caps the backlog at net.core.somaxconn. Node's default of 511 makes a burst of thousands
        // of connects (a trainer starting its sessions at once) wait on SYN retries of 1, 3, 7, 15 s.
        listener.listen({ port: this.settings.port, host: this.settings.host, backlog: 65535 }, () => {
          listener.off('error', reject);
          resolve();
        });
      }).catch((error: NodeJS.ErrnoException) => {
        throw new ListenError(this.settings.host, this.settings.port, error);
      });
      // Once listening, an error is one connection the kernel could not hand over (EMFILE: no file descriptor
      // left), not the end of the server: unhandled, it would end the process and every session.
      listener.on('error', (error) => this.logger?.warn(`accepting a connection failed: ${error.message}`));
      this.listener = listener;
      this.boundPort = (listener.address() as AddressInfo).port;
    }
    // Node enforces headersTimeoutMs / requestTimeoutMs only on connections it tracks, and starts tracking when
    // its server emits 'listening'; connections reach this one through `accept`, never through http.listen().
    this.http.emit('listening');
    const horizon = Math.min(
      this.settings.idleTimeoutMs > 0 ? this.settings.idleTimeoutMs : Infinity,
      this.settings.forkTtlMs,
    );
    this.stopReaper = this.clock.every(Math.max(10, Math.min(1000, Math.floor(horizon / 4))), () => this.reap());
    if (this.settings.heartbeatMs > 0) {
      this.stopHeartbeat = this.clock.every(this.settings.heartbeatMs, () => this.beat());
    }
  }

  /**
   * Serves a connection another process accepted (the cluster's primary), with the bytes it already read.
   * Node's HTTP server reads a socket's handle directly, so those bytes are fed to it as a 'data' event
   * right after the connection, before anything the handle reads next.
   */
  adopt(socket: Socket, head: Buffer): void {
    this.accept(socket, head);
  }

  /** Hands a connection to the HTTP layer, or refuses it when the server is stopping or full of connections. */
  private accept(socket: Socket, head: Buffer): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    if (this.connections >= this.maxConnections) {
      // Once per flood, not once per connection: the log must not become the next thing to run out.
      if (!this.refusalLogged)
        this.logger?.warn(
          `refusing connections: ${this.connections} open, maxConnections is ${this.maxConnections} (503 until some close)`,
        );
      this.refusalLogged = true;
      refuseConnection(socket, tooManyConnections(this.maxConnections));
      return;
    }
    this.connections += 1;
    socket.once('close', () => {
      this.connections -= 1;
      if (this.connections < this.maxConnections * 0.9) this.refusalLogged = false;
    });
    this.http.emit('connection', socket);
    if (head.length > 0) socket.emit('data', head);
    socket.resume();
  }

  // ---- SessionHost / HttpContext ----

  now(): number {
    return this.clock.now();
  }

  resolveEnvId(id: string): string {
    const known = this.aliases.get(id);
    if (known) return known;
    // Another spelling of a served id (the registry normalises ids): find it by its registration.
    let registration: unknown;
    try {
      registration = this.registry.get(id);
    } catch {
      registration = undefined;
    }
    for (const served of this.specs.keys()) {
      if (registration !== undefined && this.registry.get(this.registered.get(served) as string) === registration) {
        this.aliases.set(id, served);
        return served;
      }
    }
    throw new NameNotFoundError(id, [...this.specs.keys()]);
  }

  specOf(envId: string): EnvSpec {
    return this.specs.get(this.resolveEnvId(envId)) as EnvSpec;
  }

  envVersion(envId: string): string | undefined {
    const canonical = this.resolveEnvId(envId);
    const registration = this.registry.get(this.registered.get(canonical) as string);
    return registration.packageVersion ?? this.specs.get(canonical)?.packageVersion;
  }

  servedSpecs(): EnvSpec[] {
    return [...this.specs.values()];
  }

  session(sessionId: string): Session | undefined {
    return this.sessions.get(sessionId);
  }

  /**
   * Builds an env for a config. The client's `env_options` pass the allow-list first (a refusal is a
   * VALIDATION_ERROR at `loc`), so an option the operator did not allow never reaches the env. A factory that
   * throws a plain exception is an EnvBuildError (FACTORY_ERROR); its own TurnGymErrors (invalid options, a
   * retryable fault) keep their codes.
   */
  async buildEnv(
    config: SessionConfig,
    loc: readonly (string | number)[] = ['env_options'],
  ): Promise<Env<unknown, Action>> {
    const canonical = this.resolveEnvId(config.envId);
    this.clientOptions.check(canonical, config.envOptions, loc);
    try {
      return await this.registry.make(this.registered.get(canonical) as string, makeOptionsOf(config));
    } catch (error) {
      if (TurnGymError.isInstance(error)) throw error;
      throw new EnvBuildError(canonical, error);
    }
  }

  async openMcpSession(
    envId: string,
    endpoint: string | undefined,
    params: Record<string, unknown>,
  ): Promise<{ session_id: string; env_id: string; seed: number | null }> {
    const unknown = Object.keys(params).filter((key) => key !== 'seed');
    if (unknown.length > 0)
      throw new McpRequestError(
        -32602,
        `Invalid params: openenv/session/create takes only "seed", not "${unknown[0]}"`,
      );
    const seed = params.seed;
    if (seed !== undefined && (!Number.isSafeInteger(seed) || typeof seed !== 'number'))
      throw new McpRequestError(-32602, 'Invalid params: seed must be an integer within ±(2^53 − 1)');
    let session: Session;
    try {
      session = await this.openSession({}, envId, endpoint);
    } catch (error) {
      // OpenEnv answers a full server or an env that cannot be built with its SERVER_ERROR.
      throw new McpRequestError(-32000, toErrorData(error).message);
    }
    this.mcpSessions.add(session.id);
    const reply = await session
      .ask({ type: 'reset', ...(seed === undefined ? {} : { data: { seed } }) })
      .catch((error: unknown) => ({ type: 'error', data: toErrorData(error) }));
    if (reply?.type !== 'observation') {
      await session.close();
      throw new McpRequestError(-32000, `The session's env could not be reset: ${(reply?.data as ErrorData).message}`);
    }
    return { session_id: session.id, env_id: session.envId, seed: session.state.seed };
  }

  mcpSession(sessionId: string, endpoint: string | undefined): Session | undefined {
    const session = this.mcpSessions.has(sessionId) ? this.sessions.get(sessionId) : undefined;
    return session && !session.isClosing && session.endpoint === endpoint ? session : undefined;
  }

  async closeMcpSession(sessionId: string, endpoint: string | undefined): Promise<unknown> {
    const session = this.mcpSession(sessionId, endpoint);
    if (!session) throw new McpRequestError(-32602, `Unknown session_id: ${sessionId}`);
    await session.close(CLOSE_CODES.normal, 'closed by client');
    return { session_id: sessionId, closed: true };
  }

  async withEnv<T>(
    config: SessionConfig,
    body: (env: Env<unknown, Action>) => Promise<T>,
    loc: readonly (string | number)[] = ['body', 'env_options'],
  ): Promise<T> {
    this.claimSlot();
    // The env lives for this request only: a later fault of its code is logged, there is no session to end.
    const owner = { label: `an HTTP request on ${config.envId}` };
    try {
      return await runOwnedBy(owner, async () => {
        const env = await this.buildEnv(config, loc);
        try {
          return await body(env);
        } finally {
          await closeEnvWithin(env, this.settings.shutdownGraceMs, this.logger, `HTTP request on ${config.envId}`);
        }
      });
    } finally {
      this.transient -= 1;
    }
  }

  /**
   * A fresh session for a new connection or channel (capacity checked), or an unclaimed fork to claim.
   * `pathEnvId` is the env id of the path the connection came in on (`/envs/<id>/ws`), if any: the session's
   * endpoint. A fork is claimed on the endpoint of the session it was forked from, as if it did not exist on
   * any other (a proxy may grant a client one env's path and not another's).
   */
  async openSession(data: OpenData, defaultEnvId: string, pathEnvId?: string): Promise<Session> {
    const endpoint = pathEnvId === undefined ? undefined : this.resolveEnvId(pathEnvId);
    if (data.session !== undefined) {
      const fork = this.sessions.get(data.session);
      if (!fork || fork.endpoint !== endpoint || !fork.claim()) throw new SessionNotFoundError(data.session);
      return fork;
    }
    const config = mergeConfig({ envId: defaultEnvId }, data);
    const canonical: SessionConfig = { ...config, envId: this.resolveEnvId(config.envId) };
    this.claimSlot();
    const id = this.newSessionId();
    let env: Env<unknown, Action>;
    try {
      // The env's constructor may start timers: they belong to the session from the start.
      env = await runOwnedBy(
        sessionFaultOwner(`session ${id}`, () => this.sessions.get(id)),
        () => this.buildEnv(canonical, ['data', 'env_options']),
      );
    } finally {
      this.transient -= 1;
    }
    const session = new Session(this, id, canonical, env, undefined, endpoint);
    session.claim();
    this.sessions.set(session.id, session);
    if (this.stopping) void session.close(CLOSE_CODES.goingAway, 'server shutting down');
    return session;
  }

  async fork(parent: Session): Promise<ForkData> {
    this.claimSlot();
    const id = this.newSessionId();
    let env: Env<unknown, Action>;
    try {
      env = await runOwnedBy(
        sessionFaultOwner(`session ${id}`, () => this.sessions.get(id)),
        () => parent.currentEnv.fork(),
      );
    } finally {
      this.transient -= 1;
    }
    const child = new Session(this, id, parent.currentConfig, env, { ...parent.state }, parent.endpoint);
    this.sessions.set(child.id, child);
    if (this.stopping) void child.close();
    return { session_id: child.id, expires_in_ms: this.settings.forkTtlMs };
  }

  sessionClosed(session: Session): void {
    this.sessions.delete(session.id);
    this.mcpSessions.delete(session.id);
    try {
      this.onSessionClosed?.({ sessionId: session.id, envId: session.envId });
    } catch (error) {
      this.logger?.warn(`onSessionClosed failed: ${String(error)}`);
    }
  }

  // ---- lifecycle ----

  /**
   * Graceful shutdown: refuses new work, tells every client (close code 1001), lets requests in flight
   * finish (up to `shutdownGraceMs`), closes every env, then stops listening. Idempotent.
   */
  close(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      this.stopReaper?.();
      this.stopHeartbeat?.();
      // http.close() stops Node's timeout checks (the HTTP server itself never listens); the listener's callback
      // comes once every connection it accepted has closed.
      this.http.close();
      const listening = new Promise<void>((resolve) =>
        this.listener ? this.listener.close(() => resolve()) : resolve(),
      );
      // Connections being set up and HTTP requests in flight may finish first (their envs then close with
      // everything else), but only within the grace: a client that never sends the rest of its body would
      // otherwise hold the shutdown until Node's request timeout. Their connections are cut below.
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.settings.shutdownGraceMs);
        timer.unref();
      });
      await Promise.race([Promise.allSettled([...this.inflight]), grace]);
      clearTimeout(timer);
      while (this.sessions.size > 0) {
        await Promise.all(
          [...this.sessions.values()].map((session) => session.close(CLOSE_CODES.goingAway, 'server shutting down')),
        );
      }
      for (const mux of this.muxConnections) mux.shutdown(CLOSE_CODES.goingAway, 'server shutting down');
      // Give clients a moment to answer the close handshake, then cut whatever is left.
      const clients = [...this.wss.clients];
      const handshakes = Promise.all(
        clients.map(
          (client) =>
            new Promise((resolve) =>
              client.readyState === client.CLOSED ? resolve(undefined) : client.once('close', resolve),
            ),
        ),
      );
      const cutoff = new Promise((resolve) => setTimeout(resolve, 1000).unref());
      await Promise.race([handshakes, cutoff]);
      for (const client of clients) client.terminate();
      this.wss.close();
      this.http.closeIdleConnections();
      this.http.closeAllConnections();
      await listening;
    })();
    return this.stopping;
  }

  private newSessionId(): string {
    return `${this.sessionIdPrefix}${randomUUID()}`;
  }

  private reap(): void {
    const now = this.clock.now();
    for (const session of this.sessions.values()) {
      if (session.isClosing) continue;
      if (!session.isClaimed) {
        if (now - session.createdAt > this.settings.forkTtlMs) void session.close();
      } else if (
        this.settings.idleTimeoutMs > 0 &&
        session.pending === 0 &&
        now - session.lastActivity > this.settings.idleTimeoutMs
      ) {
        void session.close(CLOSE_CODES.goingAway, 'idle timeout');
      }
    }
  }

  /**
   * The `ws` library's heartbeat: a connection that neither answered the last ping nor sent a frame since is
   * cut (its 'close' ends its sessions). A peer that vanished without a FIN (a killed VM, a pulled cable) would
   * otherwise hold its session until the idle timeout. Any frame counts as life, so a client busy streaming
   * messages is never cut for a pong stuck behind them.
   */
  private beat(): void {
    for (const client of this.wss.clients) {
      if (!this.alive.has(client)) {
        client.terminate();
        continue;
      }
      this.alive.delete(client);
      client.ping();
    }
  }

  /** Starts the heartbeat bookkeeping of a new connection. */
  private watch(ws: WebSocket): void {
    this.alive.add(ws);
    const live = (): void => void this.alive.add(ws);
    ws.on('pong', live);
    ws.on('message', live);
  }

  /** Counts an env about to exist outside `sessions`; throws CAPACITY_REACHED when there is no room. */
  private claimSlot(): void {
    const live = this.liveSessions();
    if (live >= this.settings.maxSessions) throw new CapacityReachedError(live, this.settings.maxSessions);
    this.transient += 1;
  }

  private track<T>(work: Promise<T>): void {
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work));
  }

  private authorized(request: IncomingMessage, token: string | undefined): boolean {
    if (!this.tokenDigest) return true;
    const header = request.headers.authorization;
    const bearer = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim())?.[1] : undefined;
    const offered = bearer ?? token;
    return offered !== undefined && timingSafeEqual(digest(offered), this.tokenDigest);
  }

  private onRequest(request: IncomingMessage, response: ServerResponse): void {
    // A cluster worker answers each HTTP request on its own connection: the primary routes a connection by its
    // first request line, so a kept-alive connection would carry the next session's side request to this
    // worker even when another one holds that session.
    if (this.sessionIdPrefix !== '') response.setHeader('connection', 'close');
    // Before the route or the token: a body over the limit is refused on any path, before a byte of it is read
    // (answered after auth, Node would read all of it to keep the connection for the next request).
    if (declaresBodyOver(request, this.maxFrameBytes)) return sendPayloadTooLarge(response, this.maxFrameBytes);
    const url = new URL(request.url ?? '/', 'http://server');
    const route = parseRoute(url.pathname);
    if (!route) return sendJson(response, 404, { detail: 'Not Found' });
    let query: ReturnType<typeof validateQuery>;
    try {
      query = validateQuery(Object.fromEntries(url.searchParams), ['query']);
    } catch (error) {
      const data = toErrorData(error);
      return sendJson(response, 422, { detail: data.errors ?? data.message });
    }
    const isHealth = route.kind === 'env' && route.route === 'health';
    const refused = isHealth ? undefined : loopbackRefusal(this.settings.host, request.headers);
    if (refused) return sendJson(response, 403, { detail: refused });
    if (!isHealth && !this.authorized(request, query.token)) {
      return sendJson(response, 401, { detail: new UnauthorizedError().message }, { 'www-authenticate': 'Bearer' });
    }
    if (this.stopping && !isHealth) return sendJson(response, 503, { detail: 'The server is shutting down' });
    const envId = (route.kind === 'env' ? route.envId : undefined) ?? query.env ?? (this.settings.ids[0] as string);
    this.track(handleHttp(this, route, envId, request, response));
  }

  private onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const url = new URL(request.url ?? '/', 'http://server');
    const route = parseRoute(url.pathname);
    if (!route || route.kind !== 'env' || (route.route !== 'ws' && route.route !== 'mux')) {
      return refuseUpgrade(socket, 404, 'Not Found', { detail: 'Not Found' });
    }
    let query: ReturnType<typeof validateQuery>;
    try {
      query = validateQuery(Object.fromEntries(url.searchParams), ['query']);
    } catch (error) {
      const data = toErrorData(error);
      return refuseUpgrade(socket, 422, 'Unprocessable Entity', { detail: data.errors ?? data.message });
    }
    const refused = loopbackRefusal(this.settings.host, request.headers);
    if (refused) return refuseUpgrade(socket, 403, 'Forbidden', { detail: refused });
    if (!this.authorized(request, query.token)) {
      return refuseUpgrade(socket, 401, 'Unauthorized', { detail: new UnauthorizedError().message });
    }
    if (this.stopping)
      return refuseUpgrade(socket, 503, 'Service Unavailable', { detail: 'The server is shutting down' });
    const envId = route.envId ?? query.env ?? (this.settings.ids[0] as string);
    if (route.route === 'mux') {
      this.wss.handleUpgrade(request, socket, head, (ws) => {
        this.watch(ws);
        const mux = new MuxConnection(this, ws, envId, route.envId);
        this.muxConnections.add(mux);
        ws.once('close', () => this.muxConnections.delete(mux));
      });
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.watch(ws);
      this.track(this.onConnection(ws, envId, route.envId, query.session));
    });
  }

  /** A new `/ws` connection: claims a fork, or builds a fresh env (OpenEnv: one env per connection). */
  private async onConnection(
    ws: WebSocket,
    envId: string,
    pathEnvId: string | undefined,
    claim: string | undefined,
  ): Promise<void> {
    ws.on('error', () => undefined);
    // Messages that arrive while the env is being built (a browser may take seconds to start) are kept, in order,
    // for the session, within the bounds a session's own queue has: a client that floods them is cut.
    const early: RawData[] = [];
    let earlyBytes = 0;
    const keep = (raw: RawData): void => {
      earlyBytes += frameByteLength(raw);
      if (early.length < MAX_PENDING_MESSAGES && earlyBytes <= Math.max(MAX_PENDING_BYTES, this.maxFrameBytes)) {
        early.push(raw);
        return;
      }
      ws.off('message', keep);
      early.length = 0;
      const data: ErrorData = { message: 'Too many messages waiting for replies', code: 'SESSION_ERROR' };
      ws.send(JSON.stringify({ type: 'error', data }));
      ws.close(CLOSE_CODES.normal, 'too many messages in flight');
    };
    ws.on('message', keep);
    let session: Session;
    try {
      session = await this.openSession(claim === undefined ? {} : { session: claim }, envId, pathEnvId);
    } catch (error) {
      const data: ErrorData = toErrorData(error);
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'error', data }));
      ws.close(data.code === 'CAPACITY_REACHED' ? CLOSE_CODES.tryAgainLater : CLOSE_CODES.normal);
      return;
    }
    ws.off('message', keep);
    if (ws.readyState !== ws.OPEN || this.stopping) {
      // The client left while its env was being built (or the server is stopping): nobody will claim it.
      await session.close(CLOSE_CODES.goingAway, 'server shutting down');
      return;
    }
    attachWebSocket(session, ws);
    for (const raw of early) session.deliverFrame(raw);
  }
}
