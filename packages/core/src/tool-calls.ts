import type { ToolCall, ToolSpec } from '@turngym/spec';
import { clip, compileToolSchema, describeErrors } from './schema-validation';

/** The outcome of reading an action as a tool call: a validated call, or feedback for the agent. */
export type ToolCallParse = { ok: true; call: ToolCall } | { ok: false; feedback: string };

/** Whether a parameter's schema takes a string (`"string"`, or a union such as `["string", "integer"]`). */
function takesString(schema: { type?: unknown } | undefined): boolean {
  const type = schema?.type;
  return type === 'string' || (Array.isArray(type) && type.includes('string'));
}

function singleStringParameter(tool: ToolSpec): string | undefined {
  const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const names = Object.keys(properties);
  const strings = names.filter((name) => takesString(properties[name]));
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
export function nestsDeeperThan(value: unknown, limit: number): boolean {
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

function toolNamed(name: string, tools: readonly ToolSpec[]): ToolSpec | undefined {
  const lower = name.toLowerCase();
  return tools.find((candidate) => candidate.name.toLowerCase() === lower);
}

/**
 * The offered tool that `text` calls, as `NAME`, `NAME(…)` or `NAME (…)`, and what stands between the parentheses.
 * Read against the offered names rather than a name pattern, so that every name a structured call may use works in
 * text too: an MCP server's `files.read` or `github/search` could be called by function calling only. Prose still
 * calls nothing, since it does not start with a tool's whole name followed by nothing or by a parenthesised end.
 */
function textCall(text: string, tools: readonly ToolSpec[]): { tool: ToolSpec; inner: string } | undefined {
  let found: { tool: ToolSpec; inner: string } | undefined;
  for (const tool of tools) {
    const name = tool.name;
    if (name === '' || name.length <= (found?.tool.name.length ?? 0)) continue;
    if (text.slice(0, name.length).toLowerCase() !== name.toLowerCase()) continue;
    const rest = text.slice(name.length);
    // `rest` ends in no blank (the text is trimmed), so `\s*` has one place to stop: no backtracking over blanks.
    const call = rest === '' ? [] : /^\s*\(([\s\S]*)\)$/.exec(rest);
    if (call) found = { tool, inner: (call[1] ?? '').trim() };
  }
  return found;
}

/**
 * A structured call's arguments as given: OpenAI's function calling sends them as a JSON *string*
 * (`{"name": "SEARCH", "arguments": "{\"query\": \"x\"}"}`), and an agent built on its client passes that on as it
 * came: the string is read as JSON (blank, or none: no arguments), where it was refused as "arguments must be
 * object". Not ok: a string that is not JSON. What the value must be is the tool schema's to say.
 */
export function readToolArguments(raw: unknown): { ok: true; args: unknown } | { ok: false } {
  if (typeof raw !== 'string') return { ok: true, args: raw ?? {} };
  if (raw.trim() === '') return { ok: true, args: {} };
  try {
    return { ok: true, args: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

function structuredArguments(
  tool: ToolSpec,
  raw: unknown,
): { ok: true; args: unknown } | { ok: false; feedback: string } {
  const read = readToolArguments(raw);
  if (read.ok) return read;
  return {
    ok: false,
    feedback: `${tool.name}: the arguments are a string that is not valid JSON; send a JSON object, e.g. {"…": …}.`,
  };
}

/**
 * Reads an action as a call to one of `tools`. Accepted forms:
 * - a structured call `{ name, arguments }` (function calling), its arguments an object or a JSON string of one;
 * - `NAME({"json": "arguments"})`;
 * - `NAME(plain text)` for a tool whose only required parameter is a string;
 * - `NAME()` or `NAME` for a tool without required parameters.
 * Tool names match case-insensitively. The arguments are validated against the tool's JSON Schema.
 */
export function parseToolCall(
  action: string | ToolCall | { readonly name: string; readonly arguments?: string },
  tools: readonly ToolSpec[],
): ToolCallParse {
  let tool: ToolSpec | undefined;
  let args: unknown;
  if (typeof action !== 'string') {
    const name: unknown = (action as { name?: unknown }).name;
    if (typeof name !== 'string')
      return { ok: false, feedback: `A tool call needs a name, one of: ${toolList(tools)}.` };
    tool = toolNamed(name, tools);
    if (!tool) return { ok: false, feedback: `Unknown tool "${clip(name)}". Tools: ${toolList(tools)}.` };
    const read = structuredArguments(tool, action.arguments);
    if (!read.ok) return read;
    args = read.args;
  } else {
    const text = action.trim();
    const call = textCall(text, tools);
    if (!call) {
      // Not a call of an offered tool: say so when it is written like a call, else show the syntax. (The text is
      // trimmed, so no blank run may end it: with `\s*` on both sides of the optional call, a name, many blanks and a
      // word backtracked quadratically, 100,000 blanks: 10 s with the event loop blocked.)
      const named = /^([A-Za-z_][\w-]*(?:\.[\w-]+)*)(?:\s*\([\s\S]*\))?$/.exec(text);
      if (named)
        return { ok: false, feedback: `Unknown tool "${clip(named[1] as string)}". Tools: ${toolList(tools)}.` };
      return {
        ok: false,
        feedback: `Could not read a tool call. Write NAME(arguments), e.g. ${tools[0]?.name ?? 'TOOL'}(...). Tools: ${toolList(tools)}.`,
      };
    }
    tool = call.tool;
    const inner = call.inner;
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
  if (nestsDeeperThan(args, MAX_ARGUMENT_DEPTH))
    return { ok: false, feedback: `${tool.name}: the arguments nest more than ${MAX_ARGUMENT_DEPTH} levels deep.` };
  const validate = compileToolSchema(tool.parameters);
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
