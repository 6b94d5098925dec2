import type { IncomingMessage, ServerResponse } from 'node:http';
import { LLMCallError } from './llm-call-error';
import {
  ask,
  closeLatestServer,
  closeLoopbackServers,
  loopbackEndpoint,
  model,
} from './__fixtures__/loopback-endpoint';

/**
 * Replies a hostile or broken endpoint sends after its status line — a body with the wrong content type, one that
 * never ends, a stream event that never ends, a body its Content-Encoding does not describe, malformed tool calls,
 * vLLM's error chunk — and redirects to another host, played by real HTTP servers on loopback through the real
 * `openai` client.
 */

afterEach(closeLoopbackServers);

const endpoint = loopbackEndpoint;

const completion = (message: Record<string, unknown>, finishReason = 'stop') =>
  JSON.stringify({
    id: 'c',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
  });

/** Writes `chunk` as fast as the client reads, until the client goes away. */
function sendForever(response: ServerResponse, chunk: Buffer): void {
  const more = (): void => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', more);
  };
  more();
}

describe('OpenAIChatModel and a 200 that is not what it says', () => {
  it('takes a chat completion a server sent as text/plain or with no content type', async () => {
    // It was refused as "the server sent text, not JSON", the error quoting the completion it held.
    for (const headers of [{ 'content-type': 'text/plain; charset=utf-8' }, {}]) {
      const { baseURL } = await endpoint((_request, response) => {
        response.writeHead(200, headers);
        response.end(completion({ content: 'hello' }));
      });
      const answer = await model(baseURL).complete({ messages: [{ role: 'user', content: 'x' }] });
      expect(answer.message.content).toBe('hello');
    }
  });

  it('stops reading a 200 sent as text/plain whose body never ends, and says so, without retrying', async () => {
    // Only JSON bodies were bounded: this one was read into memory until the timeout, then retried as a timeout.
    const { baseURL, seen } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      sendForever(response, Buffer.alloc(1 << 20, 'x'));
    });
    const error = (await ask(baseURL, { timeoutMs: 20_000 })) as LLMCallError;
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect(error.message).toMatch(/unreadable response: the HTTP 200 response's body is over 64 MiB/);
    expect(seen).toHaveLength(1);
  });

  it('stops a stream whose one event never ends at 64 MiB, and says so, without retrying', async () => {
    // The client searched all it held for the event's end at every network chunk (seconds of blocked event loop)
    // and held it until the timeout; then the retry did the same.
    const { baseURL, seen } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"id": "c", "pad": "');
      sendForever(response, Buffer.alloc(1 << 20, 'x'));
    });
    const error = (await ask(baseURL, { stream: true, timeoutMs: 20_000 })) as LLMCallError;
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect(error.message).toMatch(/one event of the HTTP 200 response's stream is over 64 MiB without ending/);
    expect(seen).toHaveLength(1);
  });

  it('still reads a stream whose events arrive split anywhere, CRLF line breaks included', async () => {
    const events =
      'data: {"id":"c","choices":[{"index":0,"delta":{"content":"he"},"finish_reason":null}]}\r\n\r\n' +
      ': a comment\n\n' +
      'data: {"id":"c","choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":"stop"}]}\n\n' +
      'data: [DONE]\n\n';
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const bytes = Buffer.from(events);
      const write = (at: number): void => {
        if (at >= bytes.length) return void response.end();
        response.write(bytes.subarray(at, at + 7));
        setImmediate(() => write(at + 7));
      };
      write(0);
    });
    const answer = await model(baseURL, { stream: true }).complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(answer.message.content).toBe('hello');
  });

  it('retries a JSON reply with content-length 0 as a body cut to nothing, saying so', async () => {
    // It was not retried, and said "Cannot read properties of undefined (reading 'choices')".
    const { baseURL, seen } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' });
      response.end();
    });
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: true, attempts: 3 });
    expect(error.message).toMatch(/unreadable response: the body was empty \(content-length: 0\)/);
    expect(seen).toHaveLength(3);
  });

  it('names a body that does not decompress as its Content-Encoding says, instead of "terminated"', async () => {
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(completion({ content: 'not compressed at all' }));
    });
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect(error.message).toMatch(
      /the body does not decompress as its Content-Encoding says \(Z_DATA_ERROR: incorrect header check\)/,
    );
  });
});

describe('OpenAIChatModel and malformed tool calls', () => {
  it('names tool_calls that is not a list, and a call without a function name', async () => {
    const reply = async (message: Record<string, unknown>) => {
      const { baseURL } = await endpoint((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(completion(message, 'tool_calls'));
      });
      return (await ask(baseURL)) as LLMCallError;
    };
    // They said "(choice.message.tool_calls ?? []).filter is not a function" and "reading 'arguments'".
    const notList = await reply({ content: '', tool_calls: 'get_weather' });
    expect(notList).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect(notList.message).toMatch(
      /unreadable response: the message's tool_calls is not a list \(got "get_weather"\)$/,
    );
    const nameless = await reply({ content: '', tool_calls: [{ id: 'a', type: 'function' }] });
    expect(nameless.message).toMatch(/unreadable response: tool call 0 has no function name \(got \{"id":"a"/);
  });

  it('keeps arguments a server sent as an object (Ollama) instead of replacing them with {}', async () => {
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        completion(
          {
            content: null,
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'move', arguments: { to: 'B2' } } }],
          },
          'tool_calls',
        ),
      );
    });
    const answer = await model(baseURL).complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(answer.message.toolCalls).toEqual([{ id: 'a', name: 'move', arguments: { to: 'B2' } }]);
  });
});

describe('OpenAIChatModel and an error chunk the client does not raise', () => {
  it("raises vLLM's error chunk with its words, not retried, instead of calling the stream cut", async () => {
    const said = "This model's maximum context length is 2048 tokens. However, you requested 4000 tokens.";
    const { baseURL, seen } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"id":"c","choices":[{"index":0,"delta":{"content":"he"},"finish_reason":null}]}\n\n');
      response.end(
        `data: ${JSON.stringify({ object: 'error', message: said, type: 'BadRequestError', param: null, code: 400 })}\n\n`,
      );
    });
    const error = (await ask(baseURL, { stream: true })) as LLMCallError;
    expect(error).toMatchObject({ failure: 'context-length', isRetryable: false, attempts: 1 });
    expect(error.message).toContain(`the server sent an error in the stream: ${said}`);
    expect(seen).toHaveLength(1);
  });
});

describe('OpenAIChatModel and a redirect to another host', () => {
  const headers = { 'api-key': 'azure-Qk29vLx0aTbn', 'x-api-key': 'gw-Hs82kLq0pZx1', 'x-title': 'turngym-tests' };
  const credentials = (request: IncomingMessage) => ({
    authorization: request.headers.authorization,
    apiKey: request.headers['api-key'],
    xApiKey: request.headers['x-api-key'],
    title: request.headers['x-title'],
  });

  it('does not send credential headers on to another host, as fetch does not send Authorization', async () => {
    const other = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion({ content: 'answered elsewhere' }));
    });
    // 127.0.0.1 and localhost are two hosts to fetch.
    const first = await endpoint((_request, response) => {
      response.writeHead(307, { location: `http://localhost:${other.port}/v1/chat/completions` });
      response.end();
    });
    const holder = model(first.baseURL, { apiKey: 'sk-Vb71nQp2RsT0xw', headers });
    const answer = await holder.complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(answer.message.content).toBe('answered elsewhere');
    expect(credentials(first.seen[0]!)).toEqual({
      authorization: 'Bearer sk-Vb71nQp2RsT0xw',
      apiKey: headers['api-key'],
      xApiKey: headers['x-api-key'],
      title: 'turngym-tests',
    });
    // An Azure api-key and a gateway's x-api-key reached the other host.
    expect(other.seen[0]!.method).toBe('POST');
    expect(credentials(other.seen[0]!)).toEqual({
      authorization: undefined,
      apiKey: undefined,
      xApiKey: undefined,
      title: 'turngym-tests',
    });
  });

  it('keeps them on a redirect within the same host', async () => {
    const { baseURL, seen } = await endpoint((request, response) => {
      if (request.url === '/v1/chat/completions') {
        response.writeHead(308, { location: '/api/v1/chat/completions' });
        return void response.end();
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion({ content: 'moved' }));
    });
    const answer = await model(baseURL, { apiKey: 'sk-Vb71nQp2RsT0xw', headers }).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(answer.message.content).toBe('moved');
    expect(seen.map((request) => request.url)).toEqual(['/v1/chat/completions', '/api/v1/chat/completions']);
    expect(credentials(seen[1]!)).toEqual(credentials(seen[0]!));
    expect(seen[1]!.headers['x-api-key']).toBe(headers['x-api-key']);
  });

  it('says a redirect led to a host that could not be reached, instead of asking whether a server runs at the base URL', async () => {
    const closed = await endpoint(() => undefined);
    const unreachable = closed.port;
    await closeLatestServer();
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(307, { location: `http://127.0.0.1:${unreachable}/v1/chat/completions` });
      response.end();
    });
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'connection', isRetryable: true });
    expect(error.message).toContain(
      `the server redirected the request to http://127.0.0.1:${unreachable}/v1/chat/completions, which could not be reached (ECONNREFUSED)`,
    );
    expect(error.message).not.toContain('is an OpenAI-compatible server running');
  });

  it('does not follow a redirect to a data: URL, which fetch would read, and says where it pointed', async () => {
    const injected = completion({ content: 'from the redirect' });
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(307, { location: `data:application/json,${encodeURIComponent(injected)}` });
      response.end();
    });
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'http', status: 307, isRetryable: false });
    expect(error.message).toMatch(
      /HTTP 307: .* \(a redirect to data:application\/json,%7B.*…, not followed: only http\(s\) redirects are, at most 20 in a row\)$/,
    );
  });
});

describe("OpenAIChatModel's options as JSON", () => {
  it('leave out the values of credential headers, as they leave out the API key, while the model sends them', async () => {
    const { baseURL, seen } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion({ content: 'ok' }));
    });
    const secret = 'azure-Qk29vLx0aTbn';
    const holder = model(baseURL, { headers: { 'api-key': secret, 'x-title': 'turngym-tests' } });
    // JSON of a run's settings, or of a role's options, showed the header in full.
    expect(JSON.stringify(holder.options)).not.toContain(secret);
    expect(JSON.stringify(holder.options)).toContain('"x-title":"turngym-tests"');
    expect(holder.options.headers?.['api-key']).toBe(secret);
    await holder.complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(seen[0]!.headers['api-key']).toBe(secret);
  });
});

describe("OpenAIChatModel and a server's token counts", () => {
  it('estimates usage where the counts a server sent are not counts, instead of adding them to budgets', async () => {
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.parse(completion({ content: 'four words of reply' })) as Record<string, unknown>;
      response.end(JSON.stringify({ ...body, usage: { prompt_tokens: -5000, completion_tokens: 1e300 } }));
    });
    const { usage } = await model(baseURL).complete({ messages: [{ role: 'user', content: 'how are you today?' }] });
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(usage.promptTokens).toBeLessThan(20);
    expect(usage.completionTokens).toBeGreaterThan(0);
    expect(usage.completionTokens).toBeLessThan(20);
  });
});

describe('OpenAIChatModel and a stream that does not end after its last event', () => {
  it('returns the reply once its finish and usage are in, and hangs up, instead of waiting for the body to end', async () => {
    let closed!: (endedByServer: boolean) => void;
    const hungUp = new Promise<boolean>((resolve) => (closed = resolve));
    const { baseURL } = await endpoint((_request, response) => {
      response.on('close', () => closed(response.writableEnded));
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n');
      response.write('data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n');
      response.write('data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n');
      // `[DONE]`, and the connection left open: the client read on until the timeout (a minute by default).
      response.write('data: [DONE]\n\n');
    });
    const answer = await model(baseURL, { stream: true, timeoutMs: 60_000 }).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(answer).toMatchObject({ message: { content: 'hi' }, usage: { promptTokens: 3, completionTokens: 1 } });
    // The client closed the connection; the server never ended the response.
    expect(await hungUp).toBe(false);
  });
});

describe('OpenAIChatModel and a host name that does not resolve', () => {
  it('says the name does not resolve, instead of asking whether a server runs there', async () => {
    // `.invalid` never resolves (RFC 2606): no network is asked for an answer it could give.
    const error = (await ask('http://no-such-model-server.invalid/v1', { maxRetries: 0 })) as LLMCallError;
    expect(error).toMatchObject({ failure: 'connection', isRetryable: true });
    expect(error.message).toMatch(
      /could not connect \((ENOTFOUND|EAI_AGAIN)\): the host name no-such-model-server\.invalid does not resolve/,
    );
    expect(error.message).not.toContain('is an OpenAI-compatible server running');
  });
});
