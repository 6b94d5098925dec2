import { inspect } from 'node:util';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type {
  ChatModel,
  ChatModelMessage,
  ChatRequest,
  ChatResponse,
  ChatTokenLogprob,
  ChatToolCall,
  ChatUsage,
} from './chat-model';
import {
  fromWireFinishReason,
  fromWireLogprobs,
  fromWireToolCall,
  toWireMessages,
  toWireTools,
  wireToolNames,
  type ToolNameMap,
} from './internal/openai-wire';
import { EXTENDED_SAMPLING_FIELDS } from './extended-sampling';
import { isContextOverflowReply } from './internal/context-overflow';
import { LLMCallError } from './llm-call-error';
import {
  errorBodyFetch,
  errorBodyText,
  errorResponseNote,
  RedirectFailedError,
  ReplyTooLargeError,
} from './internal/error-body-fetch';
import { UnparsableBodyError } from './internal/unparsable-body-error';
import { redactedError } from './internal/redacted-error';
import { speaksTls } from './internal/speaks-tls';
import { CREDENTIAL_HEADER } from './internal/credential-header';
import { retryAfterMs } from './internal/retry-after';
import {
  LOCAL_PLACEHOLDER_API_KEY,
  resolveOpenAIOptions,
  type OpenAIChatModelInput,
  type OpenAIChatModelOptions,
} from './openai-options';
import { withRetries, type RetryPolicy } from './retry';
import { stableStringify } from './internal/stable-json';
import { approximateTokenCount } from './token-count';

/** Node's error codes that mean "no usable connection", found anywhere on an error's cause chain. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** Of those, the ones where a connection was made and then dropped by the other side. */
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * A TLS failure: the certificate (self-signed, expired, another host's, an unknown CA) or the protocol (`https://`
 * to a plain-HTTP port). Retrying cannot fix either, and "is a server running?" sent users to the wrong place.
 */
function isTlsCode(code: string): boolean {
  return /CERT|^ERR_SSL_|^ERR_TLS_|^UNABLE_TO_(GET|VERIFY)_|^HOSTNAME_MISMATCH$/.test(code);
}

/** The innermost message of an error's cause chain (fetch's "bad port", a TLS library's words). */
function innermostMessage(error: unknown): string | undefined {
  let message: string | undefined;
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const text = (current as { message?: unknown }).message;
    if (typeof text === 'string' && text.trim() !== '') message = text.trim();
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}

/**
 * How many bytes the server sent on a connection it closed (undici keeps it on the socket error's `socket`): 0 means
 * it hung up without a word, as a TLS server does on plain HTTP.
 */
function bytesReadBeforeClose(error: unknown): number | undefined {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const bytes = (current as { socket?: { bytesRead?: unknown } }).socket?.bytesRead;
    if (typeof bytes === 'number') return bytes;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What zlib or brotli said of a body that does not decompress as its `Content-Encoding` says (fetch decodes it), as
 * `CODE: words`; undefined for any other error. fetch's own error is a bare "terminated", which was all the message
 * said.
 */
function decodingFailure(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && /^Z_[A-Z_]+$|^ERR__ERROR_|BROTLI/.test(code))
      return `${code}${typeof message === 'string' && message !== '' ? `: ${message}` : ''}`;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The redirect that a failed connection followed, found on the error's cause chain. */
function redirectFailure(error: unknown): RedirectFailedError | undefined {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    if (current instanceof RedirectFailedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The longest wait for the TLS handshake that tells an HTTPS port from a server that hung up. */
const TLS_PROBE_MS = 2000;

function causeCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Which call a streamed tool-call delta extends. Ollama (before 0.5), Gemini's OpenAI endpoint and others
 * leave out `index`; keyed by `undefined`, every call was dropped and the reply came back empty. Without an
 * index, a delta with a new id starts a call and any other continues the last one.
 */
function toolCallSlot(delta: { index?: number; id?: string }, calls: readonly { id?: string }[]): number {
  if (typeof delta.index === 'number') return delta.index;
  const last = calls[calls.length - 1];
  if (last === undefined) return 0;
  return delta.id && last.id !== undefined && delta.id !== last.id ? calls.length : calls.length - 1;
}

/**
 * A reply's `logprobs.content` as kept: each entry's alternatives cut to the `top` asked for (OpenAI sends at most
 * that many; a runaway server's thousands would be stored with every reply), and what it counts toward
 * `maxReplyChars`: each entry's and kept alternative's token, at least one character each (a server's empty tokens
 * are entries all the same), or its `bytes` where they are longer.
 */
function boundLogprobs(content: readonly unknown[], top: number): { entries: unknown[]; characters: number } {
  const size = (value: unknown): number => {
    const { token, bytes } = (value ?? {}) as { token?: unknown; bytes?: unknown };
    return Math.max(1, typeof token === 'string' ? token.length : 0, Array.isArray(bytes) ? bytes.length : 0);
  };
  let characters = 0;
  const entries = content.map((value) => {
    characters += size(value);
    const alternatives = (value as { top_logprobs?: unknown } | null)?.top_logprobs;
    if (!Array.isArray(alternatives)) return value;
    const kept = alternatives.slice(0, top);
    for (const alternative of kept) characters += size(alternative);
    return { ...(value as object), top_logprobs: kept };
  });
  return { entries, characters };
}

/** Reasoning sent apart from the content: `reasoning_content` (vLLM, SGLang, DeepSeek) or `reasoning` (Ollama, OpenRouter). */
function reasoningOf(part: unknown): string {
  const { reasoning_content: content, reasoning } = (part ?? {}) as {
    reasoning_content?: unknown;
    reasoning?: unknown;
  };
  if (typeof content === 'string') return content;
  return typeof reasoning === 'string' ? reasoning : '';
}

/**
 * A message's or a delta's `content` as text, with any reasoning it holds; undefined when it is neither text nor parts.
 * OpenAI sends a string (or null); Mistral's reasoning models, and proxies in front of other APIs, send a list of
 * parts: `{type: 'text', text}` and `{type: 'thinking', thinking: text or text parts}`. Taken as a string, a list
 * became "[object Object]" in a streamed reply and crashed the token estimate of a plain one, and a number was
 * passed on as the reply; parts of other types (citations) carry no text of the reply and are left out.
 */
function contentText(content: unknown): { text: string; reasoning: string } | undefined {
  if (content === null || content === undefined) return { text: '', reasoning: '' };
  if (typeof content === 'string') return { text: content, reasoning: '' };
  if (!Array.isArray(content)) return undefined;
  const textOf = (part: unknown): string => {
    const { text } = (part ?? {}) as { text?: unknown };
    return typeof text === 'string' ? text : '';
  };
  let text = '';
  let reasoning = '';
  for (const part of content) {
    const { type, thinking } = (part ?? {}) as { type?: unknown; thinking?: unknown };
    if (type === 'text') text += textOf(part);
    else if (type === 'thinking')
      reasoning +=
        typeof thinking === 'string' ? thinking : Array.isArray(thinking) ? thinking.map(textOf).join('') : '';
  }
  return { text, reasoning };
}

/** A request's vLLM sampling fields by their wire names, off values left out (see `EXTENDED_SAMPLING_FIELDS`). */
/**
 * The wire names of a request's tools (see `wireToolNames`): its offered tools and the calls in its history, so a
 * past call is sent under the name the model was offered, and a call in the reply comes back under the env's own.
 */
function toolNamesOf(request: ChatRequest): ToolNameMap {
  const names: string[] = (request.tools ?? []).map((tool) => tool.name);
  for (const message of request.messages)
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) names.push(call.name);
  return wireToolNames(names);
}

function extendedSamplingParams(request: ChatRequest): Record<string, number> {
  const params: Record<string, number> = {};
  for (const [name, { field, isOff }] of Object.entries(EXTENDED_SAMPLING_FIELDS)) {
    const value = request[field];
    if (value !== undefined && !isOff(value)) params[name] = value;
  }
  return params;
}

/** An error reply's `code` and `type`, at the top level (vLLM, SGLang) or under `error` (OpenAI, llama.cpp). */
function codeAndType(error: InstanceType<typeof OpenAI.APIError>): { code: unknown; type: unknown } {
  const body = (error.error ?? {}) as { code?: unknown; type?: unknown; error?: { code?: unknown; type?: unknown } };
  return {
    code: error.code ?? body.code ?? body.error?.code,
    type: error.type ?? body.type ?? body.error?.type,
  };
}

function messageOf(body: unknown, fallback: string): string {
  // Ollama and some proxies answer `{"error": "model not found"}`: the client hands over the bare string.
  if (typeof body === 'string' && body.trim() !== '') return body;
  const nested = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  const direct = (body as { message?: unknown } | undefined)?.message;
  if (typeof nested === 'string') return nested;
  if (typeof direct === 'string') return direct;
  return fallback;
}

function usageFrom(
  usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined,
  request: ChatRequest,
  message: ChatModelMessage,
): ChatUsage {
  const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
  if (usage && isCount(usage.prompt_tokens) && isCount(usage.completion_tokens)) {
    return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
  }
  // Some servers send no usage (streams without include_usage support), or counts that are none (-5, 1e300, 2.5,
  // which token budgets added up as they came): an estimate beats a zero, or a budget that grows, in budgets.
  const text = (each: { content: string; toolCalls?: readonly ChatToolCall[] }): number =>
    approximateTokenCount(each.content) +
    (each.toolCalls ?? []).reduce(
      (sum, call) => sum + approximateTokenCount(`${call.name} ${JSON.stringify(call.arguments)}`),
      0,
    );
  return { promptTokens: request.messages.reduce((sum, each) => sum + text(each), 0), completionTokens: text(message) };
}

/**
 * A ChatModel on any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, SGLang, lmdeploy, Ollama,
 * `turngym serve-model`), through the official `openai` client. Tools go out as function-calling schemas
 * and tool calls come back as `ToolCall`s. Every failure is an `LLMCallError` naming the base URL; retries
 * (backoff + jitter, Retry-After honoured) happen in `withRetries`, so the client's own retries are off.
 */
export class OpenAIChatModel implements ChatModel {
  readonly id: string;
  readonly cacheIdentity: string;
  /** `logprobs` and `topLogprobs` are sent on; a server that answers without them fails the call. */
  readonly supportsLogprobs = true;
  /**
   * `topK`, `minP` and `repetitionPenalty` are sent on as vLLM's `top_k`, `min_p` and `repetition_penalty` (off values
   * left out): vLLM and SGLang apply them, OpenAI refuses them with a 400 naming the field.
   */
  readonly supportsExtendedSampling = true;
  readonly options: OpenAIChatModelOptions;
  private readonly client: OpenAI;
  /** `options.headers` with every value: there the credential headers' values are hidden as `apiKey` is. */
  private readonly headers: Readonly<Record<string, string>> | undefined;
  private readonly retryPolicy: RetryPolicy;
  /** Whether the base URL's port answers a TLS handshake, once asked (see `isPlainHttpToTlsPort`). */
  private tlsPort: Promise<boolean> | undefined;

  /** `environment` defaults to `process.env` (see `OPENAI_ENVIRONMENT_VARIABLES`). */
  constructor(input: OpenAIChatModelInput = {}, environment?: Readonly<Record<string, string | undefined>>) {
    this.options = resolveOpenAIOptions(input, environment);
    // Readable where it is needed, but left out of what prints or serialises the options (console.log of a role's
    // model, JSON of a run's settings): a key in a log is a leaked key.
    Object.defineProperty(this.options, 'apiKey', { enumerable: false });
    // So are the values of credential headers (`api-key`, `Authorization`): JSON of the options showed them in full.
    this.headers = this.options.headers && { ...this.options.headers };
    for (const name of Object.keys(this.options.headers ?? {}))
      if (CREDENTIAL_HEADER.test(name)) Object.defineProperty(this.options.headers, name, { enumerable: false });
    this.id = `openai:${this.options.model}`;
    // The id names only the model; which server answers, and the defaults it fills in, change the answers too.
    this.cacheIdentity = stableStringify({ baseURL: this.options.baseURL, defaults: this.options.defaults });
    this.retryPolicy = {
      maxRetries: this.options.maxRetries,
      baseDelayMs: this.options.retryBaseDelayMs,
      maxDelayMs: this.options.retryMaxDelayMs,
    };
    this.client = new OpenAI({
      baseURL: this.options.baseURL,
      apiKey: this.options.apiKey,
      ...(this.options.organization !== undefined ? { organization: this.options.organization } : {}),
      // Our own deadline (see attempt) fires first; the client's is a backstop.
      timeout: this.options.timeoutMs + 1000,
      maxRetries: 0,
      // Keeps the words of error bodies the client cannot read (vLLM's, SGLang's) and notes redirects.
      fetch: errorBodyFetch,
      // The client logs a stream event it cannot parse (and, with OPENAI_LOG=debug, every body): what a server
      // echoed of the request, the key among it, is masked there as in our errors.
      logger: this.maskingLogger(),
      ...(this.headers !== undefined ? { defaultHeaders: this.headers } : {}),
    });
  }

  /**
   * What `console.log` and `util.inspect` show: the openai client inside keeps the key in two fields of its own, and
   * printing a model (or an env, a cache or an agent that holds one) printed it.
   */
  [inspect.custom](): Record<string, unknown> {
    const headers = this.headers;
    return {
      id: this.id,
      options: {
        ...this.options,
        apiKey: this.redact(this.options.apiKey),
        ...(headers
          ? { headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, this.redact(value)])) }
          : {}),
      },
    };
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const params = this.paramsFor(request);
    return withRetries(() => this.attempt(request, params), this.retryPolicy, request.signal);
  }

  async close(): Promise<void> {}

  private paramsFor(request: ChatRequest): ChatCompletionCreateParamsBase {
    const names = toolNamesOf(request);
    const defaults = this.options.defaults ?? {};
    const temperature = request.temperature ?? defaults.temperature;
    const topP = request.topP ?? defaults.topP;
    const maxTokens = request.maxTokens ?? defaults.maxTokens;
    const seed = request.seed ?? defaults.seed;
    const stop = request.stop ?? defaults.stop;
    return {
      model: this.options.model,
      messages: toWireMessages(request.messages, names) as unknown as ChatCompletionMessageParam[],
      ...(request.tools && request.tools.length > 0
        ? { tools: toWireTools(request.tools, names) as ChatCompletionTool[] }
        : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(topP !== undefined ? { top_p: topP } : {}),
      ...(maxTokens !== undefined ? { [this.options.maxTokensParameter]: maxTokens } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(stop !== undefined ? { stop: typeof stop === 'string' ? stop : [...stop] } : {}),
      ...(request.logprobs === true
        ? { logprobs: true, ...(request.topLogprobs ? { top_logprobs: request.topLogprobs } : {}) }
        : {}),
      ...extendedSamplingParams(request),
    };
  }

  /**
   * One attempt under our own deadline, which covers a streamed body too (the client's timeout stops at the
   * headers) and is recognised as a timeout whatever the client makes of the abort.
   */
  private async attempt(request: ChatRequest, params: ChatCompletionCreateParamsBase): Promise<ChatResponse> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
    const requestOptions = { signal };
    try {
      if (this.options.stream) {
        const { data: stream, response } = await this.client.chat.completions
          .create({ ...params, stream: true, stream_options: { include_usage: true } }, requestOptions)
          .withResponse();
        // Awaited here, so that the deadline (cleared in `finally`) covers the body and its errors reach `catch`.
        return await this.fromChunks(request, stream, response.headers.get('content-type'));
      }
      const completion = await this.client.chat.completions.create({ ...params, stream: false }, requestOptions);
      return this.fromCompletion(request, completion);
    } catch (error) {
      if (deadline.signal.aborted && !request.signal?.aborted) throw this.timeoutError(error);
      throw this.toLLMCallError(error, await this.isPlainHttpToTlsPort(error));
    } finally {
      clearTimeout(timer);
    }
  }

  private timeoutError(cause: unknown): LLMCallError {
    return new LLMCallError(`${this.where()}: no response within ${this.options.timeoutMs} ms (timeoutMs)`, {
      baseURL: this.options.baseURL,
      modelId: this.id,
      cause: this.masked(cause),
      failure: 'timeout',
      isRetryable: true,
    });
  }

  /** `content` as text and reasoning (see `contentText`), or an unreadable response that says what it was. */
  private contentOf(content: unknown): { text: string; reasoning: string } {
    const read = contentText(content);
    if (read) return read;
    throw this.invalidResponse(`the reply's content is neither text nor a list of parts (got ${this.shown(content)})`);
  }

  /** Refuses a reply past `maxReplyChars` (content, tool-call arguments and log-probabilities' tokens). */
  private checkReplySize(characters: number): void {
    if (characters > this.options.maxReplyChars) {
      throw this.invalidResponse(
        `the reply is longer than ${this.options.maxReplyChars} characters (maxReplyChars), counting its content, ` +
          "tool-call arguments and log-probabilities' tokens: a runaway server?",
      );
    }
  }

  private fromCompletion(request: ChatRequest, reply: ChatCompletion | string | null | undefined): ChatResponse {
    // The client hands over nothing for a JSON reply with `content-length: 0`: a body cut to nothing, as an empty
    // body without that header is (see `unparsableBody`), and retried as that is.
    if (reply === undefined)
      throw new LLMCallError(`${this.where()}: unreadable response: the body was empty (content-length: 0)`, {
        failure: 'invalid-response',
        baseURL: this.options.baseURL,
        modelId: this.id,
        isRetryable: true,
      });
    if (reply === null) throw this.invalidResponse('the response is JSON null, not a chat completion');
    const completion = this.sentAsText(reply);
    const choice = completion.choices?.[0];
    if (!choice) throw this.invalidResponse(`the response has no choices${this.redact(this.saidInstead(completion))}`);
    if (typeof choice.message !== 'object' || choice.message === null) {
      // `choices[0].text` is the legacy completions API's shape: a server (or proxy route) that is not chat.
      const legacy =
        typeof (choice as { text?: unknown }).text === 'string' ? ' (it has "text": a completions API, not chat)' : '';
      throw this.invalidResponse(`the first choice has no message${legacy}`);
    }
    const refusal = (choice.message as { refusal?: unknown }).refusal;
    if (typeof refusal === 'string' && refusal !== '') throw this.refusalError(refusal);
    const calls = this.toolCallsOf(choice.message.tool_calls);
    // Log-probabilities are kept only when asked for, and then count toward the reply's size.
    const wireLogprobs = (choice.logprobs as { content?: unknown } | null | undefined)?.content;
    const kept =
      request.logprobs === true && Array.isArray(wireLogprobs)
        ? boundLogprobs(wireLogprobs, request.topLogprobs ?? 0)
        : undefined;
    const content = this.contentOf(choice.message.content);
    const reasoning = reasoningOf(choice.message) + content.reasoning;
    this.checkReplySize(
      content.text.length +
        reasoning.length +
        calls.reduce((sum, call) => sum + JSON.stringify(call).length, 0) +
        (kept?.characters ?? 0),
    );
    const message: ChatModelMessage = {
      role: 'assistant',
      content: content.text,
      ...(calls.length > 0
        ? {
            toolCalls: calls.map((call) => fromWireToolCall(call, toolNamesOf(request))),
          }
        : {}),
    };
    const logprobs = this.logprobsOf(request, kept ? { content: kept.entries } : undefined, message);
    return {
      message,
      finishReason: fromWireFinishReason(choice.finish_reason),
      usage: usageFrom(completion.usage, request, message),
      ...(logprobs ? { logprobs } : {}),
      ...(reasoning !== '' ? { reasoning } : {}),
    };
  }

  /**
   * A reply the client read as text because its content type did not say JSON (`text/plain`, none: some proxies and
   * hand-written servers): a chat completion all the same where it parses as one. Refused as "text, not JSON", the
   * reply was lost and the error showed a valid completion. Anything else is left for `saidInstead` to describe.
   */
  private sentAsText(reply: ChatCompletion | string): ChatCompletion {
    if (typeof reply !== 'string') return reply;
    try {
      const parsed = JSON.parse(reply) as unknown;
      if (Array.isArray((parsed as { choices?: unknown } | null)?.choices)) return parsed as ChatCompletion;
    } catch {
      // Not JSON: described as the text it is.
    }
    return reply as unknown as ChatCompletion;
  }

  /**
   * A message's function calls, each with a name: `tool_calls` that is not a list, or a call without a function name,
   * is an unreadable response that says so (it crashed on `.filter` or `.arguments`, and the error quoted the crash).
   */
  private toolCallsOf(wire: unknown): { id?: string; function: { name: string; arguments: unknown } }[] {
    if (wire === undefined || wire === null) return [];
    if (!Array.isArray(wire))
      throw this.invalidResponse(`the message's tool_calls is not a list (got ${this.shown(wire)})`);
    const calls = wire.filter(
      (call) =>
        (call as { type?: unknown } | null)?.type === 'function' || (call !== null && 'function' in Object(call)),
    ) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } | null }[];
    return calls.map((call, index) => {
      const name = call.function?.name;
      if (typeof name !== 'string' || name === '')
        throw this.invalidResponse(`tool call ${index} has no function name (got ${this.shown(call)})`);
      return {
        ...(typeof call.id === 'string' ? { id: call.id } : {}),
        function: { name, arguments: call.function?.arguments },
      };
    });
  }

  /** A value as JSON, cut at 100 characters, for an error message. */
  private shown(value: unknown): string {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 100 ? `${text.slice(0, 100)}…` : text;
  }

  /**
   * The reply's log-probabilities, for a request that asked: a server that ignores `logprobs` (some do) would
   * otherwise hand the caller a reply it reads as having none to score. A reply with no content (tool calls only)
   * may come with `content: null`.
   */
  private logprobsOf(
    request: ChatRequest,
    wire: { content?: unknown } | null | undefined,
    message: ChatModelMessage,
  ): ChatTokenLogprob[] | undefined {
    if (request.logprobs !== true) return undefined;
    if (Array.isArray(wire?.content)) return fromWireLogprobs(wire.content);
    if (message.content === '') return [];
    throw this.invalidResponse('the server sent no logprobs, which were asked for (does it support "logprobs"?)');
  }

  /**
   * An error sent as a chunk the client does not raise: vLLM's own shape (`{"object": "error", "message": ...}`) and an
   * `event: error` whose data has no `error` field. Taken as chunks without choices, they were skipped, and the stream
   * was called cut (no finish_reason) and retried, without the server's words.
   */
  private refuseErrorChunk(chunk: ChatCompletionChunk): void {
    const { object, message, choices } = chunk as unknown as { object?: unknown; message?: unknown; choices?: unknown };
    if (Array.isArray(choices)) return;
    if (object === 'error' || (object === undefined && typeof message === 'string'))
      throw new OpenAI.APIError(undefined, chunk, undefined, undefined);
  }

  /** `contentType`: what the response said it was, for a "stream" that held no chunks. */
  private async fromChunks(
    request: ChatRequest,
    stream: AsyncIterable<ChatCompletionChunk>,
    contentType: string | null,
  ): Promise<ChatResponse> {
    let content = '';
    let reasoning = '';
    let refusal = '';
    let finishReason: string | null | undefined;
    let usage: ChatCompletionChunk['usage'];
    const calls: { id?: string; name: string; arguments: string }[] = [];
    let chunks = 0;
    let characters = 0;
    let logprobs: unknown[] | undefined;
    for await (const chunk of stream) {
      chunks += 1;
      this.refuseErrorChunk(chunk);
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.find((each) => each.index === 0) ?? chunk.choices?.[0];
      if (!choice) {
        if (finishReason && usage) break;
        continue;
      }
      const refusalDelta = (choice.delta as { refusal?: unknown } | undefined)?.refusal;
      if (typeof refusalDelta === 'string') refusal += refusalDelta;
      const contentDelta = this.contentOf(choice.delta?.content);
      content += contentDelta.text;
      const reasoningDelta = reasoningOf(choice.delta) + contentDelta.reasoning;
      reasoning += reasoningDelta;
      characters += reasoningDelta.length;
      const chunkLogprobs = (choice as { logprobs?: { content?: unknown } | null }).logprobs?.content;
      // Kept only when asked for, and counted toward the reply's size before they are kept.
      if (request.logprobs === true && Array.isArray(chunkLogprobs)) {
        const kept = boundLogprobs(chunkLogprobs, request.topLogprobs ?? 0);
        characters += kept.characters;
        this.checkReplySize(characters);
        logprobs ??= [];
        for (const entry of kept.entries) logprobs.push(entry);
      }
      characters += contentDelta.text.length;
      for (const delta of choice.delta?.tool_calls ?? []) {
        const call = (calls[toolCallSlot(delta, calls)] ??= { name: '', arguments: '' });
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name += delta.function.name;
        if (delta.function?.arguments) call.arguments += delta.function.arguments;
        characters += (delta.function?.name ?? '').length + (delta.function?.arguments ?? '').length;
      }
      // Checked as it arrives: a runaway stream is stopped, not read to its end.
      this.checkReplySize(characters);
      if (choice.finish_reason) finishReason = choice.finish_reason;
      // The reply is whole once its finish and its usage (asked for with include_usage, sent last) are in: read no
      // further. A server that sent `[DONE]` and left the connection open (the client reads on to the body's end) held
      // every call until the timeout.
      if (finishReason && usage) break;
    }
    if (chunks === 0) {
      // A server that does not stream answers JSON; a proxy or login page, HTML: either reads as no chunks at all.
      const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
      const why =
        type === '' || type === 'text/event-stream'
          ? '(does it support "stream": true?)'
          : type.includes('json')
            ? `(it answered ${type}, not an event stream: a server that does not stream; set stream: false)`
            : `(it answered ${type}, not an event stream${type === 'text/html' ? ": a proxy's or login page?" : ''})`;
      throw this.invalidResponse(`the server sent no stream chunks ${why}`);
    }
    if (!finishReason) {
      // A stream that ends without a finish_reason was cut (a proxy, a crashed server): its text is a fragment.
      throw new LLMCallError(`${this.where()}: the stream ended before the reply finished (no finish_reason)`, {
        baseURL: this.options.baseURL,
        modelId: this.id,
        failure: 'connection',
        isRetryable: true,
      });
    }
    if (refusal !== '') throw this.refusalError(refusal);
    const toolCalls = calls
      .filter(Boolean)
      .map((call) => fromWireToolCall({ ...(call.id ? { id: call.id } : {}), function: call }, toolNamesOf(request)));
    const message: ChatModelMessage = { role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
    const entries = this.logprobsOf(request, logprobs ? { content: logprobs } : undefined, message);
    return {
      message,
      finishReason: fromWireFinishReason(finishReason),
      usage: usageFrom(usage, request, message),
      ...(entries ? { logprobs: entries } : {}),
      ...(reasoning !== '' ? { reasoning } : {}),
    };
  }

  /**
   * What a 200 without choices held instead: some servers and proxies answer an error with status 200
   * (`{"error": {"message": "model not loaded"}}`), or a login page; that, not "no choices", is the news.
   */
  private saidInstead(body: unknown): string {
    if (typeof body === 'string') {
      // A page's first 200 characters are its <head>, styles and scripts: its title says what it is.
      const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.replace(/\s+/g, ' ').trim();
      if (title)
        return `; the server sent an HTML page titled "${title.slice(0, 200)}", not JSON (a proxy's or login page?)`;
      const text = body.replace(/\s+/g, ' ').trim();
      return text === ''
        ? ''
        : `; the server sent text, not JSON: "${text.slice(0, 200)}${text.length > 200 ? '…' : ''}"`;
    }
    const error = (body as { error?: unknown } | null | undefined)?.error;
    if (error === undefined || error === null) return '';
    return `; the server said: ${messageOf(error, JSON.stringify(error))}`;
  }

  /** A 404 from a base URL with no path at all is nearly always a missing `/v1`. */
  private notFoundHint(status: number): string {
    if (status !== 404) return '';
    let path: string;
    try {
      path = new URL(this.options.baseURL).pathname;
    } catch {
      return '';
    }
    return path === '' || path === '/'
      ? ` (the base URL has no path; OpenAI-compatible servers answer under /v1: try ${this.options.baseURL}/v1)`
      : '';
  }

  /**
   * A model that declines answers `refusal` with no content: returned as an empty reply, an env role or agent could
   * not tell it from a model that wrote nothing, so it is an error that carries the text (not retried: the same
   * request gets the same refusal).
   */
  private refusalError(refusal: string): LLMCallError {
    const shown = refusal.length > 200 ? `${refusal.slice(0, 200)}…` : refusal;
    return new LLMCallError(`${this.where()}: the model refused to answer: "${shown}"`, {
      failure: 'refusal',
      baseURL: this.options.baseURL,
      modelId: this.id,
      refusal,
    });
  }

  /**
   * fetch follows redirects, and a 301/302/303 turns the POST into a GET (body dropped): the server then answers
   * 404 or 405 for a route that exists, and the error named neither the redirect nor where it went.
   */
  private redirectHint(redirectedTo: string | undefined): string {
    if (redirectedTo === undefined) return '';
    const root = redirectedTo.replace(/\/chat\/completions$/, '');
    return (
      ` (the server redirected the request to ${redirectedTo}, and a 301/302/303 redirect turns a POST into a GET:` +
      ` set the base URL to ${root === redirectedTo ? 'where it redirects' : root})`
    );
  }

  /**
   * What a server said, with the API key masked: a debugging proxy or a misconfigured gateway that echoes the
   * request's headers in its error body put the key into the error, and from there into run records and logs.
   */
  private redact(text: string): string {
    let masked = text;
    for (const secret of this.secrets()) masked = masked.split(secret).join(`${secret.slice(0, 3)}***`);
    return masked;
  }

  /** A key worth masking: not the placeholder a local server is sent, nor one too short to find by itself. */
  private hasSecretKey(): boolean {
    return this.secrets().length > 0;
  }

  private secretValues: readonly string[] | undefined;

  /**
   * What is masked: the API key, and the values of credential headers in `headers` (Azure's `api-key`, a gateway's
   * `x-api-key` or `Authorization`, and the token after a scheme such as `Bearer`), each long enough to find by
   * itself. A key passed as a header was echoed and printed as the API key used to be. Longest first, so that a
   * header's whole value is masked before the token inside it.
   */
  private secrets(): readonly string[] {
    if (this.secretValues) return this.secretValues;
    const found = new Set<string>();
    const key = this.options.apiKey;
    if (key !== LOCAL_PLACEHOLDER_API_KEY) found.add(key);
    for (const [name, value] of Object.entries(this.headers ?? {})) {
      if (!CREDENTIAL_HEADER.test(name)) continue;
      found.add(value.trim());
      const token = value.trim().split(/\s+/).at(-1);
      if (token) found.add(token);
    }
    this.secretValues = [...found].filter((secret) => secret.length >= 8).sort((a, b) => b.length - a.length);
    return this.secretValues;
  }

  /**
   * The error the client threw, kept as our error's `cause` with the key masked throughout: its message alone was
   * masked, and `console.error` of our error printed the cause's message, stack, body and headers with the key in.
   */
  private masked<T>(error: T): T {
    return this.hasSecretKey() ? redactedError(error, (text) => this.redact(text)) : error;
  }

  /** The console, with the key masked in whatever the client logs. */
  private maskingLogger(): Record<'error' | 'warn' | 'info' | 'debug', (...parts: unknown[]) => void> {
    const masked =
      (level: 'error' | 'warn' | 'info' | 'debug') =>
      (...parts: unknown[]): void =>
        console[level](...parts.map((part) => this.redact(typeof part === 'string' ? part : inspect(part))));
    return { error: masked('error'), warn: masked('warn'), info: masked('info'), debug: masked('debug') };
  }

  /**
   * Whether a connection the server closed without sending a byte went to an HTTPS port over plain `http://`: asked
   * of the port with a TLS handshake (see `speaksTls`), only for that failure.
   */
  private async isPlainHttpToTlsPort(error: unknown): Promise<boolean> {
    if (!(error instanceof OpenAI.APIConnectionError) || error instanceof OpenAI.APIConnectionTimeoutError)
      return false;
    const code = causeCode(error);
    if (code === undefined || !DROPPED_CODES.has(code) || bytesReadBeforeClose(error) !== 0) return false;
    let url: URL;
    try {
      url = new URL(this.options.baseURL);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:') return false;
    // Asked once per model: what a port speaks does not change between attempts, and a plain server that keeps
    // hanging up (a crash loop) is not sent a handshake it would log as a bad request on every retry.
    this.tlsPort ??= speaksTls(url.hostname, Number(url.port || 80), Math.min(TLS_PROBE_MS, this.options.timeoutMs));
    return this.tlsPort;
  }

  private hostname(): string {
    try {
      return new URL(this.options.baseURL).hostname;
    } catch {
      return '?';
    }
  }

  private port(): string {
    try {
      return new URL(this.options.baseURL).port;
    } catch {
      return '?';
    }
  }

  private where(): string {
    return `${this.id} at ${this.options.baseURL}`;
  }

  private invalidResponse(reason: string, cause?: unknown): LLMCallError {
    return new LLMCallError(`${this.where()}: unreadable response: ${this.redact(reason)}`, {
      failure: 'invalid-response',
      baseURL: this.options.baseURL,
      modelId: this.id,
      cause: this.masked(cause),
    });
  }

  /**
   * A 200 whose JSON does not parse. Most often a body cut short (a proxy's limit or timeout, a server that died
   * mid-reply), which the next attempt gets whole: retried as a 5xx is. What came is shown escaped, so that an empty
   * body, a cut one and a gateway's page read differently; a page that keeps coming is there in the final error.
   */
  private unparsableBody(error: UnparsableBodyError): LLMCallError {
    const { received, length, status } = error;
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(received)?.[1]?.replace(/\s+/g, ' ').trim();
    const shown = JSON.stringify(received.slice(0, 200)) + (length > 200 ? '…' : '');
    const what =
      length === 0
        ? 'the body was empty'
        : title
          ? `it sent an HTML page titled "${title.slice(0, 200)}" (a proxy's or gateway's page?), beginning ${shown}`
          : `it sent ${length} characters, beginning ${shown} (cut short by a proxy, or a server that stopped mid-reply?)`;
    // The parser's words say where a cut body stopped; of a page, only what its title says better.
    const parser = title ? undefined : (error.cause as Error | undefined)?.message;
    return new LLMCallError(
      this.redact(
        `${this.where()}: unreadable response: HTTP ${status}, but its body is not JSON${parser ? ` (${parser})` : ''}: ${what}`,
      ),
      {
        failure: 'invalid-response',
        baseURL: this.options.baseURL,
        modelId: this.id,
        cause: this.masked(error),
        isRetryable: true,
      },
    );
  }

  /**
   * Maps whatever the client threw onto the one error type, with a message that names the endpoint. `toTlsPort`: the
   * connection was plain HTTP to a port that speaks TLS (see `isPlainHttpToTlsPort`).
   */
  private toLLMCallError(error: unknown, toTlsPort = false): LLMCallError {
    if (error instanceof LLMCallError) return error;
    if (error instanceof UnparsableBodyError) return this.unparsableBody(error);
    if (error instanceof ReplyTooLargeError) {
      // A reply that size is no reply: a server or proxy in a loop, which the next attempt would repeat.
      return new LLMCallError(`${this.where()}: unreadable response: ${error.message}`, {
        failure: 'invalid-response',
        baseURL: this.options.baseURL,
        modelId: this.id,
        cause: error,
        isRetryable: false,
      });
    }
    const context = { baseURL: this.options.baseURL, modelId: this.id, cause: this.masked(error) };
    if (error instanceof OpenAI.APIUserAbortError) {
      return new LLMCallError(`${this.where()}: aborted by the caller`, { ...context, failure: 'aborted' });
    }
    if (error instanceof OpenAI.APIConnectionTimeoutError) return this.timeoutError(error);
    if (error instanceof OpenAI.APIConnectionError) {
      const code = causeCode(error);
      const redirect = redirectFailure(error);
      if (redirect) {
        const why = code ?? innermostMessage(redirect.cause);
        return new LLMCallError(
          // The server chose the address, and may have put in it what it was sent (the key, as a query parameter).
          this.redact(
            `${this.where()}: the server redirected the request to ${redirect.redirectedTo}, which could not be reached${why ? ` (${why})` : ''}`,
          ),
          { ...context, failure: 'connection', isRetryable: code !== undefined && CONNECTION_CODES.has(code) },
        );
      }
      if (code !== undefined && DROPPED_CODES.has(code)) {
        if (toTlsPort) {
          // Every attempt would be closed the same way: not retried.
          return new LLMCallError(
            `${this.where()}: the server closed the connection without answering (${code}), and port ${this.port() || 80} speaks TLS: is this an HTTPS server? Then the base URL starts with https://`,
            { ...context, failure: 'connection' },
          );
        }
        // `https://` to a server that hangs up on a TLS handshake instead of answering it with plain HTTP's 400.
        const inHandshake = /before secure TLS connection was established/i.test(innermostMessage(error) ?? '')
          ? ': it hung up during the TLS handshake; if it serves plain HTTP, the base URL starts with http://'
          : '';
        // The server was there and hung up: asking whether one is running would send the user the wrong way.
        return new LLMCallError(
          `${this.where()}: the server closed the connection before answering (${code})${inHandshake}`,
          { ...context, failure: 'connection', isRetryable: true },
        );
      }
      if (code !== undefined && isTlsCode(code)) {
        const raw = innermostMessage(error);
        // OpenSSL's own text (`80DC…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:…`): its words.
        const said = (raw && /:SSL routines:[^:]*:([^:]+)/.exec(raw)?.[1]) ?? raw;
        const hint = /CERT|UNABLE_TO_/.test(code)
          ? ': if the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate'
          : /WRONG_VERSION|PACKET_LENGTH|HTTP_REQUEST/.test(code)
            ? ': is this a plain-HTTP server? Then the base URL starts with http://'
            : '';
        return new LLMCallError(`${this.where()}: TLS failed (${code}${said ? `: ${said}` : ''})${hint}`, {
          ...context,
          failure: 'connection',
        });
      }
      // No code: fetch's own refusals say why in words.
      const why = code ?? innermostMessage(error.cause);
      if (why === 'bad port') {
        return new LLMCallError(
          `${this.where()}: fetch refuses port ${this.port()}, one of the ports it never calls (6000, 6665–6669, 10080, …): serve the model on another port`,
          { ...context, failure: 'connection' },
        );
      }
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
        // No address to connect to: asking whether a server runs there sent users to look for one.
        return new LLMCallError(
          `${this.where()}: could not connect (${code}): the host name ${this.hostname()} does not resolve` +
            (code === 'EAI_AGAIN' ? ' (the DNS server did not answer in time)' : ': is it spelt right?'),
          { ...context, failure: 'connection', isRetryable: true },
        );
      }
      return new LLMCallError(
        `${this.where()}: could not connect${why ? ` (${why})` : ''}: is an OpenAI-compatible server running at ${this.options.baseURL}?`,
        { ...context, failure: 'connection', isRetryable: true },
      );
    }
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const status = error.status;
      const shouldRetry = error.headers?.get('x-should-retry');
      // OpenAI answers an exhausted quota or budget with a 429 too; no wait refills it, so retries only delay the news.
      const outOfQuota = error.code === 'insufficient_quota';
      const isRetryable =
        shouldRetry === 'true'
          ? true
          : shouldRetry === 'false' || outOfQuota
            ? false
            : LLMCallError.isRetryableStatus(status);
      const after = retryAfterMs(error.headers, status);
      const note = errorResponseNote(error.headers);
      const said = this.redact((note ? errorBodyText(note.text) : undefined) ?? messageOf(error.error, error.message));
      const location = status >= 300 && status < 400 ? error.headers?.get('location') : undefined;
      // A redirect left unfollowed: to a scheme other than http(s), or the 21st in a row.
      const unfollowed = location
        ? ` (a redirect to ${location.length > 200 ? `${location.slice(0, 200)}…` : location}, not followed: only http(s) redirects are, at most 20 in a row)`
        : '';
      const text = `HTTP ${status}: ${said}${this.notFoundHint(status)}${this.redact(this.redirectHint(note?.redirectedTo) + unfollowed)}`;
      // The same prompt overflows again on every attempt: never retried, and told apart so the episode ends scored.
      const overflow = isContextOverflowReply({ status, ...codeAndType(error), message: said });
      return new LLMCallError(`${this.where()}: ${text}`, {
        ...context,
        failure: overflow ? 'context-length' : 'http',
        status,
        isRetryable, // a context-length failure is never retried (LLMCallError)
        ...(after !== undefined ? { retryAfterMs: after } : {}),
      });
    }
    if (error instanceof OpenAI.APIError) {
      // No status: an error event inside a stream (`data: {"error": …}`), sent after a 200 when the model failed
      // part-way. OpenAI's `server_error`, an overloaded or rate-limited model, a 5xx code may pass if retried.
      const { type } = (error.error ?? {}) as { type?: unknown };
      const code = error.code ?? (error.error as { code?: unknown } | undefined)?.code;
      const isRetryable =
        type === 'server_error' ||
        /overload|rate.?limit|unavailable|timeout|server_error/i.test(`${String(type)} ${String(code)}`) ||
        (typeof code === 'number' && LLMCallError.isRetryableStatus(code));
      const said = this.redact(messageOf(error.error, error.message));
      const overflow = isContextOverflowReply({ status: undefined, code, type, message: said });
      return new LLMCallError(`${this.where()}: the server sent an error in the stream: ${said}`, {
        ...context,
        failure: overflow ? 'context-length' : 'http',
        isRetryable, // a context-length failure is never retried (LLMCallError)
      });
    }
    const decoding = decodingFailure(error);
    if (decoding !== undefined) {
      // The same bytes come back on every attempt: not retried.
      return this.invalidResponse(
        `the body does not decompress as its Content-Encoding says (${decoding}): a proxy that re-encodes bodies, or a server that labels them wrongly?`,
        error,
      );
    }
    const code = causeCode(error);
    if (code !== undefined && CONNECTION_CODES.has(code)) {
      // A connection that dropped mid-stream surfaces as a plain TypeError from fetch.
      return new LLMCallError(`${this.where()}: the connection failed mid-response (${code})`, {
        ...context,
        failure: 'connection',
        isRetryable: true,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    return this.invalidResponse(reason, error);
  }
}
