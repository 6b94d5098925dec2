import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineOptions, mixSeed, type JSONSchemaType } from '@turngym/core';
import { serveChatModel } from '@turngym/llm';
import { BACKEND_NAMES, type BackendName } from './backend';
import type { LanguageModel } from './language-model';
import { loadModel } from './load-model';
import { LocalChatModel } from './local-chat-model';

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
  /** Stops both listeners and frees the model. Idempotent. */
  close(): Promise<void>;
}

interface CompletionBody {
  model?: unknown;
  prompt?: unknown;
  max_tokens?: unknown;
  temperature?: unknown;
  top_p?: unknown;
  stop?: unknown;
  seed?: unknown;
  n?: unknown;
  stream?: unknown;
  logprobs?: unknown;
  echo?: unknown;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function optionalNumber(body: CompletionBody, field: keyof CompletionBody, fallback: number): number {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new RequestError(400, `"${field}" must be a number.`, 'invalid_request', field);
  return value;
}

/** OpenAI's prompt forms: a string, strings, token ids, or lists of token ids. */
function promptTokens(model: LanguageModel, prompt: unknown): number[][] {
  const isTokens = (value: unknown): value is number[] =>
    Array.isArray(value) && value.every((each) => Number.isInteger(each));
  if (typeof prompt === 'string') return [model.tokenizer.encode(prompt, { addSpecialTokens: true })];
  if (isTokens(prompt) && prompt.length > 0) return [prompt];
  if (Array.isArray(prompt) && prompt.length > 0) {
    return prompt.map((each) => {
      if (typeof each === 'string') return model.tokenizer.encode(each, { addSpecialTokens: true });
      if (isTokens(each)) return each;
      throw new RequestError(
        400,
        '"prompt" must be a string, a list of strings, or token ids.',
        'invalid_request',
        'prompt',
      );
    });
  }
  throw new RequestError(
    400,
    '"prompt" must be a string, a list of strings, or token ids.',
    'invalid_request',
    'prompt',
  );
}

/**
 * Serves a checkpoint as an OpenAI-compatible server: `/v1/chat/completions` (streaming too) and
 * `/v1/models` come from @turngym/llm's `serveChatModel` over a LocalChatModel; `/v1/completions`
 * (prompt strings or token ids, batched, `n`, `logprobs`, streaming) is answered here, and every other
 * request is passed through to the chat server. This is `turngym serve-model`.
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
  const modelName =
    options.modelName ?? (options.checkpoint.split(/[\\/]/).filter(Boolean).pop() || options.checkpoint);
  const chat = new LocalChatModel(model, options.adapter ? { adapter: options.adapter } : {});
  const inner = await serveChatModel(chat, { port: 0, host: '127.0.0.1', modelName });
  let completionCount = 0;

  async function completions(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body: CompletionBody;
    try {
      body = JSON.parse(await readBody(request)) as CompletionBody;
    } catch {
      throw new RequestError(400, 'The request body is not valid JSON', 'invalid_json');
    }
    if (typeof body !== 'object' || body === null)
      throw new RequestError(400, 'The request body must be a JSON object', 'invalid_request');
    if (body.model !== modelName) {
      throw new RequestError(
        404,
        `The model "${String(body.model)}" does not exist; this server serves "${modelName}".`,
        'model_not_found',
        'model',
      );
    }
    const prompts = promptTokens(model, body.prompt);
    const n = optionalNumber(body, 'n', 1);
    if (!Number.isInteger(n) || n < 1 || n > 64)
      throw new RequestError(400, '"n" must be an integer from 1 to 64.', 'invalid_request', 'n');
    const stop = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop.map(String) : [];
    const seed = optionalNumber(body, 'seed', 0);
    const wantLogprobs = body.logprobs !== undefined && body.logprobs !== null && body.logprobs !== false;
    const requests = prompts.flatMap((tokens, p) =>
      Array.from({ length: n }, (_, i) => ({ tokens, seed: mixSeed(seed, p, i) })),
    );
    let results;
    try {
      results = model.generate(requests, {
        maxTokens: optionalNumber(body, 'max_tokens', 16),
        temperature: optionalNumber(body, 'temperature', 1),
        topP: optionalNumber(body, 'top_p', 1),
        ...(stop.length > 0 ? { stop } : {}),
        ...(options.adapter ? { adapter: options.adapter } : {}),
      });
    } catch (error) {
      throw new RequestError(400, (error as Error).message, 'invalid_request');
    }
    const id = `cmpl-turngym-${++completionCount}`;
    const created = Math.floor(Date.now() / 1000);
    const choices = results.map((result, index) => ({
      index,
      text: (body.echo === true ? model.tokenizer.decode(requests[index]!.tokens) : '') + result.text,
      finish_reason: result.finishReason,
      logprobs: wantLogprobs
        ? {
            tokens: result.tokens.map((token) => model.tokenizer.tokenText(token)),
            token_logprobs: result.logprobs,
            top_logprobs: null,
            text_offset: null,
          }
        : null,
    }));
    const usage = {
      prompt_tokens: prompts.reduce((sum, tokens) => sum + tokens.length, 0),
      completion_tokens: results.reduce((sum, result) => sum + result.tokens.length, 0),
    };
    const base = { id, object: 'text_completion', created, model: modelName };
    if (body.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      for (const choice of choices) {
        response.write(`data: ${JSON.stringify({ ...base, choices: [{ ...choice, finish_reason: null }] })}\n\n`);
        response.write(
          `data: ${JSON.stringify({ ...base, choices: [{ index: choice.index, text: '', logprobs: null, finish_reason: choice.finish_reason }] })}\n\n`,
        );
      }
      response.end('data: [DONE]\n\n');
      return;
    }
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
        if (response.headersSent) response.destroy();
        else {
          sendJson(response, failure.status, {
            error: {
              message: failure.message,
              type: failure.status >= 500 ? 'server_error' : 'invalid_request_error',
              code: failure.code,
              param: failure.param,
            },
          });
        }
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
    model.dispose();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    baseURL: `${url}/v1`,
    port: address.port,
    modelName,
    model,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await inner.close();
        model.dispose();
      })();
      return closing;
    },
  };
}
