import type { ToolCall, ToolSpec } from '@turngym/spec';
import type { ValidateFunction } from 'ajv';
import { ajv, clip, describeErrors } from './schema-validation';

/** The outcome of reading an action as a tool call: a validated call, or feedback for the agent. */
export type ToolCallParse = { ok: true; call: ToolCall } | { ok: false; feedback: string };

const validators = new WeakMap<object, ValidateFunction>();

function validatorFor(tool: ToolSpec): ValidateFunction {
  let validate = validators.get(tool.parameters);
  if (!validate) {
    validate = ajv.compile(tool.parameters);
    validators.set(tool.parameters, validate);
  }
  return validate;
}

function singleStringParameter(tool: ToolSpec): string | undefined {
  const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const names = Object.keys(properties);
  const strings = names.filter((name) => properties[name]?.type === 'string');
  const required = (tool.parameters.required ?? []) as string[];
  if (strings.length === 1 && required.every((name) => name === strings[0])) return strings[0];
  return undefined;
}

/**
 * Arguments nested deeper than this are refused as the agent's mistake: JSON.parse reads any depth, but the copy and
 * the schema check recurse, and `NAME({"v": [[[[…]]]]})` 5,000 deep threw a raw RangeError (stack overflow) out of
 * the env's step instead of feedback.
 */
const MAX_ARGUMENT_DEPTH = 100;

/** Whether `value` nests arrays and objects more than `limit` deep (iterative: the point is to not recurse). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const inner of Object.values(current)) stack.push([inner, depth + 1]);
  }
  return false;
}

function toolList(tools: readonly ToolSpec[]): string {
  return tools.map((tool) => tool.name).join(', ');
}

/**
 * Reads an action as a call to one of `tools`. Accepted forms:
 * - a structured call `{ name, arguments }` (function calling);
 * - `NAME({"json": "arguments"})`;
 * - `NAME(plain text)` for a tool whose only required parameter is a string;
 * - `NAME()` or `NAME` for a tool without required parameters.
 * Tool names match case-insensitively. The arguments are validated against the tool's JSON Schema.
 */
export function parseToolCall(action: string | ToolCall, tools: readonly ToolSpec[]): ToolCallParse {
  let name: string;
  let args: unknown;
  if (typeof action !== 'string') {
    name = action.name;
    args = action.arguments ?? {};
  } else {
    const text = action.trim();
    // The text is trimmed, so no blank run may end it: with `\s*` on both sides of the optional call, a name,
    // many blanks and a word backtracked quadratically (100,000 blanks: 10 s with the event loop blocked).
    const match = /^([A-Za-z_][\w-]*)(?:\s*\(([\s\S]*)\))?$/.exec(text);
    if (!match) {
      return {
        ok: false,
        feedback: `Could not read a tool call. Write NAME(arguments), e.g. ${tools[0]?.name ?? 'TOOL'}(...). Tools: ${toolList(tools)}.`,
      };
    }
    name = match[1] as string;
    const inner = (match[2] ?? '').trim();
    const tool = tools.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
    if (!tool) return { ok: false, feedback: `Unknown tool "${clip(name)}". Tools: ${toolList(tools)}.` };
    if (inner.startsWith('{')) {
      try {
        args = JSON.parse(inner);
      } catch {
        return { ok: false, feedback: `${tool.name}: the arguments are not valid JSON.` };
      }
    } else if (inner === '') {
      args = {};
    } else {
      const parameter = singleStringParameter(tool);
      if (!parameter) {
        return { ok: false, feedback: `${tool.name} takes a JSON object of arguments, e.g. ${tool.name}({"…": …}).` };
      }
      args = { [parameter]: inner.replace(/^(["'])([\s\S]*)\1$/, '$2') };
    }
  }
  const tool = tools.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
  if (!tool) return { ok: false, feedback: `Unknown tool "${clip(name)}". Tools: ${toolList(tools)}.` };
  if (nestsDeeperThan(args, MAX_ARGUMENT_DEPTH))
    return { ok: false, feedback: `${tool.name}: the arguments nest more than ${MAX_ARGUMENT_DEPTH} levels deep.` };
  const validate = validatorFor(tool);
  const copy = structuredClone(args);
  if (!validate(copy)) {
    return { ok: false, feedback: `${tool.name}: ${describeErrors(validate.errors, 'arguments').join('; ')}.` };
  }
  return { ok: true, call: { name: tool.name, arguments: copy as Record<string, unknown> } };
}

/** The text syntax of a call, as `parseToolCall` reads it back. */
export function formatToolCall(call: ToolCall): string {
  return `${call.name}(${JSON.stringify(call.arguments)})`;
}
