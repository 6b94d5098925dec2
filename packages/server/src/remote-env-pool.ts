import { defineOptions, TurnGymError, type JSONSchemaType } from '@turngym/core';
import { readReplyWithin } from './bounded-reply';
import { NoServerAvailableError } from './server-errors';
import { RemoteEnv, type RemoteEnvOptions } from './remote-env';

/** How a pool watches its servers (JSON, validated with ajv). */
export interface RemoteEnvPoolSettings {
  /** Base URLs of the env servers (as `RemoteEnv.connect` takes them), at least one. */
  urls: string[];
  /** Check every server's `/health` this often (ms); 0: only when `checkHealth()` is called. */
  healthIntervalMs: number;
  /** Longest a health check may take before the server counts as down (ms). */
  healthTimeoutMs: number;
}

export interface RemoteEnvPoolOptions extends Partial<Omit<RemoteEnvPoolSettings, 'urls'>> {
  /** Options of every session the pool opens (a `connect` call may override them). */
  session?: RemoteEnvOptions;
}

const remoteEnvPoolSettingsSchema: JSONSchemaType<RemoteEnvPoolSettings> = {
  type: 'object',
  additionalProperties: false,
  required: ['urls'],
  properties: {
    urls: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    healthIntervalMs: { type: 'integer', minimum: 0, default: 5000 },
    healthTimeoutMs: { type: 'integer', minimum: 1, default: 2000 },
  },
};

const validatePoolSettings = defineOptions<RemoteEnvPoolSettings>('RemoteEnvPool', remoteEnvPoolSettingsSchema);

/** What the pool knows about one server. */
export interface PooledServer {
  readonly url: string;
  /** Up unless its last health check or connect attempt failed. */
  readonly healthy: boolean;
  /** Sessions the pool opened there that are not closed yet (forks included). */
  readonly sessions: number;
  /** Why it is down. */
  readonly lastError?: string;
}

interface ServerState {
  url: string;
  healthy: boolean;
  sessions: number;
  lastError?: string;
}

/** Connect failures that say "this server cannot take the session now" rather than "the request is wrong". */
function isServerFault(error: unknown): boolean {
  return TurnGymError.isInstance(error) && error.isRetryable;
}

/**
 * Many env servers, one client: opens each session on one of several servers and keeps it there (the
 * session is its WebSocket; its forks are claimed on the same server), so a trainer's rollouts spread over a
 * fleet with no load balancer in front.
 *
 * - **Placement**: a new session goes to the healthy server with the fewest open sessions from this pool
 *   (ties in turn).
 * - **Retry on a dead server**: a connect that fails for a server-side reason (refused, closed, 503, capacity)
 *   marks that server down and tries the next, so a new episode never lands on a dead server twice. Sessions
 *   already on a server that dies are not moved (their env state died with it): their next call throws
 *   `EnvFaultError` (retryable), which the rollout collectors record as stopReason `error` — reported, never
 *   scored or trained on.
 * - **Health check**: every `healthIntervalMs`, `GET /health` of each server (`{"status":"healthy"}`, 200);
 *   a server that answers again is used again.
 *
 * `pool.makeEnv` is an env factory for the rollout collectors (`collectChains({ makeEnv: pool.makeEnv, … })`).
 */
export class RemoteEnvPool {
  private readonly states: ServerState[];
  private readonly placement = new WeakMap<RemoteEnv<unknown>, ServerState>();
  private readonly settings: RemoteEnvPoolSettings;
  private turn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    urls: readonly string[],
    private readonly options: RemoteEnvPoolOptions = {},
  ) {
    const settings = validatePoolSettings({
      urls: [...urls],
      ...Object.fromEntries(Object.entries(options).filter(([key, value]) => key !== 'session' && value !== undefined)),
    });
    this.settings = settings;
    this.states = settings.urls.map((url) => ({ url, healthy: true, sessions: 0 }));
    if (settings.healthIntervalMs > 0) {
      this.timer = setInterval(() => void this.checkHealth(), settings.healthIntervalMs);
      this.timer.unref();
    }
  }

  /** An env factory for the rollout collectors: each call opens a session with the pool's options. */
  readonly makeEnv = (): Promise<RemoteEnv> => this.connect();

  /** Opens a session on a healthy server (see the class comment); `NoServerAvailableError` when none takes it. */
  async connect<Obs = string>(overrides: RemoteEnvOptions = {}): Promise<RemoteEnv<Obs>> {
    const options = { ...this.options.session, ...overrides };
    const failures: string[] = [];
    const tried = new Set<ServerState>();
    let checked = false;
    for (;;) {
      let state = this.pick(tried);
      if (!state && !checked) {
        // Every server left is marked down: one may be back before the next scheduled check.
        checked = true;
        await this.checkHealth();
        state = this.pick(tried);
      }
      if (!state) break;
      tried.add(state);
      state.sessions += 1;
      let env: RemoteEnv<Obs>;
      try {
        env = await RemoteEnv.connect<Obs>(state.url, options);
      } catch (error) {
        state.sessions -= 1;
        if (!isServerFault(error)) throw error;
        const message = error instanceof Error ? error.message : String(error);
        failures.push(`${state.url}: ${message}`);
        // A full server is alive: skip it for this session only. Anything else: down until it answers /health.
        if ((error as TurnGymError).code !== 'CAPACITY_REACHED') this.markDown(state, message);
        continue;
      }
      return this.track(env, state);
    }
    throw new NoServerAvailableError(this.states.length, failures);
  }

  /** Asks every server's `/health` now; resolves with the pool's view afterwards. */
  async checkHealth(): Promise<PooledServer[]> {
    await Promise.all(
      this.states.map(async (state) => {
        try {
          const response = await fetch(`${httpBase(state.url)}/health`, {
            signal: AbortSignal.timeout(this.settings.healthTimeoutMs),
          });
          const text = await readReplyWithin(response, MAX_HEALTH_REPLY_BYTES, `${httpBase(state.url)}/health`);
          const body = (parseOrEmpty(text) ?? {}) as { status?: unknown };
          if (response.status === 200 && body.status === 'healthy') {
            state.healthy = true;
            delete state.lastError;
          } else this.markDown(state, `/health answered ${response.status} ${String(body.status ?? '')}`.trim());
        } catch (error) {
          this.markDown(state, `/health failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }),
    );
    return this.servers();
  }

  servers(): PooledServer[] {
    return this.states.map((state) => ({ ...state }));
  }

  /** The URL of the server a session of this pool lives on (forks included). */
  serverOf(env: RemoteEnv<unknown>): string | undefined {
    return this.placement.get(env)?.url;
  }

  /** Stops the health checks. Sessions stay open: they belong to whoever opened them. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private pick(tried: ReadonlySet<ServerState>): ServerState | undefined {
    let best: ServerState | undefined;
    for (let i = 0; i < this.states.length; i += 1) {
      const state = this.states[(this.turn + i) % this.states.length] as ServerState;
      if (!state.healthy || tried.has(state)) continue;
      if (!best || state.sessions < best.sessions) best = state;
    }
    this.turn += 1;
    return best;
  }

  private markDown(state: ServerState, reason: string): void {
    state.healthy = false;
    state.lastError = reason;
  }

  /** Counts the session (and, through `fork`, its forks) on its server until it is closed. */
  private track<Obs>(env: RemoteEnv<Obs>, state: ServerState): RemoteEnv<Obs> {
    this.placement.set(env as RemoteEnv<unknown>, state);
    const close = env.close.bind(env);
    let counted = true;
    env.close = () => {
      if (counted) {
        counted = false;
        state.sessions -= 1;
      }
      return close();
    };
    const fork = env.fork.bind(env);
    env.fork = async () => {
      const twin = await fork();
      state.sessions += 1;
      return this.track(twin, state);
    };
    return env;
  }
}

/** `{"status": "healthy"}` is 20 bytes: a reply past this is no health reply (and is not read further). */
const MAX_HEALTH_REPLY_BYTES = 64 * 1024;

function parseOrEmpty(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `ws://host:8000/ws`, `host:8000`, `http://host:8000/envs/x` → the HTTP base its `/health` hangs off. */
function httpBase(url: string): string {
  const parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`);
  if (parsed.protocol === 'ws:') parsed.protocol = 'http:';
  else if (parsed.protocol === 'wss:') parsed.protocol = 'https:';
  parsed.pathname = parsed.pathname.replace(/\/+$/, '').replace(/\/ws$/, '');
  parsed.search = '';
  return parsed.toString().replace(/\/+$/, '');
}
