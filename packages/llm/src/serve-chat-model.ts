import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TurnGymError, compileValidator, defineOptions, type JSONSchemaType } from '@turngym/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatTokenLogprob } from './chat-model';
import {
  MAX_TOOLS,
  chatCompletionRequestSchema,
  type ChatCompletionRequestBody,
} from './internal/chat-completion-request';
import { fromWireMessages, fromWireTools, toWireLogprobs, toWireToolCall } from './internal/openai-wire';
import { LLMCallError } from './llm-call-error';
import { EXTENDED_SAMPLING_FIELDS } from './extended-sampling';
import { unsupportedSamplingField } from './unsupported-sampling';
import { approximateTokenCount } from './token-count';
import { parseRequestJson } from './parse-request-json';

/**
 * Faults the server injects on purpose, so retry and timeout paths are tested against a real socket.
 * Each applies to the first N chat-completion requests (counted from 0, faulted ones included).
 */
export interface ServerFaults {
  /** Answer the first N requests with `failStatus` and an OpenAI error body. */
  failFirst?: number;
  /** The status of injected failures (default 500; 429 for rate limits). */
  failStatus?: number;
  /** Send `retry-after-ms` with injected failures. */
  retryAfterMs?: number;
  /** Hold the first N requests for `delayMs` before answering (default: every request). */
  delayFirst?: number;
  delayMs?: number;
  /** Destroy the socket of the first N requests without answering (a crashed upstream). */
  dropFirst?: number;
}

export interface ServeChatModelOptions {
  /** 0 picks a free port. */
  port: number;
  /** Loopback by default: exposing a model beyond the machine is an explicit choice. */
  host: string;
  /** The model name clients must send (default: the model's id). */
  modelName?: string;
  /** Request bodies above this are refused with 413. */
  maxBodyBytes: number;
  faults?: ServerFaults;
}

export const serveChatModelOptionsSchema: JSONSchemaType<ServeChatModelOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
    host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    modelName: { type: 'string', minLength: 1, nullable: true },
    maxBodyBytes: { type: 'integer', minimum: 1, default: 16 * 1024 * 1024 },
    faults: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        failFirst: { type: 'integer', minimum: 0, nullable: true },
        failStatus: { type: 'integer', minimum: 400, maximum: 599, nullable: true },
        retryAfterMs: { type: 'number', minimum: 0, nullable: true },
        delayFirst: { type: 'integer', minimum: 0, nullable: true },
        delayMs: { type: 'number', minimum: 0, nullable: true },
        dropFirst: { type: 'integer', minimum: 0, nullable: true },
      },
    },
  },
};

const validateOptions = defineOptions<ServeChatModelOptions>('serveChatModel', serveChatModelOptionsSchema);

export interface ChatModelServer {
  /** `http://host:port` */
  readonly url: string;
  /** `http://host:port/v1`: what OpenAI clients take as `baseURL`. */
  readonly baseURL: string;
  readonly port: number;
  readonly modelName: string;
  /** Chat-completion requests received so far, faulted ones included. */
  readonly requestCount: number;
  /** Stops listening, drops open connections and pending delays. Idempotent. */
  close(): Promise<void>;
}

/** An HTTP error with OpenAI's error body `{ error: { message, type, code, param } }`. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const validateBody = compileValidator<ChatCompletionRequestBody>(
  chatCompletionRequestSchema,
  // `param` names the first field at fault (`n`, `max_tokens`, `messages`), as OpenAI's errors do: SDKs and
  // clients show it, and a null one left them only the message to parse.
  (problems) =>
    new HttpError(
      400,
      `Invalid request: ${problems.join('; ')}`,
      'invalid_request_error',
      'invalid_request',
      /^body\.([A-Za-z_]+)/.exec(problems[0] ?? '')?.[1] ?? null,
    ),
  'body',
);

/**
 * How deep a tool's `parameters` may nest (JSON Schemas of real tools stay under ten levels). The model, its cache key
 * and its chat template walk the schema recursively: one nested 100,000 levels deep, which JSON.parse takes, overflowed
 * the stack there, and the client's mistake was answered 500, a server fault.
 */
const MAX_TOOL_PARAMETERS_DEPTH = 64;

/** Whether `value` nests arrays or objects deeper than `limit` levels (counted without recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const item of Object.values(current)) stack.push({ value: item, depth: depth + 1 });
  }
  return false;
}

/** Refuses a tool whose `parameters` nest past `MAX_TOOL_PARAMETERS_DEPTH`, naming it. */
function refuseDeepToolParameters(body: ChatCompletionRequestBody): void {
  (body.tools ?? []).forEach((tool, index) => {
    if (nestsDeeperThan(tool.function.parameters, MAX_TOOL_PARAMETERS_DEPTH))
      throw new HttpError(
        400,
        `Invalid request: body.tools[${index}].function.parameters nests more than ${MAX_TOOL_PARAMETERS_DEPTH} ` +
          'levels deep; a JSON Schema for tool arguments needs a handful',
        'invalid_request_error',
        'invalid_request',
        'tools',
      );
  });
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

function sendError(response: ServerResponse, error: HttpError, headers: Record<string, string> = {}): void {
  const body = { error: { message: error.message, type: error.type, code: error.code, param: error.param } };
  if (response.headersSent) {
    // Mid-stream, an error event is what OpenAI sends and its clients raise; a connection already gone is left.
    if (!response.destroyed && !response.writableEnded && isEventStream(response)) {
      response.end(`data: ${JSON.stringify(body)}\n\n`);
    } else response.destroy();
    return;
  }
  sendJson(response, error.status, body, { ...error.headers, ...headers });
}

/** Responses whose headers said `text/event-stream` (Node keeps no copy of headers given to `writeHead`). */
const eventStreams = new WeakSet<ServerResponse>();

function isEventStream(response: ServerResponse): boolean {
  return eventStreams.has(response);
}

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(
          new HttpError(413, `Request body larger than ${limit} bytes`, 'invalid_request_error', 'request_too_large'),
        );
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * Maps a model's failure onto a status: an upstream HTTP status passes through, a prompt past the model's context
 * is the client's 400 (OpenAI's `context_length_exceeded`, which clients do not retry: the same prompt would fail
 * again), retryable faults are 503.
 */
function modelFailure(error: unknown): HttpError {
  const message = error instanceof Error ? error.message : String(error);
  // A local model's ContextLengthError, or an LLMCallError that is a context overflow (a local model's, whose cause is
  // that error, or an upstream endpoint's: LLMCallError reads both as `context-length`).
  const tooLong =
    (TurnGymError.isInstance(error) && error.code === 'CONTEXT_LENGTH_EXCEEDED') ||
    (error instanceof LLMCallError && error.failure === 'context-length');
  if (tooLong) return new HttpError(400, message, 'invalid_request_error', 'context_length_exceeded', 'messages');
  if (error instanceof LLMCallError && error.status !== undefined) {
    // A busy model (a local server's full queue) says when to come back: clients back off by Retry-After.
    const retryAfter = error.retryAfterMs;
    return new HttpError(
      error.status,
      message,
      errorType(error.status),
      error.status === 429 ? 'rate_limit_exceeded' : 'upstream_error',
      null,
      retryAfter === undefined
        ? {}
        : { 'retry-after': String(Math.max(1, Math.ceil(retryAfter / 1000))), 'retry-after-ms': String(retryAfter) },
    );
  }
  if (TurnGymError.isInstance(error) && error.isRetryable)
    return new HttpError(503, message, 'server_error', 'model_unavailable');
  return new HttpError(500, message, 'server_error', 'model_error');
}

/** Fields no ChatModel applies (`UNSUPPORTED_SAMPLING_FIELDS`), set to anything but off: refused, naming the field. */
function refuseUnsupportedSampling(body: ChatCompletionRequestBody): void {
  const problem = unsupportedSamplingField(body as unknown as Record<string, unknown>, 'chat');
  if (problem)
    throw new HttpError(400, problem.message, 'invalid_request_error', 'unsupported_parameter', problem.field);
}

/** The extended sampling fields a request turns on, as request fields; off values (and -1 for top_k) left out. */
function extendedSampling(body: ChatCompletionRequestBody, model: ChatModel): Record<string, number> {
  const fields: Record<string, number> = {};
  // A model that declares `supportsExtendedSampling` (LocalChatModel) gets them; for any other, a value that is not
  // off is refused naming the field, as the penalties are: ignoring it would sample other than what was asked.
  for (const [name, { field, off, expected, valid, isOff }] of Object.entries(EXTENDED_SAMPLING_FIELDS)) {
    const value = (body as unknown as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || !valid(value))
      throw new HttpError(
        400,
        `"${name}" must be ${expected}, got ${JSON.stringify(value)}.`,
        'invalid_request_error',
        'invalid_request',
        name,
      );
    if (isOff(value)) continue;
    if (model.supportsExtendedSampling !== true)
      throw new HttpError(
        400,
        `"${name}" is not supported by this server (got ${JSON.stringify(value)}); leave it out (or send ${off}).`,
        'invalid_request_error',
        'unsupported_parameter',
        name,
      );
    fields[field] = value;
  }
  return fields;
}

function toChatRequest(body: ChatCompletionRequestBody, signal: AbortSignal, model: ChatModel): ChatRequest {
  refuseUnsupportedSampling(body);
  const extended = extendedSampling(body, model);
  // As OpenAI: options for a stream on a request that does not stream are a client's mistake (it expected a usage
  // chunk, or meant to stream), not something to drop.
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true)
    throw new HttpError(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_request_error',
      'invalid_request',
      'stream_options',
    );
  const topLogprobs = body.top_logprobs ?? 0;
  // As OpenAI: alternatives come with the chosen tokens' logprobs, never alone (a client that sent only
  // top_logprobs would otherwise get `logprobs: null` and think the server has none).
  if (topLogprobs > 0 && body.logprobs !== true)
    throw new HttpError(
      400,
      `"top_logprobs" (${topLogprobs}) asks for alternatives to the chosen tokens' log-probabilities: send it ` +
        'with "logprobs": true',
      'invalid_request_error',
      'invalid_request',
      'top_logprobs',
    );
  // A model that gives no log-probabilities: answering with `logprobs: null` would leave a client that asked for
  // them (an evaluator scoring answers, a trainer) computing from nothing.
  if (body.logprobs === true && model.supportsLogprobs !== true)
    throw new HttpError(
      400,
      'This server returns no log-probabilities: leave out logprobs and top_logprobs',
      'invalid_request_error',
      'unsupported_parameter',
      'logprobs',
    );
  // Nor can it constrain a reply to JSON or force a tool call: a client that asked for either would parse whatever
  // text came back as if it had been constrained. Refused, as OpenAI refuses what a model cannot do.
  const format = (body.response_format as { type?: unknown } | null | undefined)?.type;
  if (body.response_format !== undefined && body.response_format !== null && format !== 'text')
    throw new HttpError(
      400,
      `This server cannot constrain replies (response_format ${JSON.stringify(body.response_format)}): leave ` +
        'response_format out (or {"type": "text"}) and parse the reply yourself',
      'invalid_request_error',
      'unsupported_parameter',
      'response_format',
    );
  if (body.tool_choice !== undefined && body.tool_choice !== 'auto' && body.tool_choice !== 'none')
    throw new HttpError(
      400,
      `This server cannot force a tool call (tool_choice ${JSON.stringify(body.tool_choice)}): use "auto" or ` +
        '"none"; the model calls a tool when it chooses to',
      'invalid_request_error',
      'unsupported_parameter',
      'tool_choice',
    );
  // OpenAI's deprecated function calling: ignored, the model was offered no tools and the client, waiting for a
  // `function_call`, got text.
  const legacy = body as { functions?: unknown; function_call?: unknown };
  const legacyField =
    Array.isArray(legacy.functions) && legacy.functions.length > 0
      ? 'functions'
      : typeof legacy.function_call === 'object' && legacy.function_call !== null
        ? 'function_call'
        : undefined;
  if (legacyField !== undefined)
    throw new HttpError(
      400,
      `"${legacyField}" (OpenAI's deprecated function calling) is not served: send the functions as "tools" ` +
        '([{"type": "function", "function": {...}}]) and read "tool_calls"',
      'invalid_request_error',
      'unsupported_parameter',
      legacyField,
    );
  let messages;
  try {
    messages = fromWireMessages(body.messages);
  } catch (error) {
    throw new HttpError(
      400,
      `Invalid messages: ${(error as Error).message}`,
      'invalid_request_error',
      'invalid_request',
      'messages',
    );
  }
  // An empty stop would end every reply before its first character; a model handed one fails as a server error.
  if ((typeof body.stop === 'string' ? [body.stop] : (body.stop ?? [])).includes(''))
    throw new HttpError(
      400,
      '"stop" must not contain an empty string',
      'invalid_request_error',
      'invalid_request',
      'stop',
    );
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const useTools = body.tools && body.tools.length > 0 && body.tool_choice !== 'none';
  return {
    messages,
    ...(useTools ? { tools: fromWireTools(body.tools ?? []) } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { topP: body.top_p } : {}),
    ...(typeof maxTokens === 'number' ? { maxTokens } : {}),
    ...(body.stop !== undefined && body.stop !== null ? { stop: body.stop } : {}),
    ...(typeof body.seed === 'number' ? { seed: body.seed } : {}),
    ...(body.logprobs === true ? { logprobs: true, topLogprobs } : {}),
    ...extended,
    signal,
  };
}

function wireMessage(response: ChatResponse): Record<string, unknown> {
  const calls = response.message.toolCalls ?? [];
  return {
    role: 'assistant',
    content: calls.length > 0 && response.message.content === '' ? null : response.message.content,
    refusal: null,
    ...(calls.length > 0
      ? { tool_calls: calls.map((call, position) => toWireToolCall(call, `call_${position}`)) }
      : {}),
  };
}

function wireUsage(response: ChatResponse): Record<string, number> {
  const { promptTokens, completionTokens } = response.usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

/** A choice's `logprobs` in OpenAI's chat shape: null when the request did not ask for them. */
function wireLogprobs(entries: readonly ChatTokenLogprob[] | undefined): Record<string, unknown> | null {
  return entries === undefined ? null : { content: toWireLogprobs(entries), refusal: null };
}

/**
 * The reply's log-probabilities, which a request that asked for them must get: a model that answered without them
 * (an upstream server that ignores `logprobs`) fails the request rather than leave the client scoring nothing.
 */
function requiredLogprobs(request: ChatRequest, result: ChatResponse): readonly ChatTokenLogprob[] | undefined {
  if (request.logprobs !== true) return undefined;
  if (result.logprobs === undefined)
    throw new HttpError(
      502,
      'The model answered without the log-probabilities asked for',
      'server_error',
      'model_error',
    );
  return result.logprobs;
}

/** Splits text into word-sized pieces, as a token stream would arrive. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

const created = (): number => Math.floor(Date.now() / 1000);

/**
 * One streamed chat completion: SSE chunks in OpenAI's shape (one `id` and `created` throughout). The headers and
 * the role chunk go out with the first content, so a request the model refuses before it writes anything still gets
 * its error status; `finish` sends what the deltas did not (all of it, for a model that does not stream), the tool
 * calls, the finish reason, the usage chunk (`include_usage`) and `[DONE]`.
 */
class ChatStream {
  private id: string | undefined;
  private base: Record<string, unknown> = {};
  private sent = '';
  /** Log-probability entries sent so far (`logprobs`: the request asked for them). */
  private entriesSent = 0;

  constructor(
    private readonly response: ServerResponse,
    private readonly nextId: () => string,
    private readonly modelName: string,
    private readonly includeUsage: boolean,
  ) {}

  /** Sends `text`, the next piece of the reply's content, with the log-probabilities of the tokens that wrote it. */
  content(text: string, logprobs?: readonly ChatTokenLogprob[]): void {
    if (text === '' && (logprobs ?? []).length === 0) return;
    this.open();
    this.sent += text;
    this.entriesSent += logprobs?.length ?? 0;
    this.chunk({ content: text }, null, logprobs);
  }

  /** `logprobs`: the reply's entries when the request asked for them; the chunks carry those not sent yet. */
  finish(result: ChatResponse, logprobs?: readonly ChatTokenLogprob[]): void {
    this.open();
    const content = result.message.content;
    let entries = logprobs?.slice(this.entriesSent);
    // The deltas are a prefix of the content when the model streams; what is left goes out in word-sized pieces,
    // the first with the entries not sent yet (a model that does not stream sends them all there).
    if (content.startsWith(this.sent))
      for (const piece of pieces(content.slice(this.sent.length))) {
        this.content(piece, entries);
        entries = entries && [];
      }
    if (entries && entries.length > 0) this.content('', entries);
    (result.message.toolCalls ?? []).forEach((call, index) => {
      const wire = toWireToolCall(call, `call_${index}`);
      this.chunk({
        tool_calls: [{ index, id: wire.id, type: 'function', function: { name: wire.function.name, arguments: '' } }],
      });
      // Arguments arrive in pieces from real servers; split them so clients must reassemble.
      const half = Math.ceil(wire.function.arguments.length / 2);
      for (const part of [wire.function.arguments.slice(0, half), wire.function.arguments.slice(half)]) {
        if (part !== '') this.chunk({ tool_calls: [{ index, function: { arguments: part } }] });
      }
    });
    this.chunk({}, result.finishReason);
    if (this.includeUsage) this.send({ ...this.base, choices: [], usage: wireUsage(result) });
    if (!this.response.destroyed) this.response.end('data: [DONE]\n\n');
  }

  /** A model that declined, as OpenAI streams it: the text as `delta.refusal`, then the finish. */
  refuse(refusal: string, usage: Record<string, number>): void {
    this.open();
    this.chunk({ refusal });
    this.chunk({}, 'stop');
    if (this.includeUsage) this.send({ ...this.base, choices: [], usage });
    if (!this.response.destroyed) this.response.end('data: [DONE]\n\n');
  }

  private open(): void {
    if (this.id !== undefined) return;
    this.id = this.nextId();
    this.base = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: created(),
      model: this.modelName,
      system_fingerprint: 'turngym',
    };
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    eventStreams.add(this.response);
    this.chunk({ role: 'assistant', content: '' });
  }

  private chunk(
    delta: Record<string, unknown>,
    finishReason: string | null = null,
    logprobs?: readonly ChatTokenLogprob[],
  ): void {
    this.send({
      ...this.base,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: wireLogprobs(logprobs) }],
      ...(this.includeUsage ? { usage: null } : {}),
    });
  }

  private send(payload: unknown): void {
    // A client that hung up: its generation stops at the next pass; nothing is left to write to.
    if (this.response.destroyed) return;
    this.response.write(`data: ${JSON.stringify(payload)}\n\n`);
  }
}

/**
 * Serves a ChatModel as an OpenAI-compatible HTTP server (node:http): `GET /v1/models`,
 * `POST /v1/chat/completions` with and without `stream: true` (SSE chunks, tool-call deltas, usage with
 * `stream_options.include_usage`), `logprobs` / `top_logprobs` for a model with `supportsLogprobs` (plain, and
 * per chunk when streamed), vLLM's `top_k` / `min_p` / `repetition_penalty` for a model with
 * `supportsExtendedSampling`, OpenAI error bodies, 400 for bodies that fail the request schema, 404 for
 * an unknown model name. Any OpenAI client (Python, TS, curl) can then drive the model — this is what
 * `turngym serve-model` runs for a local checkpoint. `faults` injects failures for retry tests.
 */
export async function serveChatModel(
  model: ChatModel,
  options: Partial<ServeChatModelOptions> = {},
): Promise<ChatModelServer> {
  const settings = validateOptions(options);
  const modelName = settings.modelName ?? model.id;
  const faults = settings.faults ?? {};
  let requestCount = 0;
  let completionCount = 0;
  const nextId = (): string => `chatcmpl-turngym-${++completionCount}`;
  /** A whole (not streamed) chat.completion answer of one choice. */
  const completion = (choice: Record<string, unknown>, usage: unknown): Record<string, unknown> => ({
    id: nextId(),
    object: 'chat.completion',
    created: created(),
    model: modelName,
    system_fingerprint: 'turngym',
    choices: [choice],
    usage,
  });
  const pendingDelays = new Set<() => void>();
  const delay = (ms: number, response: ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      const finish = (completed: boolean): void => {
        clearTimeout(timer);
        pendingDelays.delete(cancel);
        response.off('close', cancel);
        resolve(completed);
      };
      const cancel = (): void => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      pendingDelays.add(cancel);
      response.once('close', cancel);
    });

  function sendRefusal(
    response: ServerResponse,
    refusal: string,
    body: ChatCompletionRequestBody,
    stream: ChatStream | undefined,
  ): void {
    // The model counted no tokens for a reply it did not write: estimated, as for models that count none.
    const prompt = approximateTokenCount(JSON.stringify(body.messages));
    const written = approximateTokenCount(refusal);
    const usage = { prompt_tokens: prompt, completion_tokens: written, total_tokens: prompt + written };
    if (stream) {
      stream.refuse(refusal, usage);
      return;
    }
    sendJson(
      response,
      200,
      completion(
        { index: 0, message: { role: 'assistant', content: null, refusal }, finish_reason: 'stop', logprobs: null },
        usage,
      ),
    );
  }

  async function chatCompletions(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const index = requestCount++;
    const raw = await readBody(request, settings.maxBodyBytes);
    if (index < (faults.dropFirst ?? 0)) {
      request.socket.destroy();
      return;
    }
    if (faults.delayMs !== undefined && index < (faults.delayFirst ?? Number.POSITIVE_INFINITY)) {
      if (!(await delay(faults.delayMs, response))) return;
    }
    if (index < (faults.failFirst ?? 0)) {
      const status = faults.failStatus ?? 500;
      const headers: Record<string, string> =
        faults.retryAfterMs !== undefined ? { 'retry-after-ms': String(faults.retryAfterMs) } : {};
      sendError(
        response,
        new HttpError(
          status,
          `Injected fault ${index + 1} of ${faults.failFirst}`,
          errorType(status),
          'injected_fault',
        ),
        headers,
      );
      return;
    }
    const read = parseRequestJson(raw, request.headers);
    if (!read.ok)
      throw new HttpError(read.problem.status, read.problem.message, 'invalid_request_error', read.problem.code);
    const parsed = read.value;
    // Counted before the schema runs: validating copies the whole body first, up to ~1.8 s of the event loop for
    // 100,000 tools, every other client waiting, before "at most 128" could be said.
    const tools = (parsed as { tools?: unknown } | null)?.tools;
    if (Array.isArray(tools) && tools.length > MAX_TOOLS)
      throw new HttpError(
        400,
        `Invalid request: body.tools must NOT have more than ${MAX_TOOLS} items (got ${tools.length}), as on OpenAI`,
        'invalid_request_error',
        'invalid_request',
        'tools',
      );
    const body = validateBody(parsed);
    refuseDeepToolParameters(body);
    if (body.model !== modelName) {
      throw new HttpError(
        404,
        `The model "${body.model}" does not exist; this server serves "${modelName}".`,
        'invalid_request_error',
        'model_not_found',
        'model',
      );
    }
    const aborted = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) aborted.abort();
    });
    const stream = body.stream
      ? new ChatStream(response, nextId, modelName, body.stream_options?.include_usage === true)
      : undefined;
    let result: ChatResponse;
    let chatRequest: ChatRequest;
    try {
      chatRequest = toChatRequest(body, aborted.signal, model);
      // A model that streams (LocalChatModel) calls `onDelta` as it decodes, with the log-probabilities of the
      // tokens that wrote each delta when they were asked for; others answer once, split below.
      const onDelta = (text: string, logprobs?: readonly ChatTokenLogprob[]): void =>
        stream?.content(text, chatRequest.logprobs === true ? (logprobs ?? []) : undefined);
      result = await model.complete(stream ? ({ ...chatRequest, onDelta } as ChatRequest) : chatRequest);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      // A refusal is an answer, not a failure: OpenAI sends it as `message.refusal` with no content, which clients
      // (OpenAIChatModel among them) read as such. A 500 would be retried, and the same request refused again.
      if (error instanceof LLMCallError && error.failure === 'refusal' && error.refusal !== undefined) {
        sendRefusal(response, error.refusal, body, stream);
        return;
      }
      throw modelFailure(error);
    }
    const logprobs = requiredLogprobs(chatRequest, result);
    if (stream) stream.finish(result, logprobs);
    else {
      sendJson(
        response,
        200,
        completion(
          {
            index: 0,
            message: wireMessage(result),
            finish_reason: result.finishReason,
            logprobs: wireLogprobs(logprobs),
          },
          wireUsage(result),
        ),
      );
    }
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    const route = path.replace(/^\/v1(?=\/)/, '');
    const handle = async (): Promise<void> => {
      if (route === '/chat/completions') {
        if (request.method !== 'POST')
          throw new HttpError(405, 'Use POST for /v1/chat/completions', 'invalid_request_error', 'method_not_allowed');
        await chatCompletions(request, response);
      } else if (route === '/models' && request.method === 'GET') {
        sendJson(response, 200, {
          object: 'list',
          data: [{ id: modelName, object: 'model', created: 0, owned_by: 'turngym' }],
        });
      } else if (route === `/models/${encodeURIComponent(modelName)}` && request.method === 'GET') {
        sendJson(response, 200, { id: modelName, object: 'model', created: 0, owned_by: 'turngym' });
      } else if (route === '/health' && request.method === 'GET') {
        sendJson(response, 200, { status: 'ok' });
      } else {
        throw new HttpError(
          404,
          `No route ${request.method ?? 'GET'} ${path}; this server has GET /v1/models and POST /v1/chat/completions`,
          'invalid_request_error',
          'not_found',
        );
      }
    };
    handle().catch((error: unknown) => {
      sendError(
        response,
        error instanceof HttpError
          ? error
          : new HttpError(
              500,
              error instanceof Error ? error.message : String(error),
              'server_error',
              'internal_error',
            ),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    baseURL: `${url}/v1`,
    port: address.port,
    modelName,
    get requestCount() {
      return requestCount;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const cancel of [...pendingDelays]) cancel();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
