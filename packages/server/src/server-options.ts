import { defineOptions, type JSONSchemaType, type Logger, type Registry } from '@turngym/core';
import type { ClientOptionsWidening } from './client-options';
import type { ServerClock } from './server-clock';

/** The JSON part of `serveEnvs` options, validated with ajv (defaults filled). */
export interface ServeSettings {
  /** Env ids to serve; the first is the default of a session that names none. */
  ids: string[];
  /** TCP port; 0 picks a free one (read it back from the handle). */
  port: number;
  /** Interface to bind. The default is loopback only: expose it deliberately (0.0.0.0) behind a token. */
  host: string;
  /** Most sessions alive at once (connected sessions plus unclaimed forks). More get CAPACITY_REACHED. */
  maxSessions: number;
  /**
   * Most TCP connections open at once (HTTP, WebSocket and `/mux` alike); one more is answered 503 and closed.
   * An idle connection costs only a socket, but a `/mux` connection with no channel open lives as long as its
   * client answers pings, so without a cap a client that leaks them holds file descriptors until the process has
   * none left, and then no one, not even `/health`, gets through. Default: `maxSessions` + 1024, room for every
   * session's own connection and as many more for HTTP requests, probes and clients being refused; fewer where the
   * process's open-file limit is lower (Linux: 90% of what the limit leaves), or the cap would never fire.
   */
  maxConnections?: number;
  /** Close a session after this long without a message (ms); 0 never does. */
  idleTimeoutMs: number;
  /**
   * WebSocket ping interval (ms): a connection that answered neither the last ping nor sent anything since is
   * cut, so a peer that vanished without closing frees its sessions within two intervals. 0: no pings.
   */
  heartbeatMs: number;
  /**
   * Env options clients may set beyond what each env declares safe (its registration's `clientOptions`):
   * option names, `["*"]` for all, or a JSON Schema whose `properties` add or replace options. Default: only
   * the env's own safe subset.
   */
  clientOptions?: ClientOptionsWidening;
  /** Bearer token every route but /health requires; unset: no auth. */
  token?: string;
  /**
   * Largest client frame (and HTTP body) served, in bytes. A bigger frame gets a VALIDATION_ERROR reply and the
   * session goes on; one over 4× the limit is cut off by the WebSocket layer (close code 1009).
   */
  maxFrameBytes: number;
  /**
   * Longest a request's headers may take to arrive (ms), capped by `requestTimeoutMs`; a slower one is answered
   * 408 and its connection closed. Node's own default: a connect burst of thousands can leave a client late.
   */
  headersTimeoutMs: number;
  /**
   * Longest a whole HTTP request, headers and body, may take to arrive (ms): a client that trickles its body,
   * or never ends it, is answered 408 and cut, rather than holding a socket for Node's 300 s.
   */
  requestTimeoutMs: number;
  /** How long an unclaimed fork waits for its client (ms). */
  forkTtlMs: number;
  /** On close(), how long in-flight requests may finish before their envs are closed anyway (ms). */
  shutdownGraceMs: number;
}

export interface ServeOptions extends Partial<Omit<ServeSettings, 'ids'>> {
  ids: string[];
  /** Called once a session's env is closed (client gone, idle, dead peer, shutdown): for metrics and tests. */
  onSessionClosed?: (session: { sessionId: string; envId: string }) => void;
  /**
   * Where the idle reaper, fork expiry and heartbeat read time and schedule their ticks (default: the system
   * clock). Tests inject a clock they move themselves, so a timeout fires when the test says, not when a
   * loaded machine happens to stall.
   */
  clock?: ServerClock;
  /** Where the ids are registered (default: core's process-wide registry). */
  registry?: Registry;
  /** Where faults that reach no client go (an env whose close() throws …). Default: silent. */
  logger?: Logger;
}

export const serveSettingsSchema: JSONSchemaType<ServeSettings> = {
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: {
    ids: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
    host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    maxSessions: { type: 'integer', minimum: 1, maximum: 1000000, default: 256 },
    maxConnections: { type: 'integer', minimum: 1, maximum: 1000000, nullable: true },
    idleTimeoutMs: { type: 'integer', minimum: 0, default: 600000 },
    heartbeatMs: { type: 'integer', minimum: 0, maximum: 3600000, default: 10000 },
    clientOptions: {
      type: ['array', 'object'],
      nullable: true,
      anyOf: [
        { type: 'array', items: { type: 'string', minLength: 1 } },
        {
          type: 'object',
          required: ['properties'],
          properties: { properties: { type: 'object', required: [] } },
        },
      ],
    } as never,
    token: { type: 'string', minLength: 1, nullable: true },
    maxFrameBytes: { type: 'integer', minimum: 1024, maximum: 1073741824, default: 1048576 },
    headersTimeoutMs: { type: 'integer', minimum: 1, maximum: 3600000, default: 60000 },
    requestTimeoutMs: { type: 'integer', minimum: 1, maximum: 3600000, default: 60000 },
    forkTtlMs: { type: 'integer', minimum: 1, default: 60000 },
    shutdownGraceMs: { type: 'integer', minimum: 0, default: 5000 },
  },
};

export const validateServeSettings = defineOptions<ServeSettings>('serveEnvs', serveSettingsSchema);
