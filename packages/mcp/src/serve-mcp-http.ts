import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createListener, type AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { registry as defaultRegistry, TurnGymError } from '@turngym/core';
import {
  answerClientError,
  connectionsWithinFileLimit,
  declaresBodyOver,
  decodeUtf8,
  httpServerOptions,
  leavesChunkedBodyUnread,
  loopbackRefusal,
  parseRoute,
  refuseConnection,
  toErrorData,
  tooManyConnections,
  UnauthorizedError,
} from '@turngym/server';
import { normaliseAccept } from './accept-header';
import { McpEnvHost } from './mcp-env-host';
import { validateMcpServeSettings, type McpServeOptions } from './mcp-serve-options';

/** A running MCP server over Streamable HTTP. */
export interface McpServerHandle {
  /** The MCP endpoint of the first served env, e.g. `http://127.0.0.1:8000/mcp` (others: `/envs/<id>/mcp`). */
  readonly url: string;
  readonly port: number;
  /** Most TCP connections served at once before one more is answered 503 (`maxConnections` or its default). */
  readonly maxConnections: number;
  /** Closes every session (and its env), then stops listening. Idempotent. */
  close(): Promise<void>;
  /** MCP sessions alive right now (each holds one env). */
  liveSessions(): number;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    // Refused before its chunked body was read (401, 404 …): closed, or Node would read all of it to go on.
    ...(leavesChunkedBodyUnread(response) ? { connection: 'close' } : {}),
    ...headers,
  });
  response.end(text);
}

/** A JSON-RPC error as an HTTP reply (the SDK's transport answers the same way for its own refusals). */
function sendRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  data?: unknown,
  headers: Record<string, string> = {},
): void {
  sendJson(
    response,
    status,
    { jsonrpc: '2.0', id: null, error: { code, message, ...(data === undefined ? {} : { data }) } },
    headers,
  );
}

class BodyTooLargeError extends TurnGymError {
  constructor(limit: number) {
    super('INVALID_REQUEST', `Request body exceeds the server's limit of ${limit} bytes`);
  }
}

/** The body's bytes (413 past the limit); decoded by the caller, which answers bad UTF-8 as a parse error. */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  if (declaresBodyOver(request, limit)) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * `/mcp` is the first served env; `/envs/<id>/mcp` (the id percent-encoded or not) any served env, read as the
 * WebSocket server reads its `/envs/<id>/ws`.
 */
function envOfPath(pathname: string): { envId?: string } | undefined {
  const route = parseRoute(pathname);
  if (route?.kind !== 'env' || route.route !== 'mcp') return undefined;
  return route.envId === undefined ? {} : { envId: route.envId };
}

/**
 * Serves registered envs to MCP clients over Streamable HTTP: every MCP session (an `initialize` without a
 * session id) builds its own env, and the env's tools, `reset` and `act` become the session's MCP tools.
 * Capacity, idle timeout, token and the client-option allow-list are the WebSocket server's. When bound to
 * loopback, requests must name a loopback host, so a web page cannot reach the server through DNS rebinding.
 *
 * ```ts
 * const server = await serveMcp({ registry, ids: ['turngym/example-v1'], port: 8001 });
 * const client = new Client({ name: 'agent', version: '1' });
 * await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
 * ```
 */
export async function serveMcp(options: McpServeOptions): Promise<McpServerHandle> {
  const { registry = defaultRegistry, logger, clock, onSessionClosed, ...rest } = options;
  const settings = validateMcpServeSettings(
    Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
  );
  const host = new McpEnvHost(settings, registry, logger, clock, onSessionClosed);
  await host.start();
  const tokenDigest = settings.token === undefined ? undefined : digest(settings.token);
  /**
   * Live sessions by id, each with the env of the endpoint that opened it: a session answers on that endpoint
   * only, so a client cannot drive the session of one env through another env's URL (a proxy may well grant a
   * client one env's path and not another's).
   */
  const transports = new Map<string, { transport: StreamableHTTPServerTransport; endpoint: string }>();
  /** The canonical id of the env a path serves; undefined for an id this server does not serve. */
  const endpointOf = (route: { envId?: string }): string | undefined => {
    try {
      return host.resolveEnvId(route.envId ?? host.defaultEnvId);
    } catch {
      return undefined;
    }
  };
  let port = 0;
  let stopping: Promise<void> | undefined;

  const authorized = (request: IncomingMessage, url: URL): boolean => {
    if (!tokenDigest) return true;
    const header = request.headers.authorization;
    const bearer = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim())?.[1] : undefined;
    const offered = bearer ?? url.searchParams.get('token') ?? undefined;
    return offered !== undefined && timingSafeEqual(digest(offered), tokenDigest);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    // Refused on any path, before the token and before a byte of the body is read (after a 401, Node would read
    // all of it to keep the connection).
    if (declaresBodyOver(request, settings.maxFrameBytes)) {
      return sendRpcError(response, 413, -32600, new BodyTooLargeError(settings.maxFrameBytes).message, undefined, {
        connection: 'close',
      });
    }
    const url = new URL(request.url ?? '/', 'http://server');
    if (url.pathname === '/health') return sendJson(response, 200, { status: 'healthy' });
    const route = envOfPath(url.pathname);
    if (!route) return sendJson(response, 404, { detail: 'Not Found' });
    // DNS rebinding: MCP's transport spec asks servers to check Host and Origin.
    const refused = loopbackRefusal(settings.host, request.headers);
    if (refused) return sendJson(response, 403, { detail: refused });
    if (!authorized(request, url)) {
      return sendRpcError(response, 401, -32001, new UnauthorizedError().message, { code: 'UNAUTHORIZED' });
    }
    if (stopping) return sendRpcError(response, 503, -32000, 'The server is shutting down');
    normaliseAccept(request);
    let body: unknown;
    if (request.method === 'POST') {
      let bytes: Buffer;
      try {
        bytes = await readBody(request, settings.maxFrameBytes);
      } catch (error) {
        // The rest of the body is still on its way: the connection cannot carry another request, so the client
        // is told not to reuse it (otherwise its next request meets a reset socket).
        if (error instanceof BodyTooLargeError) {
          return sendRpcError(response, 413, -32600, error.message, undefined, { connection: 'close' });
        }
        throw error;
      }
      const text = decodeUtf8(bytes);
      if (text === undefined) return sendRpcError(response, 400, -32700, 'Parse error: the body is not valid UTF-8');
      try {
        body = JSON.parse(text);
      } catch (error) {
        return sendRpcError(response, 400, -32700, `Parse error: ${(error as Error).message}`);
      }
      // JSON that is no JSON-RPC message (`"jsonrpc": "1.0"`, an `id` of null, a bare number, an empty batch) is
      // an Invalid Request, as JSON-RPC 2.0 says; the SDK's transport would call it a Parse error, and a client
      // would look for a fault in its JSON encoding.
      const messages = Array.isArray(body) ? body : [body];
      if (messages.length === 0 || !messages.every((message) => JSONRPCMessageSchema.safeParse(message).success)) {
        const why = messages.length === 0 ? 'an empty batch' : 'not a JSON-RPC 2.0 message';
        return sendRpcError(response, 400, -32600, `Invalid Request: ${why}`);
      }
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const entry = transports.get(sessionId);
      // Another endpoint's session is not found here, as the MCP spec answers an unknown session (404).
      if (!entry || entry.endpoint !== endpointOf(route)) {
        return sendRpcError(response, 404, -32001, `Session not found: ${sessionId}`);
      }
      return entry.transport.handleRequest(request, response, body);
    }
    if (request.method === 'POST' && Array.isArray(body) && body.some((message) => isInitializeRequest(message))) {
      // MCP (2025-03-26, the last revision with batches) forbids initialize in a batch: say so, rather than
      // "start with initialize" to a client that did.
      return sendRpcError(response, 400, -32600, 'Invalid Request: initialize must be sent alone, not in a batch');
    }
    if (request.method !== 'POST' || !isInitializeRequest(body)) {
      return sendRpcError(response, 400, -32000, 'Bad Request: no valid mcp-session-id (start with initialize)');
    }
    // close() may have begun while the body was read; a session opened from here on is one close() waits for.
    if (stopping) return sendRpcError(response, 503, -32000, 'The server is shutting down');
    let session: Awaited<ReturnType<McpEnvHost['openSession']>>;
    try {
      session = await host.openSession(route.envId ?? host.defaultEnvId);
    } catch (error) {
      const data = toErrorData(error);
      const status = data.code === 'CAPACITY_REACHED' ? 503 : data.code === 'FACTORY_ERROR' ? 404 : 400;
      return sendRpcError(response, status, -32000, data.message, data);
    }
    if (stopping) {
      await session.close(); // already closing with the host's other sessions
      return sendRpcError(response, 503, -32000, 'The server is shutting down');
    }
    // The session's env as opened, before any reset names another: the endpoint it belongs to.
    const endpoint = session.envId;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => session.id,
      // One JSON reply per request: an env step is one answer, and it saves the SSE framing.
      enableJsonResponse: true,
      onsessioninitialized: (id) => void transports.set(id, { transport, endpoint }),
    });
    transport.onclose = () => void transports.delete(session.id);
    await session.connect(transport);
    await transport.handleRequest(request, response, body);
    // An initialize the transport refused (a bad protocol header …) leaves no session a client could name.
    if (!transports.has(session.id)) await session.close();
  };

  const http = createServer(httpServerOptions(settings), (request, response) => {
    handle(request, response).catch((error: unknown) => {
      // The client left (or was cut for its slowness) before its request was read: nobody to answer or blame.
      if (request.destroyed && !request.complete) return;
      logger?.error(`MCP request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!response.headersSent) sendRpcError(response, 500, -32603, 'Internal error');
      else response.end();
    });
  });
  // `Expect: 100-continue`: go on only for a body the server will read (one over the limit gets its 413 first).
  http.on('checkContinue', (request, response) => {
    if (!declaresBodyOver(request, settings.maxFrameBytes)) response.writeContinue();
    http.emit('request', request, response);
  });
  // Too slow, headers too large, not HTTP: a JSON-RPC error, as the transport answers its own refusals.
  http.on('clientError', (error, socket) =>
    answerClientError(error, socket, (message) => ({ jsonrpc: '2.0', id: null, error: { code: -32600, message } })),
  );
  // A listener of its own, as the WebSocket server's: every connection is counted against maxConnections before
  // the HTTP layer sees it, and one over the cap is answered 503 rather than left to use up file descriptors.
  const maxConnections =
    settings.maxConnections ?? Math.min(settings.maxSessions + 1024, connectionsWithinFileLimit(40) ?? Infinity);
  let connections = 0;
  let refusalLogged = false;
  const listener = createListener({ allowHalfOpen: true, noDelay: true }, (socket) => {
    if (stopping) return void socket.destroy();
    if (connections >= maxConnections) {
      // Once per flood, not once per connection: the log must not become the next thing to run out.
      if (!refusalLogged)
        logger?.warn(
          `refusing connections: ${connections} open, maxConnections is ${maxConnections} (503 until some close)`,
        );
      refusalLogged = true;
      refuseConnection(socket, tooManyConnections(maxConnections), (message) => ({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message },
      }));
      return;
    }
    connections += 1;
    socket.once('close', () => {
      connections -= 1;
      if (connections < maxConnections * 0.9) refusalLogged = false;
    });
    http.emit('connection', socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(settings.port, settings.host, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  // Once listening, an error is one connection the kernel could not hand over (EMFILE), not the server's end.
  listener.on('error', (error) => logger?.warn(`accepting a connection failed: ${error.message}`));
  // Node enforces headersTimeoutMs / requestTimeoutMs only on a server that emitted 'listening'.
  http.emit('listening');
  port = (listener.address() as AddressInfo).port;
  const shown =
    settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return {
    url: `http://${shown}:${port}/mcp`,
    port,
    maxConnections,
    liveSessions: () => host.liveSessions(),
    close: () => {
      stopping ??= (async () => {
        const listening = new Promise<void>((resolve) => listener.close(() => resolve()));
        // Stops Node's timeout checks (the HTTP server itself never listens).
        http.close();
        await host.close();
        http.closeIdleConnections();
        http.closeAllConnections();
        await listening;
      })();
      return stopping;
    },
  };
}
