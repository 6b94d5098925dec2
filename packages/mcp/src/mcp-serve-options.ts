import { defineOptions, type JSONSchemaType, type Logger, type Registry } from '@turngym/core';
import { serveSettingsSchema, type ClientOptionsWidening, type ServerClock } from '@turngym/server';

/**
 * The JSON part of `serveMcp`/`serveMcpStdio` options, validated with ajv (defaults filled). Capacity, idle
 * timeout, token, client-option allow-list and body limit mean what they mean for the WebSocket server
 * (`serveEnvs`), and their schemas are the WebSocket server's own, so the two cannot drift.
 */
export interface McpServeSettings {
  /** Env ids to serve; the first is the env of `/mcp` (and of a stdio session until `reset` names another). */
  ids: string[];
  /** TCP port (HTTP only); 0 picks a free one (read it back from the handle). */
  port: number;
  /** Interface to bind (HTTP only). Loopback by default: expose it deliberately, behind a token. */
  host: string;
  /** Most MCP sessions alive at once; one more `initialize` gets HTTP 503 and CAPACITY_REACHED. */
  maxSessions: number;
  /**
   * Close a session (and its env) after this long without a request (ms); 0 never does. Over stdio the MCP
   * host owns the process, so the server then ends (the host starts a new one when it needs it).
   */
  idleTimeoutMs: number;
  /** Env options clients may set beyond each env's safe subset (`turngym serve --client-options`). */
  clientOptions?: ClientOptionsWidening;
  /** Bearer token every HTTP request must carry; unset: no auth. Stdio has no network peer and no token. */
  token?: string;
  /** Largest HTTP request body served, in bytes (413 beyond). */
  maxFrameBytes: number;
  /** Longest an HTTP request's headers may take to arrive (ms), capped by `requestTimeoutMs`; 408 beyond. */
  headersTimeoutMs: number;
  /** Longest a whole HTTP request, headers and body, may take to arrive (ms); 408 beyond. */
  requestTimeoutMs: number;
  /**
   * Most TCP connections open at once (HTTP only); one more is answered 503 (a JSON-RPC error naming the limit,
   * Retry-After: 1) and closed, so clients that leak connections cannot use up the process's file descriptors and
   * lock everyone out. Default: `maxSessions` + 1024, fewer under a lower open-file limit, as the WebSocket server's.
   */
  maxConnections?: number;
}

export interface McpServeOptions extends Partial<Omit<McpServeSettings, 'ids'>> {
  ids: string[];
  /** Where the ids are registered (default: core's process-wide registry). */
  registry?: Registry;
  /** Where faults that reach no client go (an env whose close() throws …). Default: silent. */
  logger?: Logger;
  /** The idle reaper's clock (default: the system clock); tests move their own. */
  clock?: ServerClock;
  /** Called once a session's env is closed (client gone, idle, shutdown): for metrics and tests. */
  onSessionClosed?: (session: { sessionId: string; envId: string }) => void;
}

const shared = serveSettingsSchema.properties;

export const mcpServeSettingsSchema: JSONSchemaType<McpServeSettings> = {
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: {
    ids: shared.ids,
    port: shared.port,
    host: shared.host,
    maxSessions: shared.maxSessions,
    idleTimeoutMs: shared.idleTimeoutMs,
    clientOptions: shared.clientOptions,
    token: shared.token,
    maxFrameBytes: shared.maxFrameBytes,
    headersTimeoutMs: shared.headersTimeoutMs,
    requestTimeoutMs: shared.requestTimeoutMs,
    maxConnections: shared.maxConnections,
  },
} as JSONSchemaType<McpServeSettings>;

export const validateMcpServeSettings = defineOptions<McpServeSettings>('serveMcp', mcpServeSettingsSchema);
