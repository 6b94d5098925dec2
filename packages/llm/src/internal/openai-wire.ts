/**
 * The OpenAI chat-completions wire format, both ways: what the client sends and reads back, and what the
 * model server reads and answers. One file so that the two sides cannot drift.
 */
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

export function toWireToolCall(call: ChatToolCall, fallbackId: string): WireToolCall {
  return {
    id: call.id ?? fallbackId,
    type: 'function',
    function: { name: call.name, arguments: call.rawArguments ?? JSON.stringify(call.arguments ?? {}) },
  };
}

/**
 * Reads a call's JSON arguments; text that is not a JSON object is kept as `rawArguments`. Arguments sent as an object
 * (Ollama's own API, and proxies in front of it) are that object: read as text, they became `{}` and the call lost
 * them.
 */
export function fromWireToolCall(call: { id?: string; function: { name: string; arguments: unknown } }): ChatToolCall {
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
    name: call.function.name,
    arguments: isObject(parsed) ? parsed : {},
    ...(isObject(parsed) ? {} : { rawArguments: typeof raw === 'string' ? raw : JSON.stringify(raw) }),
  };
}

export function toWireMessages(messages: readonly ChatMessage[]): WireMessage[] {
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
          tool_calls: calls.map((call, position) => toWireToolCall(call, `call_${index}_${position}`)),
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
      return { role, content, ...name, toolCalls: message.tool_calls.map(fromWireToolCall) };
    }
    return { role, content, ...name };
  });
}

export function toWireTools(tools: readonly ToolSpec[]): WireTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
  }));
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
