import type { Action, EnvSpec, ToolCall } from '@turngym/spec';
import { decodeAction } from './action-codec';
import { mcpToolsOf } from './mcp-tool-actions';
import { toErrorData } from './error-mapping';
import type { HttpContext } from './http-routes';
import { validateJsonRpc } from './message-schemas';
import { encodeStep } from './observation-codec';
import type { ObservationData } from './protocol';

/**
 * MCP protocol versions `POST /mcp` speaks, newest first. It uses only what every one of them has (initialize,
 * ping, tools/list, tools/call answered as JSON, notifications acknowledged with 202), so it can agree to any.
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

type JsonRpcId = string | number | null;

export interface JsonRpcReply {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string };
}

/** What `POST /mcp` answers: a JSON-RPC reply with its HTTP status, or 202 and no body (a notification). */
export type McpAnswer = { status: 200 | 400; reply: JsonRpcReply } | { status: 202 };

/** The request body as read: its JSON, or why it was not JSON. */
export type McpBody = { value: unknown } | { parseError: string };

const failure = (id: JsonRpcId, code: number, message: string): McpAnswer => ({
  status: 200,
  reply: { jsonrpc: '2.0', id, error: { code, message } },
});

/** A JSON-RPC response a client posts (to a server request): acknowledged, as the transport wants, never answered. */
function isClientResponse(message: unknown): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const fields = message as Record<string, unknown>;
  return (
    fields.jsonrpc === '2.0' && !('method' in fields) && 'id' in fields && ('result' in fields || 'error' in fields)
  );
}

/** A JSON-RPC error a method answers with (`-32602` invalid params, `-32600` invalid request …). */
export class McpRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Where MCP methods act: a fresh env per `tools/call` (stateless `POST /mcp`), or a session's episode (the `mcp`
 * message of a `/ws` session, and `POST /mcp` naming a session `openenv/session/create` made).
 */
export interface McpScope {
  readonly spec: EnvSpec;
  /** What `initialize` tells the client about where its calls land. */
  readonly instructions: string;
  /** `tools/call`: one turn with this action, its reply as a step's. */
  step(action: Action): Promise<ObservationData>;
  /** `openenv/session/create` (OpenEnv's extension): `{session_id, …}`. */
  createSession(params: Record<string, unknown>): Promise<unknown>;
  /** `openenv/session/close`: `{session_id, closed: true}`. */
  closeSession(sessionId: string): Promise<unknown>;
  /** A `tools/*` request whose params name a session: answered by that session (HTTP only). */
  inSession?(sessionId: string, request: Record<string, unknown>): Promise<JsonRpcReply>;
  readonly serverVersion: string;
}

/**
 * `initialize`: the version the client asked for when this route speaks it, else the newest it speaks (MCP's
 * negotiation: the client then decides whether it can go on). No `Mcp-Session-Id`: every later request stands
 * alone, as OpenEnv's probe sends them.
 */
function initializeResult(scope: McpScope, params: Record<string, unknown> | undefined): unknown {
  const requested = params?.protocolVersion;
  const protocolVersion =
    typeof requested === 'string' && MCP_PROTOCOL_VERSIONS.includes(requested) ? requested : MCP_PROTOCOL_VERSIONS[0];
  return {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'turngym-env-server', title: `TurnGym ${scope.spec.id}`, version: scope.serverVersion },
    // Said up front because an agent would otherwise expect a tool call to continue the previous one.
    instructions: scope.instructions,
  };
}

/** A JSON-RPC request's reply in a scope (`id` null when the request had none: a WebSocket answers every one). */
export async function answerRpc(scope: McpScope, request: unknown): Promise<JsonRpcReply> {
  let rpc: ReturnType<typeof validateJsonRpc>;
  try {
    rpc = validateJsonRpc(request);
  } catch (error) {
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Invalid Request: ${(error as Error).message}` },
    };
  }
  const id = rpc.id ?? null;
  const params = rpc.params ?? {};
  const reply = (result: unknown): JsonRpcReply => ({ jsonrpc: '2.0', id, result });
  try {
    const sessionId = params.session_id;
    if (scope.inSession && (rpc.method === 'tools/list' || rpc.method === 'tools/call') && sessionId !== undefined) {
      if (typeof sessionId !== 'string')
        throw new McpRequestError(-32602, 'Invalid params: session_id must be a string');
      return await scope.inSession(sessionId, request as Record<string, unknown>);
    }
    switch (rpc.method) {
      case 'initialize':
        return reply(initializeResult(scope, rpc.params));
      case 'ping':
        return reply({});
      case 'tools/list':
        return reply({ tools: mcpToolsOf(scope.spec) });
      case 'tools/call':
        return reply(await callTool(scope, params));
      case 'openenv/session/create':
        return reply(await scope.createSession(params));
      case 'openenv/session/close': {
        const target = params.session_id;
        if (typeof target !== 'string' || target === '')
          throw new McpRequestError(-32602, "Invalid params - 'session_id' is required");
        return reply(await scope.closeSession(target));
      }
      default:
        return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${rpc.method}` } };
    }
  } catch (error) {
    if (error instanceof McpRequestError)
      return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } };
    return { jsonrpc: '2.0', id, error: { code: -32603, message: toErrorData(error).message } };
  }
}

/**
 * `POST /mcp`: MCP over Streamable HTTP (JSON replies only), stateless like OpenEnv's unless a request names a
 * session that `openenv/session/create` made. `initialize` negotiates the protocol version, `ping` answers `{}`,
 * `tools/list` lists the env's tools and `tools/call` takes one step on a fresh env. Notifications (no `id`, e.g.
 * `notifications/initialized`) and a client's JSON-RPC responses get 202 and no body. A request whose
 * `MCP-Protocol-Version` header names a version this route does not speak is a 400, as the transport specifies;
 * without the header the client is taken at its word.
 */
export async function answerMcp(
  context: HttpContext,
  envId: string,
  spec: EnvSpec,
  body: McpBody,
  protocolHeader: string | string[] | undefined,
  endpoint?: string,
): Promise<McpAnswer> {
  if ('parseError' in body) return failure(null, -32700, `Parse error: ${body.parseError}`);
  if (isClientResponse(body.value)) return { status: 202 };
  let rpc: ReturnType<typeof validateJsonRpc>;
  try {
    rpc = validateJsonRpc(body.value);
  } catch (error) {
    return failure(null, -32600, `Invalid Request: ${(error as Error).message}`);
  }
  if (rpc.method !== 'initialize' && protocolHeader !== undefined) {
    const version = Array.isArray(protocolHeader) ? protocolHeader.join(', ') : protocolHeader;
    if (!MCP_PROTOCOL_VERSIONS.includes(version)) {
      return {
        status: 400,
        reply: {
          jsonrpc: '2.0',
          id: rpc.id ?? null,
          error: {
            code: -32600,
            message: `Unsupported MCP-Protocol-Version "${version}"; this server speaks ${MCP_PROTOCOL_VERSIONS.join(', ')}`,
          },
        },
      };
    }
  }
  if (rpc.id === undefined) return { status: 202 };
  return { status: 200, reply: await answerRpc(statelessScope(context, envId, spec, endpoint), rpc) };
}

/** `POST /mcp` without a session: every `tools/call` is one step on a fresh env reset with seed 0. */
function statelessScope(context: HttpContext, envId: string, spec: EnvSpec, endpoint: string | undefined): McpScope {
  return {
    spec,
    serverVersion: context.serverVersion,
    instructions:
      `TurnGym environment ${spec.id}: ${spec.summary} This endpoint is stateless, as OpenEnv's /mcp: every ` +
      'tools/call is one step on a fresh env reset with seed 0, unless its params name a session_id that ' +
      'openenv/session/create returned. To play whole episodes over MCP, connect to the MCP server of ' +
      '`turngym serve --mcp` instead.',
    step: (action) =>
      context.withEnv({ envId }, async (env) => {
        await env.reset({ seed: 0 });
        return encodeStep(await env.step(action), () => '');
      }),
    createSession: (params) => context.openMcpSession(envId, endpoint, params),
    closeSession: (sessionId) => context.closeMcpSession(sessionId, endpoint),
    inSession: async (sessionId, request) => {
      const session = context.mcpSession(sessionId, endpoint);
      if (!session) throw new McpRequestError(-32602, `Unknown session_id: ${sessionId}`);
      const { session_id: _named, ...params } = (request.params ?? {}) as Record<string, unknown>;
      const reply = await session.ask({ type: 'mcp', data: { ...request, params } });
      return reply?.data as JsonRpcReply;
    },
  };
}

/**
 * `tools/call`: the tool's arguments as an action (a tools space's call, or `act`'s action object), one turn in
 * the scope. Its result is MCP's `CallToolResult`: the observation as text, `isError` for an invalid action (the
 * env's feedback, a turn all the same), and the whole step reply as `structuredContent`.
 */
async function callTool(scope: McpScope, params: Record<string, unknown>): Promise<unknown> {
  const spec = scope.spec;
  const name = params.name;
  const args = params.arguments ?? {};
  if (typeof name !== 'string' || typeof args !== 'object' || args === null || Array.isArray(args))
    throw new McpRequestError(-32602, 'Invalid params: expected {name, arguments} with arguments an object');
  const space = spec.actionSpace;
  const known = space.type === 'tools' ? space.tools.map((tool) => tool.name) : ['act'];
  if (!known.includes(name))
    throw new McpRequestError(-32602, `Unknown tool "${name}"; this env's tools: ${known.join(', ')}`);
  let action: Action;
  if (space.type === 'tools') action = { name, arguments: args as Record<string, unknown> } satisfies ToolCall;
  else {
    try {
      action = decodeAction(args, spec, ['params', 'arguments']);
    } catch (error) {
      throw new McpRequestError(-32602, `Invalid params: ${(error as Error).message}`);
    }
  }
  const step = await scope.step(action);
  const observation = 'text' in step.observation ? step.observation.text : step.observation.value;
  const text = typeof observation === 'string' ? observation : JSON.stringify(observation);
  return {
    content: [{ type: 'text', text }],
    isError: step.metadata?.invalidAction === true,
    structuredContent: step,
  };
}
