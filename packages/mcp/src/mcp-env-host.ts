import { randomUUID } from 'node:crypto';
import { NameNotFoundError, type Logger, type Registry } from '@turngym/core';
import { CapacityReachedError, ClientOptionsPolicy, runOwnedBy, systemClock, type ServerClock } from '@turngym/server';
import type { Action, Env, EnvSpec } from '@turngym/spec';
import { EnvToolCatalog } from './env-tool-catalog';
import { McpEnvSession, mcpFaultOwner, type McpSessionConfig, type McpSessionHost } from './mcp-env-session';
import type { McpServeSettings } from './mcp-serve-options';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const SERVER_VERSION = (require('../package.json') as { version: string }).version;

/**
 * What the stdio and HTTP servers share: the served envs (each built once at start, so a typo fails there), the
 * client-option allow-list (the WebSocket server's own policy class), capacity and the idle reaper.
 */
export class McpEnvHost implements McpSessionHost {
  readonly serverVersion = SERVER_VERSION;
  private readonly sessions = new Map<string, McpEnvSession>();
  private readonly specs = new Map<string, EnvSpec>();
  private readonly aliases = new Map<string, string>();
  /** Canonical id (the spec's) → the id it is registered under, for make(). */
  private readonly registered = new Map<string, string>();
  private readonly policy: ClientOptionsPolicy;
  /** Sessions whose env is being built: counted against capacity before they exist. */
  private opening = 0;
  /** Their builds, which close() waits for so that no session joins after it. */
  private readonly building = new Set<Promise<unknown>>();
  private stopReaper: (() => void) | undefined;

  constructor(
    private readonly settings: McpServeSettings,
    private readonly registry: Registry,
    readonly logger: Logger | undefined,
    private readonly clock: ServerClock = systemClock,
    private readonly onSessionClosed?: (session: { sessionId: string; envId: string }) => void,
    /** Called when the reaper closes an idle session (stdio ends the process then). */
    private readonly onIdle?: (session: McpEnvSession) => void,
  ) {
    this.policy = new ClientOptionsPolicy(settings.clientOptions);
  }

  get defaultEnvId(): string {
    return this.resolveEnvId(this.settings.ids[0] as string);
  }

  /** Checks every id (building each env once for its spec) and starts the idle reaper. */
  async start(): Promise<void> {
    for (const id of this.settings.ids) {
      const env = await this.registry.make(id);
      try {
        this.policy.add(env.spec.id, this.registry.get(id));
        this.specs.set(env.spec.id, env.spec);
        this.registered.set(env.spec.id, id);
        this.aliases.set(id, env.spec.id);
        this.aliases.set(env.spec.id, env.spec.id);
      } finally {
        await env.close();
      }
    }
    const idle = this.settings.idleTimeoutMs;
    if (idle > 0)
      this.stopReaper = this.clock.every(Math.max(10, Math.min(1000, Math.floor(idle / 4))), () => this.reap());
  }

  resolveEnvId(id: string): string {
    const known = this.aliases.get(id);
    if (known) return known;
    throw new NameNotFoundError(id, [...this.specs.keys()]);
  }

  async buildEnv(config: McpSessionConfig): Promise<Env<unknown, Action>> {
    const canonical = this.resolveEnvId(config.envId);
    this.policy.check(canonical, config.envOptions, ['params', 'arguments', 'env_options']);
    return this.registry.make(this.registered.get(canonical) as string, {
      ...(config.envOptions ? { options: config.envOptions } : {}),
      ...(config.maxTurns === undefined ? {} : { maxTurns: config.maxTurns }),
    });
  }

  catalogFor(envId: string, spec: EnvSpec): EnvToolCatalog {
    return new EnvToolCatalog(spec, [...this.specs.keys()], this.policy.allowedFor(envId));
  }

  now(): number {
    return this.clock.now();
  }

  liveSessions(): number {
    return this.sessions.size + this.opening;
  }

  session(id: string): McpEnvSession | undefined {
    return this.sessions.get(id);
  }

  /** A new session on a served env (capacity checked first: CAPACITY_REACHED, retryable, when full). */
  async openSession(envId: string, id: string = randomUUID()): Promise<McpEnvSession> {
    const live = this.liveSessions();
    if (live >= this.settings.maxSessions) throw new CapacityReachedError(live, this.settings.maxSessions);
    // Resolved before the slot is taken: an unknown id must not hold a slot forever.
    const canonical = this.resolveEnvId(envId);
    this.opening += 1;
    // The env's constructor may start timers: they belong to the session from the start.
    const build = runOwnedBy(
      mcpFaultOwner(id, () => this.sessions.get(id)),
      () => this.buildEnv({ envId: canonical }),
    );
    this.building.add(build);
    let env: Env<unknown, Action>;
    try {
      env = await build;
    } finally {
      this.opening -= 1;
      this.building.delete(build);
    }
    const session = new McpEnvSession(this, id, { envId: canonical }, env);
    this.sessions.set(id, session);
    return session;
  }

  sessionClosed(session: McpEnvSession): void {
    this.sessions.delete(session.id);
    try {
      this.onSessionClosed?.({ sessionId: session.id, envId: session.envId });
    } catch (error) {
      this.logger?.warn(`onSessionClosed failed: ${String(error)}`);
    }
  }

  /** Stops the reaper and closes every session (each lets its call in flight finish first). */
  async close(): Promise<void> {
    this.stopReaper?.();
    // A session whose env is still being built joins the map once it is: wait, so it is closed with the rest.
    await Promise.allSettled([...this.building]);
    while (this.sessions.size > 0) await Promise.all([...this.sessions.values()].map((session) => session.close()));
  }

  private reap(): void {
    const now = this.clock.now();
    for (const session of this.sessions.values()) {
      if (session.pending === 0 && now - session.lastActivity > this.settings.idleTimeoutMs) {
        void session.close();
        this.onIdle?.(session);
      }
    }
  }
}
