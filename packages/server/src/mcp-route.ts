import type { Action, EnvSpec, ToolCall } from '@turngym/spec';
import { decodeAction } from './action-codec';
import { mcpToolsOf } from './env-descriptions';
import { toErrorData } from './error-mapping';
import type { HttpContext } from './http-routes';
import { validateJsonRpc } from './message-schemas';
import { encodeStep } from './observation-codec';

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

const success = (id: JsonRpcId, result: unknown): McpAnswer => ({ status: 200, reply: { jsonrpc: '2.0', id, result } });

/** A JSON-RPC response a client posts (to a server request): acknowledged, as the transport wants, never answered. */
function isClientResponse(message: unknown): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const fields = message as Record<string, unknown>;
  return (
    fields.jsonrpc === '2.0' && !('method' in fields) && 'id' in fields && ('result' in fields || 'error' in fields)
  );
}

/**
 * `initialize`: the version the client asked for when this route speaks it, else the newest it speaks (MCP's
 * negotiation: the client then decides whether it can go on). Stateless, so no `Mcp-Session-Id`: every later
 * request stands alone, as OpenEnv's probe sends them.
 */
function initializeResult(context: HttpContext, spec: EnvSpec, params: Record<string, unknown> | undefined): unknown {
  const requested = params?.protocolVersion;
  const protocolVersion =
    typeof requested === 'string' && MCP_PROTOCOL_VERSIONS.includes(requested) ? requested : MCP_PROTOCOL_VERSIONS[0];
  return {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'turngym-env-server', title: `TurnGym ${spec.id}`, version: context.serverVersion },
    // Said up front because an agent would otherwise expect a tool call to continue the previous one.
    instructions:
      `TurnGym environment ${spec.id}: ${spec.summary} This endpoint is stateless, as OpenEnv's /mcp: every ` +
      'tools/call is one step on a fresh env reset with seed 0. To play whole episodes, connect to the MCP ' +
      'server of `turngym serve --mcp` instead.',
  };
}

/**
 * `POST /mcp`: MCP over Streamable HTTP (JSON replies only), stateless like OpenEnv's. `initialize` negotiates
 * the protocol version, `ping` answers `{}`, `tools/list` lists the env's tools and `tools/call` takes one step
 * on a fresh env. Notifications (no `id`, e.g. `notifications/initialized`) and a client's JSON-RPC responses get
 * 202 and no body. A request whose `MCP-Protocol-Version` header names a version this route does not speak is a
 * 400, as the transport specifies; without the header the client is taken at its word.
 */
export async function answerMcp(
  context: HttpContext,
  envId: string,
  spec: EnvSpec,
  body: McpBody,
  protocolHeader: string | string[] | undefined,
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
  const id = rpc.id;
  switch (rpc.method) {
    case 'initialize':
      return success(id, initializeResult(context, spec, rpc.params));
    case 'ping':
      return success(id, {});
    case 'tools/list':
      return success(id, { tools: mcpToolsOf(spec) });
    case 'tools/call':
      return callTool(context, envId, spec, id, rpc.params);
    default:
      return failure(id, -32601, `Method not found: ${rpc.method}`);
  }
}

/** `tools/call`: the tool's arguments as an action, one step on a fresh env reset with seed 0. */
async function callTool(
  context: HttpContext,
  envId: string,
  spec: EnvSpec,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<McpAnswer> {
  const name = params?.name;
  const args = params?.arguments ?? {};
  if (typeof name !== 'string' || typeof args !== 'object' || args === null || Array.isArray(args))
    return failure(id, -32602, 'Invalid params: expected {name, arguments} with arguments an object');
  const space = spec.actionSpace;
  const known = space.type === 'tools' ? space.tools.map((tool) => tool.name) : ['act'];
  if (!known.includes(name))
    return failure(id, -32602, `Unknown tool "${name}"; this env's tools: ${known.join(', ')}`);
  let action: Action;
  if (space.type === 'tools') action = { name, arguments: args as Record<string, unknown> } satisfies ToolCall;
  else {
    try {
      action = decodeAction(args, spec, ['params', 'arguments']);
    } catch (error) {
      return failure(id, -32602, `Invalid params: ${(error as Error).message}`);
    }
  }
  try {
    const result = await context.withEnv({ envId }, async (env) => {
      await env.reset({ seed: 0 });
      return env.step(action);
    });
    const text = typeof result.observation === 'string' ? result.observation : JSON.stringify(result.observation);
    return success(id, {
      content: [{ type: 'text', text }],
      isError: result.info.invalidAction === true,
      structuredContent: encodeStep(result, () => ''),
    });
  } catch (error) {
    return failure(id, -32603, toErrorData(error).message);
  }
}
