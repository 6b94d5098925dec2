import { TurnGymError } from '@turngym/core';
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import type { ChatModel, ChatRequest } from './chat-model';
import { CachedChatModel } from './cached-chat-model';
import { LLMCallError } from './llm-call-error';
import { ScriptedChatModel } from './scripted-chat-model';
import { serveChatModel, type ChatModelServer } from './serve-chat-model';

describe('serveChatModel: an OpenAI-compatible server for any ChatModel', () => {
  let server: ChatModelServer;
  let backend: ScriptedChatModel;
  let openai: OpenAI;

  beforeEach(async () => {
    backend = new ScriptedChatModel(
      (request) =>
        request.tools && request.tools.length > 0
          ? {
              content: 'Looking it up.',
              toolCalls: [{ name: 'search', arguments: { query: 'tallest mountain', limit: 3 } }],
            }
          : 'Mount Everest is the tallest.',
      { id: 'tiny-lm' },
    );
    server = await serveChatModel(backend, { modelName: 'tiny' });
    openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  });

  afterEach(async () => {
    await server.close();
  });

  it('listens on loopback and lists its model', async () => {
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = await openai.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['tiny']);
    expect(await openai.models.retrieve('tiny')).toMatchObject({ id: 'tiny', object: 'model' });
  });

  it('answers a non-streaming completion in OpenAI’s shape', async () => {
    const completion = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Tallest mountain?' }] }],
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'tiny',
      choices: [
        { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Mount Everest is the tallest.' } },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 },
    });
    // Content parts were joined into the text the model sees.
    expect(backend.requests[0]?.messages).toEqual([{ role: 'user', content: 'Tallest mountain?' }]);
  });

  it('streams SSE chunks that reassemble into the text, tool calls and usage', async () => {
    const stream = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'Find it' }],
      tools: [
        {
          type: 'function',
          function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let args = '';
    let name = '';
    let finish: string | null = null;
    let usage: unknown;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      content += choice.delta.content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(chunks).toBeGreaterThan(4);
    expect(content).toBe('Looking it up.');
    expect(name).toBe('search');
    expect(JSON.parse(args)).toEqual({ query: 'tallest mountain', limit: 3 });
    expect(finish).toBe('tool_calls');
    expect(usage).toMatchObject({ prompt_tokens: 2, total_tokens: expect.any(Number) });
  });

  it('sends the deltas of a model that streams as they come, before the model has finished', async () => {
    const pieces = ['Mount ', 'Everest', ' is tall.'];
    let unblock: (() => void)[] = [];
    const model: ChatModel = {
      id: 'streaming',
      async complete(request: ChatRequest & { onDelta?: (text: string) => void }) {
        for (const piece of pieces) {
          request.onDelta?.(piece);
          await new Promise<void>((resolve) => unblock.push(resolve));
        }
        return {
          message: { role: 'assistant', content: pieces.join('') },
          usage: { promptTokens: 1, completionTokens: 3 },
          finishReason: 'length',
        };
      },
    };
    const streaming = await serveChatModel(model, { modelName: 'tiny' });
    try {
      const client = new OpenAI({ baseURL: streaming.baseURL, apiKey: 'unused', maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'tiny',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const seen: string[] = [];
      const chunks = [];
      for await (const chunk of stream) {
        chunks.push(chunk);
        const content = chunk.choices[0]?.delta.content;
        if (content) {
          seen.push(content);
          // The model is waiting: this piece reached the client while it still generates.
          expect(unblock).toHaveLength(1);
          const go = unblock;
          unblock = [];
          for (const resolve of go) resolve();
        }
      }
      expect(seen).toEqual(pieces);
      expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
      expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
      expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('length');
      expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 3 } });
    } finally {
      await streaming.close();
    }
  });

  it('ends a stream whose model fails mid-way with an error event the client raises', async () => {
    const failing: ChatModel = {
      id: 'failing',
      complete(request: ChatRequest & { onDelta?: (text: string) => void }) {
        request.onDelta?.('Mount ');
        return Promise.reject(new TurnGymError('MODEL_FAILED', 'the model fell over'));
      },
    };
    const failingServer = await serveChatModel(failing, { modelName: 'tiny' });
    try {
      const client = new OpenAI({ baseURL: failingServer.baseURL, apiKey: 'unused', maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'tiny',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      });
      let content = '';
      await expect(
        (async () => {
          for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
        })(),
      ).rejects.toThrow(/the model fell over/);
      expect(content).toBe('Mount ');
    } finally {
      await failingServer.close();
    }
  });

  it('answers a busy model (429 with retryAfterMs) with Retry-After headers clients back off by', async () => {
    const busy: ChatModel = {
      id: 'busy',
      complete: () =>
        Promise.reject(
          new LLMCallError('The server is busy', {
            failure: 'http',
            status: 429,
            isRetryable: true,
            retryAfterMs: 1500,
          }),
        ),
    };
    const busyServer = await serveChatModel(busy, { modelName: 'tiny' });
    try {
      const response = await fetch(`${busyServer.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(response.headers.get('retry-after-ms')).toBe('1500');
      expect(await response.json()).toMatchObject({
        error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'The server is busy' },
      });
    } finally {
      await busyServer.close();
    }
  });

  it("ignores tools when tool_choice is 'none'", async () => {
    const completion = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'search' } }],
      tool_choice: 'none',
    });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('answers bad requests with 400 and an OpenAI error body that names the field', async () => {
    const post = (body: string) =>
      fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const broken = await post('{"model": "tiny", "messages": [');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({
      error: {
        message: 'The request body is not valid JSON: Unexpected end of JSON input',
        type: 'invalid_request_error',
        code: 'invalid_json',
        param: null,
      },
    });

    const invalid = await post(
      JSON.stringify({
        model: 'tiny',
        messages: [
          { role: 'robot', content: 'x' },
          { role: 'tool', content: 'y' },
        ],
        n: 2,
      }),
    );
    expect(invalid.status).toBe(400);
    const { error } = (await invalid.json()) as { error: { message: string; type: string } };
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toMatch(
      /body\.messages\[0\]\.role must be one of: "system", "developer", "user", "assistant", "tool"/,
    );
    expect(error.message).toMatch(/body\.messages\[1\]\.tool_call_id is required/);
    expect(error.message).toMatch(/body\.n must be <= 1/);
    for (const [asked, param] of [
      [{ n: 2 }, 'n'],
      [{ max_tokens: 0 }, 'max_tokens'],
      [{ temperature: 3 }, 'temperature'],
      [{ messages: [] }, 'messages'],
    ] as const) {
      const refused = await post(
        JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], ...asked }),
      );
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: 'invalid_request', param } });
    }

    // What the client would silently not get: an image the model never sees, a fifth stop sequence.
    const image = await post(
      JSON.stringify({
        model: 'tiny',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }],
        stop: ['a', 'b', 'c', 'd', 'e'],
      }),
    );
    expect(image.status).toBe(400);
    const imageError = ((await image.json()) as { error: { message: string } }).error.message;
    expect(imageError).toMatch(/body\.messages\[0\]\.content\[0\]\.type must be one of: "text", "refusal"/);
    expect(imageError).toMatch(/body\.stop/);

    // An empty stop reached the model, which failed with a 500 that clients retry.
    for (const stop of ['', ['.', '']]) {
      const emptyStop = await post(
        JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], stop }),
      );
      expect(emptyStop.status).toBe(400);
      expect(await emptyStop.json()).toMatchObject({
        error: { param: 'stop', message: expect.stringMatching(/empty/) },
      });
    }

    // A model without log-probabilities (this scripted one) refuses them rather than answer `logprobs: null`.
    for (const asked of [{ logprobs: true }, { logprobs: true, top_logprobs: 3 }]) {
      const logprobs = await post(
        JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], ...asked }),
      );
      expect(logprobs.status).toBe(400);
      expect(await logprobs.json()).toEqual({
        error: {
          message: 'This server returns no log-probabilities: leave out logprobs and top_logprobs',
          type: 'invalid_request_error',
          code: 'unsupported_parameter',
          param: 'logprobs',
        },
      });
    }
    // top_logprobs without logprobs: true is OpenAI's 400 too.
    const alone = await post(
      JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], top_logprobs: 3 }),
    );
    expect(alone.status).toBe(400);
    expect(await alone.json()).toMatchObject({
      error: { param: 'top_logprobs', message: expect.stringMatching(/"logprobs": true/) },
    });
    // Constrained replies it cannot give are refused, not answered with unconstrained text.
    const tools = [{ type: 'function', function: { name: 'search' } }];
    for (const [asked, param] of [
      [{ response_format: { type: 'json_object' } }, 'response_format'],
      [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } } }, 'response_format'],
      [{ tools, tool_choice: 'required' }, 'tool_choice'],
      [{ tools, tool_choice: { type: 'function', function: { name: 'search' } } }, 'tool_choice'],
    ] as const) {
      const refused = await post(
        JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], ...asked }),
      );
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: { type: 'invalid_request_error', code: 'unsupported_parameter', param },
      });
    }
    // Their "off" values are what clients send by default, and pass.
    const off = await post(
      JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], logprobs: false, top_logprobs: 0 }),
    );
    expect(off.status).toBe(200);

    const empty = await post(JSON.stringify({ model: 'tiny', messages: [] }));
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(
      /body\.messages must NOT have fewer than 1 items/,
    );
    // Only the request with the options off reached the model.
    expect(backend.requests).toHaveLength(1);
    // Plain text and tool_choice "auto" are what the model does anyway, and are served.
    for (const asked of [{ response_format: { type: 'text' } }, { tools, tool_choice: 'auto' }]) {
      const served = await post(
        JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], ...asked }),
      );
      expect(served.status).toBe(200);
    }
  });

  it('refuses stream_options without stream, penalties it cannot apply and deprecated functions, not ignoring them', async () => {
    const post = (asked: Record<string, unknown>) =>
      fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], ...asked }),
      });
    // A client that asked for a usage chunk on a request that does not stream got one JSON answer, no word why.
    for (const asked of [{ stream_options: { include_usage: true } }, { stream: false, stream_options: {} }]) {
      const refused = await post(asked);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: {
          type: 'invalid_request_error',
          param: 'stream_options',
          message: expect.stringMatching(/'stream_options' parameter is only allowed when 'stream' is enabled/),
        },
      });
    }
    // Sampled without them, silently: the client got other text than it asked for. vLLM's guided decoding and stop
    // controls (sent in the openai client's extra_body) too: a client asking for JSON parsed unconstrained text.
    for (const [asked, param] of [
      [{ presence_penalty: 0.5 }, 'presence_penalty'],
      [{ frequency_penalty: -1 }, 'frequency_penalty'],
      [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
      [{ guided_json: { type: 'object' } }, 'guided_json'],
      [{ guided_choice: ['yes', 'no'] }, 'guided_choice'],
      [{ min_tokens: 5 }, 'min_tokens'],
      [{ ignore_eos: true }, 'ignore_eos'],
      [{ stop_token_ids: [2] }, 'stop_token_ids'],
    ] as const) {
      const refused = await post(asked);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: { type: 'invalid_request_error', code: 'unsupported_parameter', param },
      });
    }
    // The words the LM's /v1/completions uses too (one table, one message).
    expect(await (await post({ presence_penalty: 0.5 })).json()).toMatchObject({
      error: { message: '"presence_penalty" is not supported by this server (got 0.5); leave it out (or send 0).' },
    });
    // OpenAI's deprecated function calling was ignored too: the model saw no tools, the client got plain text.
    const functions = [{ name: 'search', parameters: { type: 'object', properties: {} } }];
    for (const [asked, param] of [
      [{ functions }, 'functions'],
      [{ functions, function_call: { name: 'search' } }, 'functions'],
      [{ function_call: { name: 'search' } }, 'function_call'],
    ] as const) {
      const refused = await post(asked);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: { code: 'unsupported_parameter', param, message: expect.stringMatching(/as "tools"/) },
      });
    }
    expect(backend.requests).toHaveLength(0);
    // Their "off" values, which clients send by default, are served.
    for (const asked of [
      { presence_penalty: 0, frequency_penalty: 0, logit_bias: {}, stream_options: null, min_tokens: 0 },
      { presence_penalty: null, frequency_penalty: null, logit_bias: null, functions: [], function_call: 'none' },
      { ignore_eos: false, stop_token_ids: [], guided_json: null, best_of: 3 },
      { stream: true, stream_options: { include_usage: true } },
    ]) {
      const served = await post(asked);
      expect(served.status).toBe(200);
      await served.text();
    }
    expect(backend.requests).toHaveLength(4);
  });

  it("refuses vLLM's top_k, min_p and repetition_penalty for a model that does not apply them; off values pass", async () => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], ...body }),
      });
    // Sampled without them, silently: a client asking for top_k 5 got a reply drawn from every token.
    for (const [extra, param] of [
      [{ top_k: 5 }, 'top_k'],
      [{ min_p: 0.1 }, 'min_p'],
      [{ repetition_penalty: 1.2 }, 'repetition_penalty'],
    ] as const) {
      const refused = await post(extra);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: 'unsupported_parameter', param } });
    }
    const invalid = await post({ top_k: 2.5 });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 'invalid_request', param: 'top_k' } });
    const served = await post({ top_k: -1, min_p: 0, repetition_penalty: 1 });
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ choices: [{ message: { content: 'Mount Everest is the tallest.' } }] });
  });

  it("refuses more than OpenAI's 128 tools before validating the body, naming the limit (they block the server)", async () => {
    const offer = (count: number) =>
      fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'tiny',
          messages: [{ role: 'user', content: 'hi' }],
          tool_choice: 'none',
          tools: Array.from({ length: count }, (_, index) => ({
            type: 'function',
            function: { name: `tool_${index}`, parameters: { type: 'object', properties: {} } },
          })),
        }),
      });
    const refused = await offer(129);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: {
        code: 'invalid_request',
        param: 'tools',
        message: 'Invalid request: body.tools must NOT have more than 128 items (got 129), as on OpenAI',
      },
    });
    expect(backend.requests).toHaveLength(0);
    const served = await offer(128);
    expect(served.status).toBe(200);
    await served.text();
  });

  it("passes vLLM's fields to a cached model that applies them, and keys the cache by them", async () => {
    // A CachedChatModel around a local model (createChatModel's `cache`, the seller's roles) did not say that the
    // model applies them, so serving it refused top_k, min_p and repetition_penalty that the model supports.
    const seen: ChatRequest[] = [];
    const sampler: ChatModel = {
      id: 'local:sampler',
      supportsExtendedSampling: true,
      complete: async (request) => {
        seen.push(request);
        const settings = `top_k ${request.topK ?? 'off'}, min_p ${request.minP ?? 'off'}`;
        return {
          message: { role: 'assistant', content: settings },
          usage: { promptTokens: 1, completionTokens: 1 },
          finishReason: 'stop',
        };
      },
    };
    const cached = new CachedChatModel(sampler);
    expect(cached.supportsExtendedSampling).toBe(true);
    const local = await serveChatModel(cached, { modelName: 'cached' });
    try {
      const ask = async (extra: Record<string, unknown>) => {
        const response = await fetch(`${local.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'cached',
            messages: [{ role: 'user', content: 'hi' }],
            temperature: 0,
            ...extra,
          }),
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
      };
      expect(await ask({ top_k: 5 })).toBe('top_k 5, min_p off');
      // Another top_k is another answer, not the cached one; the same settings again are the cached one.
      expect(await ask({ top_k: 3, min_p: 0.1 })).toBe('top_k 3, min_p 0.1');
      expect(await ask({ top_k: 5 })).toBe('top_k 5, min_p off');
      expect(seen).toHaveLength(2);
      // Off values sample as an absent field does, and share its cache entry.
      expect(await ask({ top_k: -1, repetition_penalty: 1 })).toBe('top_k off, min_p off');
      expect(await ask({})).toBe('top_k off, min_p off');
      expect(seen).toHaveLength(3);
    } finally {
      await local.close();
    }
  });

  it('answers a prompt past the model context with 400 context_length_exceeded, which the client does not retry', async () => {
    let calls = 0;
    // As @turngym/lm's generation throws it (ContextLengthError, code CONTEXT_LENGTH_EXCEEDED).
    const tooLong: ChatModel = {
      id: 'tiny-lm',
      complete: () => {
        calls += 1;
        return Promise.reject(
          new TurnGymError('CONTEXT_LENGTH_EXCEEDED', 'The prompt has 1080 tokens, more than the limit 1024.'),
        );
      },
    };
    const longServer = await serveChatModel(tooLong, { modelName: 'tiny' });
    try {
      const retrying = new OpenAI({ baseURL: longServer.baseURL, apiKey: 'unused', maxRetries: 2 });
      const failure = retrying.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'x' }] });
      await expect(failure).rejects.toMatchObject({
        status: 400,
        code: 'context_length_exceeded',
        param: 'messages',
        message: expect.stringMatching(/1080 tokens/),
      });
      expect(calls).toBe(1);
    } finally {
      await longServer.close();
    }
  });

  it("passes an upstream endpoint's context overflow on as 400 context_length_exceeded, whatever its words", async () => {
    const upstream: ChatModel = {
      id: 'proxied',
      complete: () =>
        Promise.reject(
          new LLMCallError('openai:big at http://upstream/v1: HTTP 400: prompt too big', {
            failure: 'context-length',
            status: 400,
          }),
        ),
    };
    const proxy = await serveChatModel(upstream, { modelName: 'proxied' });
    try {
      const client = new OpenAI({ baseURL: proxy.baseURL, apiKey: 'unused', maxRetries: 0 });
      const failure = client.chat.completions.create({ model: 'proxied', messages: [{ role: 'user', content: 'x' }] });
      await expect(failure).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
    } finally {
      await proxy.close();
    }
  });

  it("says where a body's JSON breaks, and tells an empty body, a form and a compressed body apart", async () => {
    // Each was answered "The request body is not valid JSON", nothing more.
    const post = async (body: string | Buffer, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const { error } = (await response.json()) as { error: { message: string; code: string } };
      return { status: response.status, ...error };
    };
    const trailingComma = '{\n  "model": "tiny",\n  "messages": [\n    {"role": "user", "content": "hi"},\n  ]\n}';
    expect(await post(trailingComma)).toMatchObject({
      status: 400,
      code: 'invalid_json',
      message: expect.stringMatching(
        /^The request body is not valid JSON: Unexpected token '\]', .*\\n {2}\]\\n\}" is not valid JSON \(line 5, column 3\)$/,
      ),
    });
    expect(await post('{"model": "tiny", "messages": [], }')).toMatchObject({
      message: expect.stringMatching(/\(line 1, column 35\)$/),
    });
    expect(await post('')).toMatchObject({
      status: 400,
      message: 'The request body is empty: send the request as a JSON object.',
    });
    expect(await post('model=tiny&messages=hi', { 'content-type': 'application/x-www-form-urlencoded' })).toMatchObject(
      {
        status: 400,
        message: expect.stringMatching(
          /not valid JSON: .* \(it was sent as application\/x-www-form-urlencoded: send a JSON object with content-type: application\/json\)$/,
        ),
      },
    );
    const body = JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }] });
    expect(await post(gzipSync(body), { 'content-encoding': 'gzip' })).toMatchObject({
      status: 415,
      code: 'unsupported_content_encoding',
      message:
        'This server does not accept compressed request bodies (Content-Encoding: gzip): send the JSON uncompressed.',
    });
    // A byte-order mark, as some editors and Windows tools write one, is not an error.
    expect(
      await openai.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }] }),
    ).toBeTruthy();
    const withMark = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', body: `\uFEFF${body}` });
    expect(withMark.status).toBe(200);
  });

  it('answers a tool whose parameters nest thousands of levels deep 400, naming it, not 500', async () => {
    // The cache key (and a chat template) walk the schema recursively: the stack overflowed and the answer was 500.
    const cached = await serveChatModel(new CachedChatModel(backend), { modelName: 'tiny' });
    try {
      const depth = 100_000;
      const parameters = `{"type": "object", "properties": {}, "x": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const ok = { type: 'function', function: { name: 'look', parameters: { type: 'object' } } };
      const response = await fetch(`${cached.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body:
          `{"model": "tiny", "temperature": 0, "seed": 1, "messages": [{"role": "user", "content": "hi"}], ` +
          `"tools": [${JSON.stringify(ok)}, {"type": "function", "function": {"name": "deep", "parameters": ${parameters}}}]}`,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          message:
            'Invalid request: body.tools[1].function.parameters nests more than 64 levels deep; a JSON Schema for tool arguments needs a handful',
          type: 'invalid_request_error',
          code: 'invalid_request',
          param: 'tools',
        },
      });
    } finally {
      await cached.close();
    }
  });

  it('answers unknown routes with 404 and the wrong method with 405', async () => {
    const missing = await fetch(`${server.url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const wrongMethod = await fetch(`${server.baseURL}/chat/completions`);
    expect(wrongMethod.status).toBe(405);
  });

  it('refuses bodies over the size limit with 413', async () => {
    const small = await serveChatModel(backend, { modelName: 'tiny', maxBodyBytes: 100 });
    try {
      const response = await fetch(`${small.baseURL}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'x'.repeat(200) }] }),
      });
      expect(response.status).toBe(413);
    } finally {
      await small.close();
    }
  });

  it('validates its own options', async () => {
    await expect(serveChatModel(backend, { port: 70000 })).rejects.toThrow(
      /Invalid options for serveChatModel: options\.port must be <= 65535/,
    );
    await expect(serveChatModel(backend, { faults: { failFirst: 1, status: 500 } as never })).rejects.toThrow(
      /unknown field "status"/,
    );
  });

  it('closes idempotently, and a closed server refuses connections', async () => {
    const url = server.baseURL;
    await Promise.all([server.close(), server.close()]);
    await expect(fetch(`${url}/models`)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
  });
});
