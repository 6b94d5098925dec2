import type { ChatMessage, ToolCall, ToolSpec } from '@turngym/spec';

/**
 * A tool call as a chat model returns it. `rawArguments` is set only when the model wrote arguments that
 * are not a JSON object: `arguments` is then `{}`, and an agent can hand the raw text to the env, whose
 * parser answers with feedback (malformed output is the model's move, never an exception).
 */
export interface ChatToolCall extends ToolCall {
  readonly rawArguments?: string;
}

/** A message a chat model wrote: an assistant message, possibly with tool calls. */
export interface ChatModelMessage extends ChatMessage {
  readonly toolCalls?: readonly ChatToolCall[];
}

/** One completion request. Sampling fields left out use the backend's defaults. */
export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  /** Function-calling tools the model may call (JSON Schema parameters). */
  readonly tools?: readonly ToolSpec[];
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  /** Stop sequences: generation ends before the first one. */
  readonly stop?: string | readonly string[];
  /** Sampling seed, where the backend supports one; also part of the cache key. */
  readonly seed?: number;
  /**
   * Which env-side role (or agent) is asking: `buyer`, `judge`, `agent`. Not sent to remote backends; it keys
   * the response cache, so two roles sharing one model never read each other's answers.
   */
  readonly role?: string;
  /**
   * Also return the log-probability of each token of the reply (`ChatResponse.logprobs`; OpenAI's `logprobs: true`).
   * Only models with `supportsLogprobs` honour it. Part of the cache key: a reply cached without them never
   * answers a request for them.
   */
  readonly logprobs?: boolean;
  /** With `logprobs`: the this-many likeliest tokens at each position too, 0 to 20 (OpenAI's `top_logprobs`). */
  readonly topLogprobs?: number;
  /**
   * vLLM's sampling fields beyond OpenAI's (`EXTENDED_SAMPLING_FIELDS`: `top_k`, `min_p`, `repetition_penalty`),
   * honoured only by models with `supportsExtendedSampling`; left out, or at their off values, sampling is as before.
   * Part of the cache key.
   */
  readonly topK?: number;
  readonly minP?: number;
  readonly repetitionPenalty?: number;
  /** Cancels the call (and its retries). Never part of the cache key. */
  readonly signal?: AbortSignal;
}

/** A token and its log-probability, in OpenAI's chat shape: `bytes` is its UTF-8, null where it has none. */
export interface ChatTopLogprob {
  readonly token: string;
  readonly logprob: number;
  /**
   * The token's own bytes: a token holding part of a multi-byte character shows as U+FFFD in `token`, and
   * joining the bytes of consecutive tokens gives the text back. Null where the backend cannot tell them.
   */
  readonly bytes: readonly number[] | null;
}

/** One token of a reply: its log-probability, and with `topLogprobs` the likeliest tokens at its position. */
export interface ChatTokenLogprob extends ChatTopLogprob {
  /** Likeliest first; empty when the request asked for none. */
  readonly topLogprobs: readonly ChatTopLogprob[];
}

export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** Why generation ended, in OpenAI's words. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatResponse {
  readonly message: ChatModelMessage;
  readonly usage: ChatUsage;
  readonly finishReason: FinishReason;
  /** True when a cache answered and no model ran (usage is then the original call's). */
  readonly cached?: boolean;
  /**
   * With `request.logprobs`: one entry per token of the reply's content, in order (a stop token or a stop sequence
   * the content was cut before is not part of it). Absent when not asked for.
   */
  readonly logprobs?: readonly ChatTokenLogprob[];
  /**
   * The model's reasoning, where the server returns it apart from the content (`reasoning_content` from vLLM's and
   * SGLang's reasoning parsers and DeepSeek, `reasoning` from Ollama and OpenRouter). Never part of `message`: it is
   * not sent back in later turns. It tells an empty reply that ran out of tokens while still thinking from one that
   * said nothing.
   */
  readonly reasoning?: string;
}

/**
 * The one interface for anything that writes text: env-side roles (buyer, judge, executor) and agents.
 * Backends: `OpenAIChatModel` (any OpenAI-compatible server), `ScriptedChatModel`, and whatever a package
 * registers with `registerChatModelProvider` (the tfjs LM as `local:<checkpoint>`).
 */
export interface ChatModel {
  /** Names the model for records and cache keys, e.g. `openai:gpt-4o-mini`, `scripted`. */
  readonly id: string;
  /**
   * Whatever else decides the answers besides `id` and the request: an endpoint, backend-side sampling
   * defaults. It keys the response cache, so the same model name served from two base URLs (a base model
   * and a fine-tune, two quantisations) never answers for the other from a shared cache file.
   */
  readonly cacheIdentity?: string;
  /**
   * True when `complete` honours `request.logprobs` (answers with `ChatResponse.logprobs`). A server over a model
   * without it refuses a request for log-probabilities instead of answering it with none.
   */
  readonly supportsLogprobs?: boolean;
  /**
   * True when `complete` honours `topK`, `minP` and `repetitionPenalty` (the LM's `LocalChatModel`; `OpenAIChatModel`
   * sends them on to vLLM; a `CachedChatModel` says what its inner model does). A server over a model without it
   * refuses a request that sets them instead of sampling other than what was asked.
   */
  readonly supportsExtendedSampling?: boolean;
  complete(request: ChatRequest): Promise<ChatResponse>;
  /** Releases connections, files, weights. Idempotent. */
  close?(): Promise<void>;
}
