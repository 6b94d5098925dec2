import type { EnvSpec, ToolSpec } from '@turngym/spec';
import type { ObservationData } from './protocol';
import { requestValidator } from './request-validation';
import { InvalidRequestError } from './server-errors';

/**
 * OpenEnv's MCP actions (`mcp_types.py`: `ListToolsAction`, `CallToolAction`), which its `MCPToolClient` sends as
 * the `data` of a `step` message: `{"type": "list_tools"}` and `{"type": "call_tool", "tool_name": …, "arguments":
 * {…}}`. A call is the TurnGym tool form under other names, so it is one ordinary turn; the list is not an action.
 */

/** MCP tools of an env: its own tools, or one `act` tool taking the raw text (or index). */
export function mcpToolsOf(
  spec: EnvSpec,
): Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> {
  const space = spec.actionSpace;
  if (space.type === 'tools')
    return space.tools.map((tool: ToolSpec) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters,
    }));
  const property =
    space.type === 'discrete'
      ? { index: { type: 'integer', minimum: 0, maximum: space.n - 1 } }
      : { text: { type: 'string' } };
  return [
    {
      name: 'act',
      description: `Take one turn in ${spec.id}: ${spec.summary}`,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: Object.keys(property),
        properties: property,
      },
    },
  ];
}

const metadata = { type: 'object', description: "OpenEnv's Action.metadata; accepted and ignored." };

const validateListTools = requestValidator<{ type: 'list_tools' }>(
  {
    type: 'object',
    additionalProperties: false,
    required: ['type'],
    properties: { type: { const: 'list_tools' }, metadata },
  },
  'Invalid action',
);

const validateCallTool = requestValidator<{ type: 'call_tool'; tool_name: string; arguments?: unknown }>(
  {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'tool_name'],
    properties: {
      type: { const: 'call_tool' },
      tool_name: { type: 'string', minLength: 1 },
      // An object, or a JSON string of one (as the tool form takes it); the tool form checks it.
      arguments: { type: ['object', 'string'] },
      metadata,
    },
  },
  'Invalid action',
);

/** Whether an action object is OpenEnv's `ListToolsAction` (checked: a malformed one is a VALIDATION_ERROR). */
export function isListTools(data: unknown, loc: readonly (string | number)[]): boolean {
  if (typeof data !== 'object' || data === null || (data as { type?: unknown }).type !== 'list_tools') return false;
  validateListTools(data, loc);
  return true;
}

/** The name of the tool an action object calls, when it is OpenEnv's `CallToolAction`. */
export function calledTool(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || (data as { type?: unknown }).type !== 'call_tool') return undefined;
  const name = (data as { tool_name?: unknown }).tool_name;
  return typeof name === 'string' ? name : '';
}

/**
 * A `CallToolAction` as the wire action it stands for: on a tools space, the tool form `{"tool", "arguments"}`
 * (an unknown tool or bad arguments are then the env's ordinary feedback, as in-process); on any other space the
 * one tool `list_tools` offers, `act`, whose arguments are the action object (`{"text"}` or `{"index"}`). Any other
 * tool there is a VALIDATION_ERROR naming `act`, as the tool form is refused on such a space.
 */
export function callToolAsWireAction(
  data: unknown,
  spec: EnvSpec,
  loc: readonly (string | number)[],
): Record<string, unknown> {
  const call = validateCallTool(data, loc);
  const args = call.arguments ?? {};
  if (spec.actionSpace.type === 'tools') return { tool: call.tool_name, arguments: args };
  if (call.tool_name !== 'act') {
    const message = `Unknown tool "${call.tool_name}": ${spec.id} has no tools; call "act" with the action as its arguments (${JSON.stringify(mcpToolsOf(spec)[0]?.inputSchema)})`;
    throw new InvalidRequestError(`Invalid action: ${message}`, [
      { type: 'value_error', loc: [...loc, 'tool_name'], msg: message, input: call.tool_name },
    ]);
  }
  if (typeof args !== 'object' || args === null)
    throw new InvalidRequestError('Invalid action: the arguments of "act" must be an object', [
      { type: 'dict_type', loc: [...loc, 'arguments'], msg: 'arguments must be object', input: args },
    ]);
  return args as Record<string, unknown>;
}

/**
 * The reply to `list_tools`, as OpenEnv serialises a `ListToolsObservation`: `{"observation": {"tools": [{name,
 * description, input_schema}]}, "reward": null, "done"}`. `done` is the episode's, which the list does not change.
 */
export function listToolsReply(spec: EnvSpec, done: boolean): ObservationData {
  const tools = mcpToolsOf(spec).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  return { observation: { tools } as unknown as ObservationData['observation'], reward: null, done };
}

/**
 * A step's reply with OpenEnv's `CallToolObservation` keys added to its observation (`tool_name`, `result`,
 * `error`), so `MCPToolClient` reads it as one; `text` / `value` stay for every other client. `result` has the
 * shape of FastMCP's `CallToolResult`, whose `data` `MCPToolClient.call_tool` returns: the observation. An
 * invalid call is the env's feedback (`is_error`), not a framework `error`, since it was a turn of the episode.
 */
export function callToolReply(step: ObservationData, toolName: string): ObservationData {
  const wire = step.observation as { text?: string; value?: unknown };
  const observation = 'text' in wire ? wire.text : wire.value;
  const text = typeof observation === 'string' ? observation : JSON.stringify(observation);
  const result = {
    content: [{ type: 'text', text }],
    structured_content: { result: observation ?? null },
    meta: null,
    data: observation ?? null,
    is_error: step.metadata?.invalidAction === true,
  };
  return {
    ...step,
    observation: { ...wire, tool_name: toolName, result, error: null } as unknown as ObservationData['observation'],
  };
}
