import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineOptions, mixSeed, type JSONSchemaType } from '@turngym/core';
import {
  EXTENDED_SAMPLING_FIELDS,
  LLMCallError,
  parseRequestJson,
  serveChatModel,
  unsupportedSamplingField,
} from '@turngym/llm';
import { BACKEND_NAMES, type BackendName } from './backend';
import type { LanguageModel } from './language-model';
import { loadModel } from './load-model';
import { ContextLengthError, TokenizerMismatchError } from './lm-errors';
import { CompletionStream } from './completion-stream';
import { completionLogprobs, MAX_COMPLETION_LOGPROBS, textOffsets } from './completion-logprobs';
import type { Generation } from './generation';
import type { TokenLogprob } from './top-logprobs';
import { generateInTurns } from './generate-in-turns';
import { GenerationQueue } from './generation-queue';
import { LocalChatModel } from './local-chat-model';
import { preparePromptSizeBound, refuseUnfittablePrompt } from './prompt-size-bound';
import { ServeModelTokenizer } from './serve-model-tokenizer';

export interface ServeModelOptions {
  /** A checkpoint directory or a built-in config name. */
  checkpoint: string;
  /** 0 picks a free port. */
  port: number;
  /** Loopback by default: exposing a model beyond the machine is an explicit choice. */
  host: string;
  backend: BackendName;
  /** The name clients send as `model` (default: the checkpoint's directory name). */
  modelName?: string;
  /** Generate with this LoRA adapter from the checkpoint's adapters/. */
  adapter?: string;
  /**
   * The most completions one `/v1/completions` request may ask for (prompts × `n`): all of them decode as one batch,
   * so this bounds one request's memory and the time it holds the model. 256 by default (four prompts at the largest
   * `n`); a request over it gets a 400 naming `prompt` or `n`.
   */
  maxRowsPerRequest: number;
  /**
   * Generations decoding at once, across `/v1/completions` and `/v1/chat/completions` (4 by default). Each decodes
   * in a batch of its own, and on models whose fused weights are not kept between calls (over 10M layer weights:
   * tiny-30m, real checkpoints) with its own copy of them (~75 MB on tiny-30m: q/k/v and gate/up concatenated):
   * this bounds the server's memory. They interleave pass by pass, so a short request is not held behind a long
   * one while a slot is free.
   */
  maxConcurrentRequests: number;
  /**
   * Requests that wait for a free generation, in arrival order (64 by default); past that a request is answered
   * 429 with `Retry-After` (OpenAI clients back off and retry). 0: every request past `maxConcurrentRequests` is a 429.
   */
  maxQueuedRequests: number;
}

export const serveModelOptionsSchema: JSONSchemaType<ServeModelOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['checkpoint'],
  properties: {
    checkpoint: { type: 'string', minLength: 1 },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 8000 },
    host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    backend: { type: 'string', enum: [...BACKEND_NAMES], default: 'auto' },
    modelName: { type: 'string', minLength: 1, nullable: true },
    adapter: { type: 'string', minLength: 1, nullable: true },
    maxRowsPerRequest: { type: 'integer', minimum: 1, default: 256 },
    maxConcurrentRequests: { type: 'integer', minimum: 1, default: 4 },
    maxQueuedRequests: { type: 'integer', minimum: 0, default: 64 },
  },
};

const validateOptions = defineOptions<ServeModelOptions>('serveModel', serveModelOptionsSchema);

export interface ModelServer {
  readonly url: string;
  /** What OpenAI clients take as `baseURL`. */
  readonly baseURL: string;
  readonly port: number;
  readonly modelName: string;
  readonly model: LanguageModel;
  /** Stops the generations in flight (at their next decoder pass), both listeners, and frees the model. Idempotent. */
  close(): Promise<void>;
}

interface CompletionBody {
  model?: unknown;
  prompt?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  temperature?: unknown;
  top_p?: unknown;
  stop?: unknown;
  seed?: unknown;
  n?: unknown;
  stream?: unknown;
  stream_options?: unknown;
  logprobs?: unknown;
  top_logprobs?: unknown;
  echo?: unknown;
  [field: string]: unknown;
}

function refuseUnsupported(body: CompletionBody): void {
  // The chat API's name for max_tokens, which OpenAI's /v1/completions does not know: ignored, the default of 16
  // tokens applied and the client got a cut completion with no word why.
  if (body.max_completion_tokens !== undefined && body.max_completion_tokens !== null)
    throw new RequestError(
      400,
      `"max_completion_tokens" is the chat API's field; /v1/completions takes "max_tokens" ` +
        `(got ${JSON.stringify(body.max_completion_tokens)}).`,
      'unsupported_parameter',
      'max_completion_tokens',
    );
  // What the sampler does not apply (@turngym/llm's table, shared with the chat server): refused unless off.
  const problem = unsupportedSamplingField(body, 'completions');
  if (problem) throw new RequestError(400, problem.message, 'unsupported_parameter', problem.field);
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
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

/** OpenAI's `stream` and `stream_options`: whether to stream, and whether a usage chunk ends the stream. */
function streamSettings(body: CompletionBody): { stream: boolean; includeUsage: boolean } {
  const { stream, stream_options: streamOptions } = body;
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean')
    throw new RequestError(
      400,
      `"stream" must be true or false, got ${JSON.stringify(stream)}.`,
      'invalid_request',
      'stream',
    );
  const include = (streamOptions as { include_usage?: unknown } | null | undefined)?.include_usage;
  if (
    (streamOptions !== undefined &&
      streamOptions !== null &&
      (typeof streamOptions !== 'object' || Array.isArray(streamOptions))) ||
    (include !== undefined && include !== null && typeof include !== 'boolean')
  ) {
    throw new RequestError(
      400,
      '"stream_options" must be an object such as {"include_usage": true}.',
      'invalid_request',
      'stream_options',
    );
  }
  // As OpenAI: options for a stream on a request that does not stream are a client's mistake (it expected a usage
  // chunk, or meant to stream), not something to drop.
  if (streamOptions !== undefined && streamOptions !== null && stream !== true)
    throw new RequestError(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_request',
      'stream_options',
    );
  return { stream: stream === true, includeUsage: stream === true && include === true };
}

/** Far above any prompt that fits a context; stops one request from filling the server's memory. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** OpenAI's limit on stop sequences. */
const MAX_STOP_SEQUENCES = 4;

/** The body as text; past MAX_BODY_BYTES the rest is read and dropped, so the client still gets its 413. */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        reject(new RequestError(413, `The request body is over ${MAX_BODY_BYTES} bytes.`, 'request_too_large'));
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

function optionalNumber(
  body: CompletionBody,
  field: string,
  fallback: number,
  expected = 'a number',
  isAllowed: (value: number) => boolean = () => true,
): number {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || !isAllowed(value)) {
    throw new RequestError(
      400,
      `"${field}" must be ${expected}, got ${JSON.stringify(value)}.`,
      'invalid_request',
      field,
    );
  }
  return value;
}

const isWhole = (value: number, min: number, max = Infinity): boolean =>
  Number.isInteger(value) && value >= min && value <= max;

/** OpenAI's `stop`: a string or up to four non-empty strings. */
function stopSequences(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  const list = typeof stop === 'string' ? [stop] : stop;
  if (
    !Array.isArray(list) ||
    list.length > MAX_STOP_SEQUENCES ||
    !list.every((each) => typeof each === 'string' && each.length > 0)
  ) {
    throw new RequestError(
      400,
      `"stop" must be a string or a list of at most ${MAX_STOP_SEQUENCES} non-empty strings.`,
      'invalid_request',
      'stop',
    );
  }
  return list as string[];
}

/**
 * What `logprobs` asks for: the chosen tokens' log-probabilities (`logprobs` true or 0..5), and how many likeliest
 * alternatives at each token (`top`: N for `logprobs: N`, OpenAI's cap 5). `top_logprobs` is the chat API's name
 * for N; on /v1/completions a value above 0 is refused, pointing at `logprobs`, rather than ignored.
 */
function logprobsWanted(body: CompletionBody): { wanted: boolean; top: number } {
  const { logprobs, top_logprobs: top } = body;
  if (top !== undefined && top !== null) {
    if (typeof top !== 'number' || !isWhole(top, 0, 20))
      throw new RequestError(
        400,
        `"top_logprobs" must be an integer from 0 to 20, got ${JSON.stringify(top)}.`,
        'invalid_request',
        'top_logprobs',
      );
    if (top > 0)
      throw new RequestError(
        400,
        `"top_logprobs" is the chat API's field; on /v1/completions ask for the ${top} likeliest alternatives ` +
          `at each token with "logprobs": ${Math.min(top, MAX_COMPLETION_LOGPROBS)} (at most ${MAX_COMPLETION_LOGPROBS}).`,
        'unsupported_parameter',
        'top_logprobs',
      );
  }
  if (logprobs === undefined || logprobs === null || logprobs === false) return { wanted: false, top: 0 };
  if (logprobs === true) return { wanted: true, top: 0 };
  if (typeof logprobs !== 'number' || !isWhole(logprobs, 0, MAX_COMPLETION_LOGPROBS))
    throw new RequestError(
      400,
      `"logprobs" must be an integer from 0 to ${MAX_COMPLETION_LOGPROBS} (the likeliest alternatives listed at ` +
        `each token, at most ${MAX_COMPLETION_LOGPROBS} as on OpenAI) or true / false, got ${JSON.stringify(logprobs)}.`,
      'invalid_request',
      'logprobs',
    );
  return { wanted: true, top: logprobs };
}

/**
 * vLLM's sampling fields beyond OpenAI's (@turngym/llm's `EXTENDED_SAMPLING_FIELDS`, shared with the chat server),
 * applied by the sampler. Off values are left out, so such a request samples what it always did.
 */
function extendedSampling(body: CompletionBody): { topK?: number; minP?: number; repetitionPenalty?: number } {
  const fields: { topK?: number; minP?: number; repetitionPenalty?: number } = {};
  for (const [name, { field, off, expected, valid, isOff }] of Object.entries(EXTENDED_SAMPLING_FIELDS)) {
    const value = optionalNumber(body, name, off, expected, valid);
    if (!isOff(value)) fields[field] = value;
  }
  return fields;
}

/** How many prompts `prompt` holds, counted before any is tokenized: a list of token ids is one prompt. */
function promptCount(prompt: unknown): number {
  if (!Array.isArray(prompt) || prompt.every((each) => Number.isInteger(each))) return 1;
  return prompt.length;
}

/**
 * The text one `/v1/completions` request with several prompts may hold in all. Each prompt is bounded on its own
 * (refuseUnfittablePrompt), but up to `maxRowsPerRequest` of them, each under that bound, added up to minutes of
 * tokenizing that block the event loop: on a byte-level BPE whose longest token is 64 spaces, a prompt of 66 KB of
 * spaces fits a 1024-token context by the bound and takes ~0.9 s to tokenize here, so 256 of them ~4 minutes, while
 * every other client waits. 1 MiB is 256 prompts of 4 KiB (about a thousand tokens each); the worst text to tokenize
 * (one long word BPE merges step by step, ~13-25 µs a byte) then costs seconds, not minutes. One prompt alone is
 * bounded by the context only, as before.
 */
const MAX_PROMPT_BYTES_PER_REQUEST = 1024 * 1024;

const PROMPT_SHAPE = '"prompt" must be a string, a list of strings, or token ids.';

/**
 * OpenAI's prompt forms: a string, strings, token ids, or lists of token ids. Every string is checked before any is
 * tokenized, since tokenizing costs seconds on a hostile megabyte (a long prompt's in the server's tokenizer
 * worker, the event loop free meanwhile, but the worker busy): one too long to fit the
 * context whatever it tokenizes to (refuseUnfittablePrompt), and several adding up past
 * MAX_PROMPT_BYTES_PER_REQUEST, are refused with nothing tokenized.
 */
async function promptTokens(
  model: LanguageModel,
  tokenizer: ServeModelTokenizer,
  prompt: unknown,
): Promise<number[][]> {
  const isTokens = (value: unknown): value is number[] =>
    Array.isArray(value) && value.every((each) => Number.isInteger(each));
  let prompts: (string | number[])[];
  if (typeof prompt === 'string') prompts = [prompt];
  else if (isTokens(prompt) && prompt.length > 0) prompts = [prompt];
  else if (Array.isArray(prompt) && prompt.length > 0) {
    prompts = prompt.map((each) => {
      if (typeof each === 'string' || isTokens(each)) return each;
      throw new RequestError(400, PROMPT_SHAPE, 'invalid_request', 'prompt');
    });
  } else throw new RequestError(400, PROMPT_SHAPE, 'invalid_request', 'prompt');
  let bytes = 0;
  prompts.forEach((each, index) => {
    if (typeof each !== 'string') return;
    try {
      refuseUnfittablePrompt(
        model.tokenizer,
        each,
        model.config.maxPositions,
        prompts.length > 1 ? `prompt ${index}` : 'prompt',
      );
    } catch (error) {
      if (error instanceof ContextLengthError)
        throw new RequestError(400, error.message, 'context_length_exceeded', 'prompt');
      throw error;
    }
    bytes += Buffer.byteLength(each);
  });
  if (prompts.length > 1 && bytes > MAX_PROMPT_BYTES_PER_REQUEST)
    throw new RequestError(
      400,
      `The ${prompts.length} prompts of this request hold ${bytes} bytes of text in all; this server tokenizes at ` +
        `most ${MAX_PROMPT_BYTES_PER_REQUEST} bytes of prompts per request. Send them in several requests, or as ` +
        'token ids.',
      'invalid_request',
      'prompt',
    );
  // One at a time: a long one goes to the tokenizer's worker, and the event loop serves other clients meanwhile.
  const tokens: number[][] = [];
  for (const each of prompts)
    tokens.push(typeof each === 'string' ? await tokenizer.encode(each, { addSpecialTokens: true }) : each);
  return tokens;
}

/**
 * Serves a checkpoint as an OpenAI-compatible server: `/v1/chat/completions` (streaming too) and
 * `/v1/models` come from @turngym/llm's `serveChatModel` over a LocalChatModel; `/v1/completions`
 * (prompt strings or token ids, batched, `n`, `logprobs` with `text_offset`, streaming) is answered here, and every
 * other request is passed through to the chat server. Both endpoints take vLLM's `top_k`, `min_p` and
 * `repetition_penalty`, and tokenize long prompts off the event loop (ServeModelTokenizer). This is
 * `turngym serve-model`.
 */
export async function serveModel(input: Partial<ServeModelOptions> & { checkpoint: string }): Promise<ModelServer> {
  const options = validateOptions(input);
  const model = await loadModel(options.checkpoint, { backend: options.backend });
  // Checked before serving: otherwise the server starts and every request fails on the missing adapter.
  if (options.adapter) {
    try {
      model.adapter(options.adapter);
    } catch (error) {
      model.dispose();
      throw error;
    }
  }
  // A pass over the vocabulary, done before the first request instead of during it.
  preparePromptSizeBound(model.tokenizer);
  const modelName =
    options.modelName ?? (options.checkpoint.split(/[\\/]/).filter(Boolean).pop() || options.checkpoint);
  // One queue for both endpoints: a chat and a completion decode in the same process, with the same weights.
  const queue = new GenerationQueue(options.maxConcurrentRequests, options.maxQueuedRequests);
  // Long prompts, on both endpoints, are tokenized off the event loop.
  const promptTokenizer = new ServeModelTokenizer(model.tokenizer);
  const chat = new LocalChatModel(model, {
    queue,
    encode: (text) => promptTokenizer.encode(text),
    ...(options.adapter ? { adapter: options.adapter } : {}),
  });
  const inner = await serveChatModel(chat, { port: 0, host: '127.0.0.1', modelName });
  let completionCount = 0;
  /** Aborted by `close`: generations in flight stop at their next pass instead of decoding into freed weights. */
  const closing = new AbortController();

  /** Refuses a request for more completions than `maxRowsPerRequest`, before its prompts are tokenized. */
  function checkRows(prompt: unknown, n: number): void {
    const prompts = promptCount(prompt);
    const limit = options.maxRowsPerRequest;
    if (prompts * n <= limit) return;
    throw new RequestError(
      400,
      `This request asks for ${prompts} prompt${prompts === 1 ? '' : 's'} × n = ${n}, ${prompts * n} completions; ` +
        `this server generates at most ${limit} per request (maxRowsPerRequest). Send fewer prompts or a smaller n.`,
      'invalid_request',
      prompts > limit ? 'prompt' : 'n',
    );
  }

  /**
   * Each prompt's token log-probabilities (the first token's null: nothing predicts it), for `echo` with `logprobs`,
   * and with `top` > 0 the likeliest alternatives at each token (null at the first).
   * One prompt per forward pass, in a generation slot of the queue, so scoring is bounded as generation is.
   */
  async function scorePrompts(
    prompts: readonly number[][],
    top: number,
    signal: AbortSignal,
  ): Promise<{ logprobs: (number | null)[]; topLogprobs: (TokenLogprob[] | null)[] | undefined }[]> {
    const release = await queue.acquire(signal);
    try {
      const scored: { logprobs: (number | null)[]; topLogprobs: (TokenLogprob[] | null)[] | undefined }[] = [];
      for (const tokens of prompts) {
        signal.throwIfAborted();
        const { logprobs, topLogprobs } = await model.score([{ tokens }], {
          adapter: options.adapter ?? null,
          topLogprobs: top,
        });
        scored.push({ logprobs: logprobs[0]!, topLogprobs: topLogprobs?.[0] });
      }
      return scored;
    } finally {
      release();
    }
  }

  async function completions(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const read = parseRequestJson(text, request.headers);
    if (!read.ok) throw new RequestError(read.problem.status, read.problem.message, read.problem.code);
    const body = read.value as CompletionBody;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new RequestError(400, 'The request body must be a JSON object', 'invalid_request');
    if (typeof body.model !== 'string')
      throw new RequestError(400, '"model" is required: the name of the model to use.', 'invalid_request', 'model');
    if (body.model !== modelName) {
      throw new RequestError(
        404,
        `The model "${String(body.model)}" does not exist; this server serves "${modelName}".`,
        'model_not_found',
        'model',
      );
    }
    refuseUnsupported(body);
    const n = optionalNumber(body, 'n', 1, 'an integer from 1 to 64', (value) => isWhole(value, 1, 64));
    checkRows(body.prompt, n);
    const prompts = await promptTokens(model, promptTokenizer, body.prompt);
    // Checked before the request queues: a prompt that cannot fit should not wait for a slot to be refused.
    const tooLong = prompts.findIndex((tokens) => tokens.length > model.config.maxPositions);
    if (tooLong >= 0) {
      const { message } = new ContextLengthError(
        prompts[tooLong]!.length,
        model.config.maxPositions,
        prompts.length > 1 ? `prompt ${tooLong}` : 'prompt',
      );
      throw new RequestError(400, message, 'context_length_exceeded', 'prompt');
    }
    const empty = prompts.findIndex((tokens) => tokens.length === 0);
    if (empty >= 0) {
      throw new RequestError(
        400,
        `Prompt ${empty} is empty, and this model's tokenizer adds no start token to generate from: send at least one token.`,
        'invalid_request',
        'prompt',
      );
    }
    if (body.echo !== undefined && body.echo !== null && typeof body.echo !== 'boolean')
      throw new RequestError(
        400,
        `"echo" must be true or false, got ${JSON.stringify(body.echo)}.`,
        'invalid_request',
        'echo',
      );
    const stop = stopSequences(body.stop);
    const seed = optionalNumber(body, 'seed', 0, 'an integer', Number.isInteger);
    // OpenAI's ranges; generate() would take a higher temperature, but a client sending one has a bug.
    const topP = optionalNumber(body, 'top_p', 1, 'from 0 to 1', (value) => value >= 0 && value <= 1);
    const temperature = optionalNumber(body, 'temperature', 1, 'from 0 to 2', (value) => value >= 0 && value <= 2);
    // OpenAI's top_p runs from 0, where only the likeliest token is left: greedy decoding, as the chat endpoint
    // (LocalChatModel) reads it. This one refused it, so the same client settings worked on one endpoint only.
    const sampling = {
      maxTokens: optionalNumber(body, 'max_tokens', 16, 'an integer >= 0', (value) => isWhole(value, 0)),
      temperature: topP === 0 ? 0 : temperature,
      topP: topP === 0 ? 1 : topP,
      ...extendedSampling(body),
    };
    const { wanted: wantLogprobs, top } = logprobsWanted(body);
    const { stream, includeUsage } = streamSettings(body);
    // With `echo`, OpenAI's logprobs cover the prompt's tokens too (what evaluators read to score a text); a stream
    // would have to send them in its first chunk, which it does not, so that combination is refused.
    const scorePrompt = body.echo === true && wantLogprobs;
    if (scorePrompt && stream)
      throw new RequestError(
        400,
        '"echo" with "logprobs" is served without "stream": the prompt\'s log-probabilities come in one answer.',
        'unsupported_parameter',
        'stream',
      );
    const requests = prompts.flatMap((tokens, p) =>
      Array.from({ length: n }, (_, i) => ({ tokens, seed: mixSeed(seed, p, i) })),
    );
    const echo = (index: number): string => (body.echo === true ? model.tokenizer.decode(requests[index]!.tokens) : '');
    const base = {
      id: `cmpl-turngym-${++completionCount}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: modelName,
    };
    const streaming = stream
      ? new CompletionStream(response, {
          base,
          rows: requests.length,
          stops: stop,
          tokenizer: model.tokenizer,
          logprobs: wantLogprobs,
          topLogprobs: top,
          includeUsage,
          echo,
        })
      : undefined;
    // A client that hangs up stops its generation at the next decoder pass.
    const hungUp = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) hungUp.abort(new Error('The client closed the connection.'));
    });
    const signal = AbortSignal.any([hungUp.signal, closing.signal]);
    let results;
    let scoredPrompts: Awaited<ReturnType<typeof scorePrompts>> | undefined;
    try {
      results = await generateInTurns(
        model,
        requests,
        {
          ...sampling,
          ...(stop.length > 0 ? { stop } : {}),
          ...(options.adapter ? { adapter: options.adapter } : {}),
          ...(top > 0 ? { topLogprobs: top } : {}),
        },
        {
          signal,
          queue,
          ...(streaming ? { onProgress: (row, progress) => streaming.progress(row, progress) } : {}),
        },
      );
      if (scorePrompt) scoredPrompts = await scorePrompts(prompts, top, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof LLMCallError && error.status === 429) {
        const retryAfterMs = error.retryAfterMs ?? 1000;
        throw new RequestError(429, error.message, 'rate_limit_exceeded', null, {
          'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
          'retry-after-ms': String(retryAfterMs),
        });
      }
      if (error instanceof ContextLengthError)
        throw new RequestError(400, error.message, 'context_length_exceeded', 'prompt');
      if (error instanceof TokenizerMismatchError)
        throw new RequestError(400, error.message, 'invalid_request', 'prompt');
      throw new RequestError(400, (error as Error).message, 'invalid_request');
    }
    const usage = {
      prompt_tokens: prompts.reduce((sum, tokens) => sum + tokens.length, 0),
      completion_tokens: results.reduce((sum, result) => sum + result.tokens.length, 0),
    };
    if (streaming) {
      streaming.end(usage);
      return;
    }
    /** A choice's `logprobs`: its prompt's (with `echo`), then its generated tokens'. */
    const choiceLogprobs = (
      result: Generation,
      prompt: Awaited<ReturnType<typeof scorePrompts>>[number] | undefined,
      promptTokens: readonly number[],
      echoed: string,
    ) => {
      const scored = prompt ? promptTokens : [];
      return completionLogprobs(
        model.tokenizer,
        {
          tokens: [...scored, ...result.tokens],
          logprobs: [...(prompt?.logprobs ?? []), ...result.logprobs],
          alternatives: [...(prompt?.topLogprobs ?? []), ...(result.topLogprobs ?? [])],
          offsets: [
            ...textOffsets(model.tokenizer, scored, 0, scored.length, 0, echoed.length),
            ...textOffsets(
              model.tokenizer,
              result.tokens,
              0,
              result.tokens.length,
              echoed.length,
              echoed.length + result.text.length,
            ),
          ],
        },
        top,
      );
    };
    const choices = results.map((result, index) => {
      const echoed = echo(index);
      return {
        index,
        text: echoed + result.text,
        finish_reason: result.finishReason,
        logprobs: wantLogprobs
          ? choiceLogprobs(result, scoredPrompts?.[Math.floor(index / n)], requests[index]!.tokens, echoed)
          : null,
      };
    });
    sendJson(response, 200, {
      ...base,
      choices,
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }

  function passThrough(request: IncomingMessage, response: ServerResponse): void {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: inner.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      if (!response.headersSent)
        sendJson(response, 502, {
          error: { message: error.message, type: 'server_error', code: 'upstream_error', param: null },
        });
      else response.destroy();
    });
    // A client that hangs up closes the inner request too: the chat server then aborts the generation.
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (path === '/v1/completions' || path === '/completions') {
      if (request.method !== 'POST') {
        sendJson(response, 405, {
          error: {
            message: 'Use POST for /v1/completions',
            type: 'invalid_request_error',
            code: 'method_not_allowed',
            param: null,
          },
        });
        return;
      }
      completions(request, response).catch((error: unknown) => {
        const failure =
          error instanceof RequestError ? error : new RequestError(500, (error as Error).message, 'model_error');
        // A client that hung up, or a server closing: nobody is left to answer.
        if (response.destroyed) return;
        const answer = {
          error: {
            message: failure.message,
            type:
              failure.status === 429
                ? 'rate_limit_error'
                : failure.status >= 500
                  ? 'server_error'
                  : 'invalid_request_error',
            code: failure.code,
            param: failure.param,
          },
        };
        // Mid-stream, an error event is what OpenAI sends and its clients raise.
        if (response.headersSent) response.end(`data: ${JSON.stringify(answer)}\n\n`);
        else sendJson(response, failure.status, answer, failure.headers);
      });
      return;
    }
    passThrough(request, response);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await inner.close();
    await promptTokenizer.close();
    model.dispose();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  let closed: Promise<void> | undefined;
  return {
    url,
    baseURL: `${url}/v1`,
    port: address.port,
    modelName,
    model,
    close() {
      closed ??= (async () => {
        closing.abort(new Error('The server is closing.'));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await inner.close();
        await chat.close();
        await promptTokenizer.close();
        model.dispose();
      })();
      return closed;
    },
  };
}
