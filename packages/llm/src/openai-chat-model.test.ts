import type { ToolSpec } from '@turngym/spec';
import { LLMCallError } from './llm-call-error';
import { OpenAIChatModel } from './openai-chat-model';
import { ScriptedChatModel, type ScriptedReplies } from './scripted-chat-model';
import { serveChatModel, type ChatModelServer, type ServeChatModelOptions } from './serve-chat-model';

const WEATHER: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
};

const servers: ChatModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(
  script: ScriptedReplies,
  options: Partial<ServeChatModelOptions> = {},
): Promise<{ server: ChatModelServer; backend: ScriptedChatModel }> {
  const backend = new ScriptedChatModel(script, { id: 'test-model' });
  const server = await serveChatModel(backend, options);
  servers.push(server);
  return { server, backend };
}

/** Fast retries so the suite stays quick; the backoff maths has its own test. */
const client = (server: ChatModelServer, options: Record<string, unknown> = {}) =>
  new OpenAIChatModel(
    {
      model: 'test-model',
      baseURL: server.baseURL,
      timeoutMs: 5000,
      maxRetries: 2,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 5,
      ...options,
    },
    {},
  );

describe('OpenAIChatModel against a real OpenAI-compatible server on loopback', () => {
  it.each([false, true])('completes text with usage (stream: %s)', async (stream) => {
    const { server, backend } = await serve(['Paris is the capital of France.']);
    const model = client(server, { stream });
    const response = await model.complete({
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'Capital of France?' },
      ],
      temperature: 0,
      seed: 7,
      maxTokens: 50,
      stop: ['\n\n'],
    });
    expect(model.id).toBe('openai:test-model');
    expect(response).toEqual({
      message: { role: 'assistant', content: 'Paris is the capital of France.' },
      finishReason: 'stop',
      usage: { promptTokens: 7, completionTokens: 7 },
    });
    // The sampling parameters crossed the wire.
    expect(backend.requests[0]).toMatchObject({
      temperature: 0,
      seed: 7,
      maxTokens: 50,
      stop: ['\n\n'],
      messages: [{ role: 'system' }, { role: 'user', content: 'Capital of France?' }],
    });
  });

  it.each([false, true])('round-trips tools and tool calls (stream: %s)', async (stream) => {
    const { server, backend } = await serve([
      [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
        { name: 'get_weather', arguments: { city: 'Bergen, Norway' } },
      ],
      'Oslo is sunny.',
    ]);
    const model = client(server, { stream });
    const first = await model.complete({ messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [WEATHER] });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.message.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
      { id: 'call_0_1', name: 'get_weather', arguments: { city: 'Bergen, Norway' } },
    ]);
    expect(backend.requests[0]?.tools).toEqual([WEATHER]);

    const second = await model.complete({
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        first.message,
        { role: 'tool', toolCallId: 'call_a', content: 'sunny' },
        { role: 'tool', toolCallId: 'call_0_1', content: 'rain' },
      ],
      tools: [WEATHER],
    });
    expect(second.message.content).toBe('Oslo is sunny.');
    // The history, tool calls and results included, arrives intact at the model behind the server.
    expect(backend.requests[1]?.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: '', toolCalls: first.message.toolCalls },
      { role: 'tool', toolCallId: 'call_a', content: 'sunny' },
      { role: 'tool', toolCallId: 'call_0_1', content: 'rain' },
    ]);
  });

  it.each([false, true])(
    "sends tool names OpenAI refuses (an MCP server's files.read) under valid names, and answers under the env's own (stream: %s)",
    async (stream) => {
      const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
      const READ: ToolSpec = { ...WEATHER, name: 'files.read' };
      const SEARCH: ToolSpec = { ...WEATHER, name: 'github/search' };
      // Its sanitised form offered too: the mapped name must not collide with it.
      const CLASH: ToolSpec = { ...WEATHER, name: 'files_read' };
      const offered: string[][] = [];
      // The model behind the server calls the tools under the names it was offered, as OpenAI's would.
      const { server, backend } = await serve((request) => {
        const names = (request.tools ?? []).map((tool) => tool.name);
        offered.push(names);
        if (request.messages.length > 1) return 'done';
        return { toolCalls: names.map((name) => ({ name, arguments: { city: 'Oslo' } })) };
      });
      const model = client(server, { stream });
      const tools = [READ, SEARCH, CLASH, WEATHER];
      const first = await model.complete({ messages: [{ role: 'user', content: 'Read it.' }], tools });
      // The local server refuses a function name outside OpenAI's rule with a 400, as OpenAI does.
      for (const name of offered[0] ?? []) expect(name).toMatch(WIRE_NAME);
      expect(new Set(offered[0]).size).toBe(4);
      // Names that already match go unchanged.
      expect(offered[0]?.slice(2)).toEqual(['files_read', 'get_weather']);
      expect(first.message.toolCalls?.map((call) => call.name)).toEqual([
        'files.read',
        'github/search',
        'files_read',
        'get_weather',
      ]);
      // Next turn: the history's calls go out under the names the model was offered, the same as on the first turn.
      const second = await model.complete({
        messages: [{ role: 'user', content: 'Read it.' }, first.message],
        tools,
      });
      expect(second.message.content).toBe('done');
      expect(offered[1]).toEqual(offered[0]);
      expect(backend.requests[1]?.messages[1]?.toolCalls?.map((call) => call.name)).toEqual(offered[0]);
    },
  );

  it('keeps arguments that are not JSON as rawArguments instead of failing', async () => {
    const { server } = await serve([
      { toolCalls: [{ name: 'get_weather', arguments: {}, rawArguments: '{"city": Oslo' }] },
    ]);
    const response = await client(server).complete({ messages: [{ role: 'user', content: 'x' }], tools: [WEATHER] });
    expect(response.message.toolCalls?.[0]).toMatchObject({
      name: 'get_weather',
      arguments: {},
      rawArguments: '{"city": Oslo',
    });
  });

  it('retries injected 500s with backoff, then succeeds', async () => {
    const { server } = await serve(['ok'], { faults: { failFirst: 2, failStatus: 500 } });
    const response = await client(server, { maxRetries: 2 }).complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.message.content).toBe('ok');
    expect(server.requestCount).toBe(3);
  });

  it('honours a 429 with retry-after-ms, and gives up with a retryable error when retries run out', async () => {
    const { server } = await serve(['ok'], { faults: { failFirst: 3, failStatus: 429, retryAfterMs: 2 } });
    const error = await client(server, { maxRetries: 1 })
      .complete({ messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LLMCallError);
    expect(error).toMatchObject({
      code: 'LLM_CALL',
      failure: 'http',
      status: 429,
      isRetryable: true,
      retryAfterMs: 2,
      attempts: 2,
    });
    expect((error as Error).message).toMatch(
      /openai:test-model at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 429: Injected fault 2 of 3 \(gave up after 2 attempts\)/,
    );
    expect(server.requestCount).toBe(2);
  });

  it('maps a 400 to a non-retryable LLMCallError and does not retry it', async () => {
    const { server } = await serve(['never']);
    const error = await client(server, { maxRetries: 3 })
      .complete({ messages: [{ role: 'user', content: 'x' }], temperature: 3 })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: 'http', status: 400, isRetryable: false, attempts: 1 });
    expect((error as Error).message).toMatch(/HTTP 400: Invalid request: body\.temperature must be <= 2 \(got 3\)/);
    expect(server.requestCount).toBe(1);
  });

  it('maps an unknown model name to a non-retryable 404', async () => {
    const { server } = await serve(['never']);
    const model = new OpenAIChatModel(
      { model: 'other-model', baseURL: server.baseURL, maxRetries: 2, retryBaseDelayMs: 1 },
      {},
    );
    await expect(model.complete({ messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 404,
      isRetryable: false,
      message: expect.stringMatching(/The model "other-model" does not exist; this server serves "test-model"/),
    });
  });

  it('turns connection refused into a retryable LLMCallError that names the URL', async () => {
    const { server } = await serve(['never']);
    const baseURL = server.baseURL;
    await server.close();
    const error = await new OpenAIChatModel({ model: 'm', baseURL, maxRetries: 1, retryBaseDelayMs: 1 }, {})
      .complete({ messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LLMCallError);
    expect(error).toMatchObject({ failure: 'connection', isRetryable: true, baseURL, attempts: 2, status: undefined });
    expect((error as Error).message).toContain(
      `could not connect (ECONNREFUSED): is an OpenAI-compatible server running at ${baseURL}?`,
    );
  });

  it('retries a connection the server dropped mid-request', async () => {
    const { server } = await serve(['survived'], { faults: { dropFirst: 1 } });
    const response = await client(server, { maxRetries: 1 }).complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.message.content).toBe('survived');
    expect(server.requestCount).toBe(2);
  });

  it('times out a slow server as a retryable error, and a retry can then succeed', async () => {
    // The timeout is the feature under test: the held request can never beat it, and the retry (answered at
    // once) has a whole second on loopback, so a loaded machine does not fail this test.
    const { server } = await serve(['late'], { faults: { delayFirst: 1, delayMs: 10_000 } });
    const error = await client(server, { timeoutMs: 100, maxRetries: 0 })
      .complete({ messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: 'timeout', isRetryable: true });
    expect((error as Error).message).toMatch(/no response within 100 ms \(timeoutMs\)/);

    const { server: again } = await serve(['late'], { faults: { delayFirst: 1, delayMs: 10_000 } });
    const response = await client(again, { timeoutMs: 1000, maxRetries: 1 }).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.message.content).toBe('late');
    expect(again.requestCount).toBe(2);
  });

  it('stops at once when the caller aborts', async () => {
    const controller = new AbortController();
    // The caller aborts once the server holds the request; the model answers only when the server sees the
    // client go, so no reply can win the race.
    const { server } = await serve(
      (request) =>
        new Promise((resolve) => {
          request.signal?.addEventListener('abort', () => resolve('late'));
          controller.abort();
        }),
    );
    const pending = client(server).complete({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal });
    await expect(pending).rejects.toMatchObject({ failure: 'aborted', isRetryable: false, attempts: 1 });
    expect(server.requestCount).toBe(1);
  });

  it.each([false, true])(
    'passes a refusal through serveChatModel as OpenAI sends one, not as a retried 500 (stream: %s)',
    async (stream) => {
      const said = 'I cannot help with that.';
      let calls = 0;
      const refusing = {
        id: 'test-model',
        complete: () => {
          calls += 1;
          return Promise.reject(new LLMCallError('upstream refused', { failure: 'refusal', refusal: said }));
        },
      };
      const server = await serveChatModel(refusing, {});
      servers.push(server);
      const raw = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'test-model', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(raw.status).toBe(200);
      expect(await raw.json()).toMatchObject({
        choices: [{ message: { role: 'assistant', content: null, refusal: said }, finish_reason: 'stop' }],
      });
      const error = await client(server, { stream })
        .complete({ messages: [{ role: 'user', content: 'x' }] })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ failure: 'refusal', refusal: said, isRetryable: false });
      expect(calls).toBe(2);
    },
  );

  it('reports a model failure behind the server as a 500 with the cause', async () => {
    const { server } = await serve([]);
    await expect(
      client(server, { maxRetries: 0 }).complete({ messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      status: 500,
      isRetryable: true,
      message: expect.stringMatching(/HTTP 500: test-model: the script has no replies/),
    });
  });
});

/**
 * A server that misbehaves in one way per test, as no real OpenAI-compatible server should: a stream that
 * stops mid-way, one cut without a finish_reason, a plain JSON body for a stream, a runaway reply.
 */
describe('OpenAIChatModel against a misbehaving server', () => {
  const open: import('node:http').Server[] = [];
  afterEach(async () => {
    await Promise.all(
      open.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  });

  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

  /** Serves `respond` on loopback; returns the base URL and how many requests came. */
  async function misbehaving(
    respond: (response: import('node:http').ServerResponse) => void,
  ): Promise<{ baseURL: string; requests: () => number }> {
    const { createServer } = await import('node:http');
    let requests = 0;
    const server = createServer((request, response) => {
      requests += 1;
      request.resume();
      request.on('end', () => respond(response));
    });
    open.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as { port: number };
    return { baseURL: `http://127.0.0.1:${port}/v1`, requests: () => requests };
  }

  const ask = (baseURL: string, options: Record<string, unknown>) =>
    new OpenAIChatModel(
      { model: 'm', baseURL, timeoutMs: 500, maxRetries: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 5, ...options },
      {},
    )
      .complete({ messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);

  const sse = (response: import('node:http').ServerResponse) =>
    response.writeHead(200, { 'content-type': 'text/event-stream' });

  it('times out a stream that stops after its first chunk (the deadline covers the body) and retries it', async () => {
    const { baseURL, requests } = await misbehaving((response) => {
      sse(response);
      response.write(chunk({ role: 'assistant', content: 'Hello, ' }));
    });
    const error = await ask(baseURL, { stream: true });
    expect(error).toBeInstanceOf(LLMCallError);
    expect(error).toMatchObject({ failure: 'timeout', isRetryable: true });
    expect(requests()).toBe(2);
  });

  it('retries a stream cut without a finish_reason instead of returning its fragment as the reply', async () => {
    const { baseURL, requests } = await misbehaving((response) => {
      sse(response);
      response.end(chunk({ role: 'assistant', content: 'Hello, ' }));
    });
    const error = await ask(baseURL, { stream: true });
    expect(error).toMatchObject({ failure: 'connection', isRetryable: true });
    expect((error as Error).message).toMatch(/stream ended before the reply finished/);
    expect(requests()).toBe(2);
  });

  it('names a server that answers a stream request with plain JSON, and a stream with broken data', async () => {
    const plain = await misbehaving((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }] }));
    });
    expect(await ask(plain.baseURL, { stream: true })).toMatchObject({
      failure: 'invalid-response',
      message: expect.stringMatching(
        /no stream chunks \(it answered application\/json, not an event stream: a server that does not stream; set stream: false\)$/,
      ),
    });
    // A proxy's login page, to a client that asked for a stream: named as such, not as a server that cannot stream.
    const page = await misbehaving((response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><title>Sign in</title></html>');
    });
    expect(await ask(page.baseURL, { stream: true })).toMatchObject({
      message: expect.stringMatching(
        /no stream chunks \(it answered text\/html, not an event stream: a proxy's or login page\?\)$/,
      ),
    });
    const broken = await misbehaving((response) => {
      sse(response);
      response.end('data: {not json\n\n');
    });
    expect(await ask(broken.baseURL, { stream: true })).toMatchObject({ failure: 'invalid-response' });
  });

  it('says what a 200 without choices held: the error a server put there, or the page a proxy sent', async () => {
    const error200 = await misbehaving((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'model is still loading' } }));
    });
    const answer = await ask(error200.baseURL, {});
    expect(answer).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect((answer as Error).message).toMatch(/no choices; the server said: model is still loading$/);
    const page = await misbehaving((response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body>Sign in to the proxy</body></html>');
    });
    expect((await ask(page.baseURL, {})) as Error).toMatchObject({
      message: expect.stringMatching(/the server sent text, not JSON: "<html><body>Sign in to the proxy/),
    });
  });

  it('shows an Ollama-style error string, and hints at /v1 for a 404 from a base URL without a path', async () => {
    const ollama = await misbehaving((response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'model "llama3" not found, try pulling it first' }));
    });
    expect(((await ask(ollama.baseURL, {})) as Error).message).toMatch(
      /HTTP 404: model "llama3" not found, try pulling it first$/,
    );
    const root = (await ask(ollama.baseURL.replace(/\/v1$/, ''), {})) as Error;
    expect(root).toMatchObject({ status: 404, isRetryable: false });
    expect(root.message).toContain(
      `(the base URL has no path; OpenAI-compatible servers answer under /v1: try ${ollama.baseURL})`,
    );
  });

  it('says a choice without a message came from a completions API, not chat', async () => {
    const { baseURL } = await misbehaving((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ object: 'text_completion', choices: [{ index: 0, text: 'hi', finish_reason: 'stop' }] }),
      );
    });
    const error = (await ask(baseURL, {})) as Error;
    expect(error).toMatchObject({ failure: 'invalid-response' });
    expect(error.message).toMatch(/the first choice has no message \(it has "text": a completions API, not chat\)$/);
  });

  it('raises a refusal as a non-retried LLMCallError with its text, plain and streamed, not as an empty reply', async () => {
    const said = "I'm sorry, I can't help with that.";
    const plain = await misbehaving((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: said }, finish_reason: 'stop' }],
        }),
      );
    });
    const streamed = await misbehaving((response) => {
      sse(response);
      response.write(chunk({ role: 'assistant', content: null, refusal: '' }));
      response.write(chunk({ refusal: "I'm sorry, " }));
      response.write(chunk({ refusal: "I can't help with that." }));
      response.write(chunk({}, 'stop'));
      response.end('data: [DONE]\n\n');
    });
    for (const [{ baseURL, requests }, options] of [
      [plain, {}],
      [streamed, { stream: true }],
    ] as const) {
      const error = (await ask(baseURL, options)) as LLMCallError;
      expect(error).toBeInstanceOf(LLMCallError);
      expect(error).toMatchObject({ failure: 'refusal', refusal: said, isRetryable: false });
      expect(error.message).toContain(said);
      expect(requests()).toBe(1);
    }
  });

  it('assembles streamed tool calls from a server that leaves out their index (Ollama, Gemini)', async () => {
    const { baseURL } = await misbehaving((response) => {
      sse(response);
      const call = (delta: Record<string, unknown>) => chunk({ tool_calls: [delta] });
      response.write(
        call({ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }),
      );
      response.write(call({ function: { arguments: '"Oslo"}' } }));
      response.write(call({ id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } }));
      response.write(chunk({}, 'tool_calls'));
      response.end('data: [DONE]\n\n');
    });
    const answer = await ask(baseURL, { stream: true });
    expect(answer).toMatchObject({
      finishReason: 'tool_calls',
      message: {
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } },
          { id: 'call_2', name: 'get_time', arguments: {} },
        ],
      },
    });
  });

  it('does not retry a 429 that means the quota is used up (retrying cannot refill it)', async () => {
    const { baseURL, requests } = await misbehaving((response) => {
      response.writeHead(429, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' },
        }),
      );
    });
    const error = await ask(baseURL, { maxRetries: 3 });
    expect(error).toMatchObject({ status: 429, isRetryable: false, attempts: 1 });
    expect((error as Error).message).toMatch(/HTTP 429: You exceeded your current quota$/);
    expect(requests()).toBe(1);
  });

  it('says a server that hung up mid-request hung up, instead of asking whether one is running', async () => {
    const { baseURL, requests } = await misbehaving((response) => response.socket?.destroy());
    const error = (await ask(baseURL, {})) as Error;
    expect(error).toMatchObject({ failure: 'connection', isRetryable: true, attempts: 2 });
    expect(error.message).toMatch(/the server closed the connection before answering \(/);
    expect(error.message).not.toMatch(/is an OpenAI-compatible server running/);
    expect(requests()).toBe(2);
  });

  it.each([false, true])('refuses a reply past maxReplyChars (stream: %s)', async (stream) => {
    const content = 'x'.repeat(5000);
    const { baseURL } = await misbehaving((response) => {
      if (stream) {
        sse(response);
        for (let i = 0; i < 50; i++) response.write(chunk({ content: content.slice(0, 100) }));
        response.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'length' }] }),
      );
    });
    const error = await ask(baseURL, { stream, maxReplyChars: 1000 });
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect((error as Error).message).toMatch(/longer than 1000 characters \(maxReplyChars\)/);
    expect(await ask(baseURL, { stream, maxReplyChars: 5000 })).toMatchObject({ message: { content } });
  });

  it.each([false, true])(
    'counts log-probabilities toward maxReplyChars and keeps only the alternatives asked for (stream: %s)',
    async (stream) => {
      const entry = (token: string, alternatives: number) => ({
        token,
        logprob: -0.5,
        bytes: null,
        top_logprobs: Array.from({ length: alternatives }, () => ({ token: 'zz', logprob: -9, bytes: null })),
      });
      // A runaway server: thousands of alternatives where 2 were asked for, or thousands of entries for one token.
      let entries = [entry('a', 5000), entry('b', 5000)];
      const { baseURL } = await misbehaving((response) => {
        const content = entries.map((each) => each.token).join('');
        if (stream) {
          sse(response);
          const data = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
          response.write(
            `data: ${JSON.stringify({ ...data, choices: [{ index: 0, delta: { content }, logprobs: { content: entries }, finish_reason: null }] })}\n\n`,
          );
          response.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content },
                logprobs: { content: entries },
                finish_reason: 'stop',
              },
            ],
          }),
        );
      });
      const askLogprobs = () =>
        new OpenAIChatModel({ model: 'm', baseURL, timeoutMs: 2000, maxRetries: 0, stream, maxReplyChars: 1000 }, {})
          .complete({ messages: [{ role: 'user', content: 'x' }], logprobs: true, topLogprobs: 2 })
          .catch((caught: unknown) => caught);
      const reply = (await askLogprobs()) as { logprobs: { token: string; topLogprobs: unknown[] }[] };
      expect(reply.logprobs.map((each) => [each.token, each.topLogprobs.length])).toEqual([
        ['a', 2],
        ['b', 2],
      ]);
      entries = Array.from({ length: 3000 }, () => entry('', 0));
      const error = await askLogprobs();
      expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false });
      expect((error as Error).message).toMatch(/longer than 1000 characters \(maxReplyChars\), counting .*log-prob/);
    },
  );
});
