import { InvalidActionTypeError, readToolArguments } from '@turngym/core';
import type { Action, EnvSpec, Space, ToolCall } from '@turngym/spec';
import { callToolAsWireAction } from './mcp-tool-actions';
import type { WireAction } from './protocol';
import { requestValidator, type RequestValidator } from './request-validation';
import { InvalidRequestError } from './server-errors';

const metadata = { type: 'object', description: "OpenEnv's Action.metadata; accepted and ignored." };

const TEXT_FORM = {
  type: 'object',
  title: 'TextAction',
  description: 'The raw text the model wrote; the env parses it (a malformed text is an ordinary step with feedback).',
  additionalProperties: false,
  required: ['text'],
  properties: { text: { type: 'string' }, metadata },
};

const TOOL_FORM = {
  type: 'object',
  title: 'ToolCallAction',
  description: 'A structured tool call (function calling); the env validates the arguments against the tool schema.',
  additionalProperties: false,
  required: ['tool', 'arguments'],
  properties: {
    tool: { type: 'string', minLength: 1 },
    arguments: {
      type: 'object',
      description:
        "The call's arguments. A JSON string of an object (OpenAI function calling's form) is read as that object.",
    },
    id: { type: 'string' },
    metadata,
  },
};

const INDEX_FORM = {
  type: 'object',
  title: 'IndexAction',
  description: "An option's index (discrete spaces); illegal indices are ordinary steps with feedback.",
  additionalProperties: false,
  required: ['index'],
  properties: { index: { type: 'integer' }, metadata },
};

type Form = 'text' | 'tool' | 'index';
const FORMS: Record<Form, object> = { text: TEXT_FORM, tool: TOOL_FORM, index: INDEX_FORM };
const validators: Record<Form, RequestValidator<WireAction>> = {
  text: requestValidator<WireAction>(TEXT_FORM, 'Invalid action'),
  tool: requestValidator<WireAction>(TOOL_FORM, 'Invalid action'),
  index: requestValidator<WireAction>(INDEX_FORM, 'Invalid action'),
};

/** Which wire forms an action space accepts. */
function formsOf(space: Space): Form[] {
  switch (space.type) {
    case 'text':
      return ['text'];
    case 'tools':
      return ['text', 'tool'];
    case 'discrete':
      return ['index', 'text'];
  }
}

function expected(forms: readonly Form[]): string {
  return forms.map((form) => `{"${form}": …}`).join(' or ');
}

/**
 * The `action` schema `/schema` publishes for an env: one flat object schema, as pydantic emits an action model
 * (`properties`, `required`), since generic OpenEnv clients read `properties` to build an action. The fields
 * of every form the space accepts are its properties; `required` holds what every form needs (`text` for text
 * spaces). That exactly one form is sent, the description says and `decodeAction` enforces.
 */
export function actionSchema(spec: EnvSpec): Record<string, unknown> {
  const space = spec.actionSpace;
  const forms = formsOf(space);
  const hints: string[] = [`Action of ${spec.id} (${space.type} space): send exactly one of ${expected(forms)}.`];
  if (space.type === 'tools')
    hints.push(
      `Tools: ${space.tools.map((tool) => tool.name).join(', ')} (schemas in /metadata and the session spec).`,
    );
  if (space.type === 'discrete') hints.push(`Options: ${space.labels.map((label, i) => `${i}=${label}`).join(', ')}.`);
  if (space.type !== 'discrete' && space.examples?.length) hints.push(`Text examples: ${space.examples.join(' | ')}.`);
  hints.push(
    'OpenEnv\'s MCP actions are taken too: {"type": "call_tool", "tool_name", "arguments"} (one turn) and ' +
      '{"type": "list_tools"} (no turn).',
  );
  const properties: Record<string, unknown> = {};
  for (const form of forms) {
    const { properties: fields, description } = FORMS[form] as {
      properties: Record<string, object>;
      description: string;
    };
    for (const [name, schema] of Object.entries(fields)) {
      if (name in properties) continue;
      properties[name] = name === form ? { ...schema, description } : schema;
    }
  }
  return {
    type: 'object',
    title: 'TurnGymAction',
    description: hints.join(' '),
    additionalProperties: false,
    properties,
    required: forms.length === 1 ? [...((FORMS[forms[0] as Form] as { required: string[] }).required ?? [])] : [],
  };
}

/** TurnGym action → wire action. */
export function encodeAction(action: Action): WireAction {
  if (typeof action === 'string') return { text: action };
  if (typeof action === 'number') return { index: action };
  if (typeof action === 'object' && action !== null && typeof (action as ToolCall).name === 'string') {
    const call = action as ToolCall;
    return {
      tool: call.name,
      arguments: wireArguments(call.arguments),
      ...(call.id === undefined ? {} : { id: call.id }),
    };
  }
  // Not an Action at all: the same typed error an in-process env raises, before anything is sent.
  throw new InvalidActionTypeError(
    'remote env',
    'a string, a tool call { name, arguments } or an option index',
    action,
  );
}

/**
 * A call's arguments as the wire takes them (an object). OpenAI's function calling hands them over as a JSON string
 * of one, which an env in-process reads (core's parseToolCall): parsed here, so the same call works through a
 * `RemoteEnv`, where the server's schema refused the string (VALIDATION_ERROR) and the step threw. A string that is
 * not a JSON object goes as it is, and is refused as before.
 */
function wireArguments(raw: unknown): Record<string, unknown> {
  const read = readToolArguments(raw);
  const isObject = read.ok && typeof read.args === 'object' && read.args !== null && !Array.isArray(read.args);
  // What is not an object goes on as it came (typed as the wire's object only to be sent): the server refuses it.
  return (isObject ? read.args : raw) as Record<string, unknown>;
}

/**
 * A tool call whose `arguments` are a JSON string of an object (OpenAI's function calling hands them over so, and an
 * env in-process reads them so: core's `readToolArguments`) with that object in their place: OpenEnv's client sends
 * a model's call as it came, and the server refused it (422) where the same env in-process played it. A string
 * that is not JSON of an object stays, for the schema to refuse at `arguments`.
 */
function withArgumentsRead(record: Record<string, unknown>): Record<string, unknown> {
  if (typeof record.arguments !== 'string') return record;
  const read = readToolArguments(record.arguments);
  if (!read.ok || typeof read.args !== 'object' || read.args === null || Array.isArray(read.args)) return record;
  return { ...record, arguments: read.args };
}

function formOf(data: Record<string, unknown>): Form | undefined {
  if ('text' in data) return 'text';
  if ('tool' in data) return 'tool';
  if ('index' in data) return 'index';
  return undefined;
}

/**
 * Wire action → TurnGym action, validated with ajv. A malformed object is a VALIDATION_ERROR
 * (`InvalidRequestError`) at `loc`, and a bad field of it at `fieldLoc` + the field (OpenEnv's `/step` words a
 * field's loc as the field alone, `["text"]`); a well-formed form the env's space does not take is
 * `InvalidActionTypeError`, as in-process. OpenEnv's `CallToolAction` (`{"type": "call_tool", "tool_name",
 * "arguments"}`) is read as the tool form it stands for (`callToolAsWireAction`).
 */
export function decodeAction(
  data: unknown,
  spec: EnvSpec,
  loc: readonly (string | number)[] = ['data'],
  fieldLoc: readonly (string | number)[] = loc,
): Action {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    const shown = data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data;
    throw new InvalidRequestError(
      `Invalid action: expected an object ${expected(formsOf(spec.actionSpace))}, got ${shown}`,
      [{ type: 'dict_type', loc: [...loc], msg: `${loc.join('.')} must be object` }],
    );
  }
  if ((data as { type?: unknown }).type === 'list_tools') {
    throw new InvalidRequestError('Invalid action: list_tools lists the tools; it is no action to take or evaluate', [
      { type: 'value_error', loc: [...fieldLoc, 'type'], msg: 'list_tools is not an action here', input: 'list_tools' },
    ]);
  }
  // OpenEnv's CallToolAction is the tool form under other names: one ordinary turn, checked as that form.
  const record =
    (data as { type?: unknown }).type === 'call_tool'
      ? callToolAsWireAction(data, spec, fieldLoc)
      : (data as Record<string, unknown>);
  const form = formOf(record);
  const allowed = formsOf(spec.actionSpace);
  if (!form) {
    throw new InvalidRequestError(`Invalid action: expected ${expected(allowed)}`, [
      {
        type: 'missing',
        loc: [...loc],
        msg: `${loc.join('.')} needs one of the keys ${allowed.map((f) => `"${f}"`).join(', ')}`,
      },
    ]);
  }
  const wire = validators[form](form === 'tool' ? withArgumentsRead(record) : record, fieldLoc);
  if (!allowed.includes(form)) {
    throw new InvalidActionTypeError(
      spec.id,
      expected(allowed),
      form === 'index' ? (wire as { index: number }).index : wire,
    );
  }
  if ('text' in wire) return wire.text;
  if ('index' in wire) return wire.index;
  return { name: wire.tool, arguments: wire.arguments, ...(wire.id === undefined ? {} : { id: wire.id }) };
}
