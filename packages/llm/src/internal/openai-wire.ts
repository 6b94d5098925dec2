/**
 * The OpenAI chat-completions wire format, both ways: what the client sends and reads back, and what the
 * model server reads and answers. One file so that the two sides cannot drift.
 */
import { createHash } from 'node:crypto';
import type { ChatMessage, ChatRole, ToolSpec } from '@turngym/spec';
import type { ChatTokenLogprob, ChatToolCall, ChatTopLogprob, FinishReason } from '../chat-model';

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type WireMessage =
  | { role: 'system' | 'developer'; content: string | WireContentPart[]; name?: string }
  | { role: 'user'; content: string | WireContentPart[]; name?: string }
  | {
      role: 'assistant';
      content?: string | WireContentPart[] | null;
      name?: string;
      tool_calls?: WireToolCall[];
      refusal?: string | null;
    }
  | { role: 'tool'; content: string | WireContentPart[]; tool_call_id: string };

export interface WireContentPart {
  type: string;
  text?: string;
}

export interface WireTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** The text of a message content: a string, or the text parts of a content array joined. */
export function contentText(content: string | WireContentPart[] | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

export function toWireToolCall(call: ChatToolCall, fallbackId: string, names: ToolNameMap = SAME_NAMES): WireToolCall {
  return {
    id: call.id ?? fallbackId,
    type: 'function',
    function: { name: names.toWire(call.name), arguments: call.rawArguments ?? JSON.stringify(call.arguments ?? {}) },
  };
}

/**
 * Reads a call's JSON arguments; text that is not a JSON object is kept as `rawArguments`. Arguments sent as an object
 * (Ollama's own API, and proxies in front of it) are that object: read as text, they became `{}` and the call lost
 * them.
 */
export function fromWireToolCall(
  call: { id?: string; function: { name: string; arguments: unknown } },
  names: ToolNameMap = SAME_NAMES,
): ChatToolCall {
  const raw = call.function.arguments;
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    try {
      parsed = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
  } else if (raw === undefined || raw === null) parsed = {};
  return {
    ...(call.id ? { id: call.id } : {}),
    name: names.fromWire(call.function.name),
    arguments: isObject(parsed) ? parsed : {},
    ...(isObject(parsed) ? {} : { rawArguments: typeof raw === 'string' ? raw : JSON.stringify(raw) }),
  };
}

export function toWireMessages(messages: readonly ChatMessage[], names: ToolNameMap = SAME_NAMES): WireMessage[] {
  return messages.map((message, index): WireMessage => {
    const name = message.name !== undefined ? { name: message.name } : {};
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content, ...name };
      case 'user':
        return { role: 'user', content: message.content, ...name };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content, ...name };
        return {
          role: 'assistant',
          // OpenAI's own shape for a pure tool-call turn is content null; some servers reject "".
          content: message.content === '' ? null : message.content,
          ...name,
          tool_calls: calls.map((call, position) => toWireToolCall(call, `call_${index}_${position}`, names)),
        };
      }
      case 'tool':
        return { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' };
    }
  });
}

export function fromWireMessages(messages: readonly WireMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    const role: ChatRole = message.role === 'developer' ? 'system' : message.role;
    const content = contentText(message.content);
    if (message.role === 'tool') return { role, content, toolCallId: message.tool_call_id };
    const name = message.name !== undefined ? { name: message.name } : {};
    if (message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
      return { role, content, ...name, toolCalls: message.tool_calls.map((call) => fromWireToolCall(call)) };
    }
    return { role, content, ...name };
  });
}

export function toWireTools(tools: readonly ToolSpec[], names: ToolNameMap = SAME_NAMES): WireTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: names.toWire(tool.name), description: tool.description, parameters: { ...tool.parameters } },
  }));
}

/** The function names OpenAI accepts (a 400 otherwise); Anthropic's and most compatible servers' rule too. */
const WIRE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** How tool names cross the wire: an env's own name out, the wire's name back. */
export interface ToolNameMap {
  toWire(name: string): string;
  fromWire(name: string): string;
}

const SAME_NAMES: ToolNameMap = { toWire: (name) => name, fromWire: (name) => name };

function nameHash(name: string, length: number): string {
  return createHash('sha256').update(name).digest('hex').slice(0, length);
}

/**
 * Maps the tool names of one request (the offered tools and the calls in its history) to names the wire accepts:
 * an MCP server's `files.read` or `github/search` was sent as it was and OpenAI answered 400. A name that already
 * matches goes unchanged (a request whose names all match is byte-for-byte what it was before this map); another becomes
 * its characters outside the rule replaced by `_`, cut to fit, plus `_` and 8 hex digits of its SHA-256 (`files.read`
 * → `files_read_<hash>`): the same on every turn of an episode, whatever else is offered, and unlike any other name
 * in the request (a clash takes a longer hash). A name the model answers with that is not in the map is kept as is.
 */
export function wireToolNames(names: Iterable<string>): ToolNameMap {
  const distinct = [...new Set(names)];
  const toWire = new Map<string, string>();
  const taken = new Set(distinct.filter((name) => WIRE_TOOL_NAME.test(name)));
  // Sorted, so that which of two clashing names takes the longer hash does not depend on the order offered.
  for (const name of distinct.filter((each) => !WIRE_TOOL_NAME.test(each)).sort()) {
    const stem = name.replace(/[^a-zA-Z0-9_-]/g, '_');
    let wire = '';
    for (let length = 8; wire === '' || taken.has(wire); length += 8) {
      // A longer hash on each clash (to 56 digits, then a count after 48), leaving the stem 7 characters or more.
      const suffix = length <= 56 ? nameHash(name, length) : `${nameHash(name, 48)}${length}`;
      wire = `${stem.slice(0, 63 - suffix.length)}_${suffix}`;
    }
    taken.add(wire);
    toWire.set(name, wire);
  }
  if (toWire.size === 0) return SAME_NAMES;
  const fromWire = new Map([...toWire].map(([name, wire]) => [wire, name]));
  return {
    toWire: (name) => toWire.get(name) ?? name,
    fromWire: (name) => fromWire.get(name) ?? name,
  };
}

export function fromWireTools(tools: readonly WireTool[]): ToolSpec[] {
  return tools.map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? '',
    parameters: tool.function.parameters ?? { type: 'object', properties: {} },
  }));
}

/** `function_call` is the pre-tools name of `tool_calls`; a missing reason is an ordinary stop. */
export function fromWireFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

/** One token's entry in a chat reply's `logprobs.content`, as OpenAI sends it. */
export interface WireTopLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
}

export interface WireTokenLogprob extends WireTopLogprob {
  top_logprobs: WireTopLogprob[];
}

export function toWireLogprobs(entries: readonly ChatTokenLogprob[]): WireTokenLogprob[] {
  const top = (entry: ChatTopLogprob): WireTopLogprob => ({
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes === null ? null : [...entry.bytes],
  });
  return entries.map((entry) => ({ ...top(entry), top_logprobs: entry.topLogprobs.map(top) }));
}

/**
 * Reads `logprobs.content` from a server. A logprob a server writes as null or leaves out (some do for tokens it
 * could not score) is NaN rather than 0, which would claim certainty; missing bytes are null.
 */
export function fromWireLogprobs(content: readonly unknown[]): ChatTokenLogprob[] {
  const top = (value: unknown): ChatTopLogprob => {
    const entry = (value ?? {}) as { token?: unknown; logprob?: unknown; bytes?: unknown };
    return {
      token: typeof entry.token === 'string' ? entry.token : '',
      logprob: typeof entry.logprob === 'number' ? entry.logprob : Number.NaN,
      bytes: Array.isArray(entry.bytes) && entry.bytes.every((byte) => Number.isInteger(byte)) ? entry.bytes : null,
    };
  };
  return content.map((value) => {
    const alternatives = (value as { top_logprobs?: unknown } | null)?.top_logprobs;
    return { ...top(value), topLogprobs: Array.isArray(alternatives) ? alternatives.map(top) : [] };
  });
}
