import type { ChatMessage } from '@turngym/spec';
import type {
  ChatModel,
  ChatModelMessage,
  ChatRequest,
  ChatResponse,
  ChatToolCall,
  ChatUsage,
  FinishReason,
} from './chat-model';
import { LLMCallError } from './llm-call-error';
import { approximateTokenCount, tokenPrefixEnd } from './token-count';

/**
 * One scripted reply: text, one tool call, several tool calls, or the full shape (content and calls, and
 * optionally the finish reason and usage to report).
 */
export type ScriptedReply =
  | string
  | ChatToolCall
  | readonly ChatToolCall[]
  | {
      readonly content?: string;
      readonly toolCalls?: readonly ChatToolCall[];
      readonly finishReason?: FinishReason;
      readonly usage?: ChatUsage;
    };

/** A list of replies given in order, or a function of the request (and the 0-based call index). */
export type ScriptedReplies =
  readonly ScriptedReply[] | ((request: ChatRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

export interface ScriptedChatModelOptions {
  /** The model id (default `scripted`). Part of cache keys: give two different scripts different ids. */
  readonly id?: string;
  /** With a list: start over after the last reply instead of failing. */
  readonly loop?: boolean;
}

/** The last user message, for the default script. */
function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return messages[i]?.content ?? '';
  return '';
}

/** The script of `scripted` without one: echo the last user message. */
export const ECHO_SCRIPT: ScriptedReplies = (request) => lastUserText(request.messages);

function messageTokens(message: ChatMessage): number {
  let tokens = approximateTokenCount(message.content);
  for (const call of message.toolCalls ?? [])
    tokens += approximateTokenCount(`${call.name} ${JSON.stringify(call.arguments)}`);
  return tokens;
}

function isToolCall(reply: object): reply is ChatToolCall {
  return typeof (reply as ChatToolCall).name === 'string' && typeof (reply as ChatToolCall).arguments === 'object';
}

/**
 * A deterministic ChatModel for tests and simulators: replies come from a list (in order) or a function
 * of the request. It behaves like a real endpoint where that is cheap to do so: `stop` cuts the text
 * before the first stop sequence, `maxTokens` truncates it (finish reason `length`), usage is counted
 * with `approximateTokenCount`, and tool calls without an id get `call_<n>`.
 */
export class ScriptedChatModel implements ChatModel {
  readonly id: string;
  /** Every request received, in order (without its AbortSignal): what tests assert on. */
  readonly requests: ChatRequest[] = [];
  private readonly script: ScriptedReplies;
  private readonly loop: boolean;
  private calls = 0;

  constructor(script: ScriptedReplies = ECHO_SCRIPT, options: ScriptedChatModelOptions = {}) {
    this.script = script;
    this.id = options.id ?? 'scripted';
    this.loop = options.loop ?? false;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const { signal, ...recorded } = request;
    if (signal?.aborted) {
      throw new LLMCallError(`${this.id}: aborted by the caller`, { failure: 'aborted', modelId: this.id });
    }
    const index = this.calls++;
    this.requests.push(recorded);
    const reply = await this.replyFor(request, index);
    return this.toResponse(request, reply, index);
  }

  private async replyFor(request: ChatRequest, index: number): Promise<ScriptedReply> {
    if (typeof this.script === 'function') {
      try {
        return await this.script(request, index);
      } catch (error) {
        if (error instanceof LLMCallError) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new LLMCallError(`${this.id}: the script threw on call ${index + 1}: ${reason}`, {
          failure: 'script',
          modelId: this.id,
          cause: error,
        });
      }
    }
    const replies = this.script;
    if (replies.length === 0)
      throw new LLMCallError(`${this.id}: the script has no replies`, { failure: 'script', modelId: this.id });
    if (index >= replies.length && !this.loop) {
      throw new LLMCallError(
        `${this.id}: the script ran out after ${replies.length} replies (call ${index + 1}); pass more replies, a function, or { loop: true }`,
        { failure: 'script', modelId: this.id },
      );
    }
    return replies[index % replies.length] as ScriptedReply;
  }

  private toResponse(request: ChatRequest, reply: ScriptedReply, index: number): ChatResponse {
    let content = '';
    let toolCalls: readonly ChatToolCall[] = [];
    let finishReason: FinishReason | undefined;
    let usage: ChatUsage | undefined;
    if (typeof reply === 'string') content = reply;
    else if (Array.isArray(reply)) toolCalls = reply as readonly ChatToolCall[];
    else if (isToolCall(reply)) toolCalls = [reply];
    else {
      const full = reply as Exclude<ScriptedReply, string | ChatToolCall | readonly ChatToolCall[]>;
      content = full.content ?? '';
      toolCalls = full.toolCalls ?? [];
      finishReason = full.finishReason;
      usage = full.usage;
    }

    if (toolCalls.length === 0) {
      const stops = request.stop === undefined ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
      for (const stop of stops) {
        const at = stop === '' ? -1 : content.indexOf(stop);
        if (at >= 0) content = content.slice(0, at);
      }
      if (request.maxTokens !== undefined && approximateTokenCount(content) > request.maxTokens) {
        content = content.slice(0, tokenPrefixEnd(content, request.maxTokens));
        finishReason ??= 'length';
      }
    }

    const message: ChatModelMessage = {
      role: 'assistant',
      content,
      ...(toolCalls.length > 0
        ? { toolCalls: toolCalls.map((call, position) => ({ ...call, id: call.id ?? `call_${index}_${position}` })) }
        : {}),
    };
    return {
      message,
      finishReason: finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      usage: usage ?? {
        promptTokens: request.messages.reduce((sum, each) => sum + messageTokens(each), 0),
        completionTokens: messageTokens(message),
      },
    };
  }
}
