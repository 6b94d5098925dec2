import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { CachedChatModel } from './cached-chat-model';
import { LLMCallError } from './llm-call-error';
import {
  ask,
  closeAfterTest,
  closeLoopbackServers,
  loopbackEndpoint,
  model,
  type SeenRequest,
} from './__fixtures__/loopback-endpoint';
import { selfSignedCertificate } from './__fixtures__/self-signed-certificate';

/**
 * Model endpoints that fail the ways real ones do — vLLM's own error shape, a proxy's HTML page, rate-limit
 * headers, a redirect, TLS on a plain port, an error event inside a stream — played by a real HTTP server on
 * loopback, through the real `openai` client.
 */

afterEach(closeLoopbackServers);

type Seen = SeenRequest;
const endpoint = loopbackEndpoint;

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

const reply = (content: string) => ({
  id: 'c',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
});

describe('OpenAIChatModel says what a failing endpoint said', () => {
  it("shows vLLM's and SGLang's top-level error message (a context-length error), not '(no body)'", async () => {
    const said =
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4900 in the messages, 100 in the completion). Please reduce the length of the messages or completion.";
    const { baseURL, seen } = await endpoint((_request, response) =>
      json(response, 400, { object: 'error', message: said, type: 'BadRequestError', param: null, code: 400 }),
    );
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toBeInstanceOf(LLMCallError);
    // A context overflow: its own failure, so the agent's episode ends scored (openai-chat-model-context-length.test.ts).
    expect(error).toMatchObject({ failure: 'context-length', status: 400, isRetryable: false, attempts: 1 });
    expect(error.message).toBe(`openai:m at ${baseURL}: HTTP 400: ${said}`);
    expect(seen).toHaveLength(1);
  });

  it("shows a FastAPI server's `detail` list", async () => {
    const { baseURL } = await endpoint((_request, response) =>
      json(response, 422, { detail: [{ loc: ['body', 'messages'], msg: 'field required', type: 'missing' }] }),
    );
    expect(((await ask(baseURL)) as Error).message).toMatch(/HTTP 422: field required$/);
  });

  it("names a proxy's HTML error page by its title instead of pasting the page, and retries it", async () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>${'body{margin:0}'.repeat(5000)}</style></head><body><h1>502 Bad Gateway</h1></body></html>`;
    const { baseURL, seen } = await endpoint((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end(page);
    });
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'http', status: 502, isRetryable: true, attempts: 3 });
    expect(error.message).toContain('HTTP 502: an HTML page titled "502 Bad Gateway", not an API error');
    expect(error.message).not.toContain('<');
    expect(error.message.length).toBeLessThan(400);
    expect(seen).toHaveLength(3);
  });

  it('names a 200 HTML page (a proxy or login page) by its title, not by its first 200 characters of <head>', async () => {
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<html><head><meta charset="utf-8"><style>${'.a{color:red}'.repeat(100)}</style><title>Sign in - Corporate Proxy</title></head><body>…</body></html>`,
      );
    });
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false, attempts: 1 });
    expect(error.message).toMatch(
      /no choices; the server sent an HTML page titled "Sign in - Corporate Proxy", not JSON/,
    );
  });

  it('reads at most 64 KiB of an error body that never ends, instead of holding it until the timeout', async () => {
    const { baseURL } = await endpoint((_request, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' });
      const flood = (): void => {
        while (response.write('overloaded '.repeat(6000)));
        if (!response.destroyed) response.once('drain', flood);
      };
      flood();
    });
    const error = (await ask(baseURL, { maxRetries: 0, timeoutMs: 20_000 })) as LLMCallError;
    expect(error).toMatchObject({ failure: 'http', status: 503, isRetryable: true });
    expect(error.message).toMatch(/HTTP 503: overloaded overloaded .*…$/);
  });

  it('masks the API key where a gateway echoes the request headers in its error', async () => {
    const key = 'sk-proj-Zq8uVt3LmN0pXr7sYw2K';
    const { baseURL } = await endpoint((request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end(`bad request; headers were: authorization: ${request.headers.authorization}`);
    });
    const error = (await ask(baseURL, { apiKey: key })) as LLMCallError;
    expect(error.message).toMatch(/HTTP 400: bad request; headers were: authorization: Bearer sk-\*\*\*$/);
    expect(error.message).not.toContain(key);
  });

  it('masks the key everywhere a logged error prints it: the kept cause, its body and headers, what the client logs', async () => {
    const key = 'sk-proj-Zq8uVt3LmN0pXr7sYw2K';
    const echoes: ((request: IncomingMessage, response: ServerResponse) => void)[] = [
      // A debugging gateway: the request's headers in the body and in a header of its own.
      (request, response) => {
        response.writeHead(400, {
          'content-type': 'text/plain',
          'x-seen-authorization': String(request.headers.authorization),
        });
        response.end(`bad request; headers were: authorization: ${request.headers.authorization}`);
      },
      // OpenAI's own wording for a wrong key, as a JSON error body the client parses and keeps.
      (_request, response) =>
        json(response, 401, { error: { message: `Incorrect API key provided: ${key}.`, code: 'invalid_api_key' } }),
      // A 200 whose body is not JSON, and an error event in a stream.
      (request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(`{"seen": "${request.headers.authorization}"`);
      },
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`data: ${JSON.stringify({ error: { message: `no such key ${key}` } })}\n\n`);
      },
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`data: {"unparsable": ${key}\n\n`);
      },
    ];
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const [index, echo] of echoes.entries()) {
        const { baseURL } = await endpoint(echo);
        const error = (await ask(baseURL, { apiKey: key, maxRetries: 0, stream: index >= 3 })) as LLMCallError;
        expect(error).toBeInstanceOf(LLMCallError);
        // What console.error(error) and a run record's util.inspect print: the error, its causes, all their fields.
        const printed = inspect(error, { depth: Infinity, showHidden: true });
        // (The parser's own message quotes 10 characters of an event that is not JSON: no key is that short.)
        if (index < 4) expect(printed).toContain('sk-***');
        expect(printed).not.toContain(key);
        expect(JSON.stringify(error.cause)).not.toContain(key);
      }
      // The client logs a stream event it cannot parse, echoed key and all.
      const said = logged.mock.calls.flat().map(String).join('\n');
      expect(said).toContain('Could not parse message into JSON');
      expect(said).not.toContain(key);
    } finally {
      logged.mockRestore();
    }
  });

  it("masks a key passed as a header (Azure's api-key, a gateway's Authorization) as it masks apiKey", async () => {
    const secret = 'azure-Kq93vXr0PmT7sLw2';
    const token = 'gw-tok-5Yh2Nq8Rv0Lx';
    const { baseURL } = await endpoint((request, response) => {
      response.writeHead(401, { 'content-type': 'text/plain' });
      response.end(`denied; api-key: ${request.headers['api-key']}, authorization: ${request.headers.authorization}`);
    });
    const headers = { 'api-key': secret, Authorization: `Bearer ${token}`, 'x-request-source': 'turngym-tests' };
    const holder = model(baseURL, { headers, maxRetries: 0 });
    const error = (await holder
      .complete({ messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as LLMCallError;
    expect(error).toBeInstanceOf(LLMCallError);
    const printed = [error.message, inspect(error, { depth: Infinity, showHidden: true }), inspect(holder)].join('\n');
    for (const shown of [secret, token]) expect(printed).not.toContain(shown);
    expect(error.message).toContain('api-key: azu***, authorization: Bea***');
    expect(inspect(holder)).toContain('turngym-tests');
  });

  it('keeps the key out of a printed model, and of its options as JSON, while the model still sends it', async () => {
    const key = 'sk-proj-Zq8uVt3LmN0pXr7sYw2K';
    const { baseURL } = await endpoint((request, response) =>
      json(response, 200, reply(String(request.headers.authorization === `Bearer ${key}`))),
    );
    const holder = model(baseURL, { apiKey: key });
    // console.log of a role's model, or of the cache around it, printed the openai client's fields, key and all.
    expect(inspect(new CachedChatModel(holder), { depth: Infinity })).not.toContain(key);
    expect(inspect(holder, { depth: Infinity })).toContain('sk-***');
    expect(JSON.stringify(holder.options)).not.toContain(key);
    expect(holder.options.apiKey).toBe(key);
    expect((await holder.complete({ messages: [{ role: 'user', content: 'x' }] })).message.content).toBe('true');
  });

  it('names a redirect that turned the POST into a GET, and where it went', async () => {
    const { baseURL, root, seen } = await endpoint((request, response) => {
      if (request.url?.startsWith('/v1/')) {
        response.writeHead(301, { location: '/api/v1/chat/completions' });
        response.end();
        return;
      }
      // A 301 makes fetch repeat the request as a GET, which the real route does not serve.
      if (request.method === 'GET') json(response, 405, { detail: 'Method Not Allowed' });
      else json(response, 200, reply('never reached'));
    });
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ status: 405, isRetryable: false });
    expect(error.message).toContain(`redirected the request to ${root}/api/v1/chat/completions`);
    expect(error.message).toContain(`set the base URL to ${root}/api/v1`);
    expect(seen.map((each) => each.method)).toEqual(['POST', 'GET']);
  });
});

describe('OpenAIChatModel and a 200 whose body is not JSON', () => {
  const cut = '{"id":"c","object":"chat.completion",\n"choices":[{"index":0,"message":{"role":"assist';

  it('retries a body cut short (a proxy, a server that died mid-reply), as a 5xx, and takes the whole one', async () => {
    const { baseURL, seen } = await endpoint((_request, response, index) => {
      if (index > 0) return json(response, 200, reply('whole'));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(cut);
    });
    const answer = await model(baseURL).complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(answer.message.content).toBe('whole');
    expect(seen).toHaveLength(2);
  });

  it('stops reading a 200 whose body never ends, and says so, without retrying', async () => {
    // It was read into memory until the timeout, then called a timeout and retried (each attempt reading again).
    const { baseURL, seen } = await endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 'x');
      response.write('{"id": "c", "pad": "');
      const more = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', more);
      };
      response.on('error', () => undefined);
      more();
    });
    const error = (await ask(baseURL, { timeoutMs: 30_000 })) as LLMCallError;
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect(error.message).toMatch(/unreadable response: the HTTP 200 response's body is over 64 MiB/);
    expect(seen).toHaveLength(1);
  });

  it('names what came when every attempt gets one: the start of the body, escaped; an empty body; a page', async () => {
    const failing = async (body: string) => {
      const { baseURL, seen } = await endpoint((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        response.end(body);
      });
      const error = (await ask(baseURL)) as LLMCallError;
      expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: true, attempts: 3 });
      expect(seen).toHaveLength(3);
      return error.message;
    };
    const message = await failing(cut);
    expect(message).toMatch(
      /: unreadable response: HTTP 200, but its body is not JSON \(.*JSON.*\): it sent 85 characters/,
    );
    expect(message).toContain(`beginning ${JSON.stringify(cut)} (cut short by a proxy`);
    expect(message).toMatch(/\(gave up after 3 attempts\)$/);
    expect(await failing('')).toMatch(/HTTP 200, but its body is not JSON \(.*\): the body was empty \(gave up/);
    expect(await failing('<html><head><title>Service Unavailable</title></head><body>…</body></html>')).toMatch(
      /HTTP 200, but its body is not JSON: it sent an HTML page titled "Service Unavailable" \(a proxy's or gateway's page\?\), beginning "<html>/,
    );
  });
});

describe('OpenAIChatModel waits as long as a rate-limited endpoint asks', () => {
  it('honours x-ratelimit-reset-* on a 429 that sends no Retry-After (OpenAI, Groq)', async () => {
    const { baseURL, seen } = await endpoint((_request, response, index) => {
      if (index > 0) return json(response, 200, reply('ok'));
      json(
        response,
        429,
        { error: { message: 'Rate limit reached for requests', code: 'rate_limit_exceeded' } },
        {
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': '0.3s',
          'x-ratelimit-remaining-tokens': '90000',
          'x-ratelimit-reset-tokens': '6m0s',
        },
      );
    });
    // retryBaseDelayMs is 1 ms: only the header can make the retry wait.
    const answer = await model(baseURL, { retryMaxDelayMs: 10_000 }).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(answer.message.content).toBe('ok');
    expect(seen).toHaveLength(2);
    expect((seen[1] as Seen).at - (seen[0] as Seen).at).toBeGreaterThanOrEqual(300);
  });

  it('reads the reset of whichever limit is used up, in Go duration syntax', async () => {
    const headers = {
      'x-ratelimit-remaining-requests': '12',
      'x-ratelimit-reset-requests': '120ms',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '1m2.5s',
    };
    const { baseURL } = await endpoint((_request, response) =>
      json(response, 429, { error: { message: 'Rate limit reached for tokens' } }, headers),
    );
    expect(await ask(baseURL, { maxRetries: 0 })).toMatchObject({ status: 429, retryAfterMs: 62_500 });
  });
});

describe('OpenAIChatModel and failures no retry can fix', () => {
  it('says TLS failed, and does not retry, for https:// to a plain-HTTP server', async () => {
    const { root, seen } = await endpoint((_request, response) => json(response, 200, reply('plain')));
    const error = (await ask(`${root.replace('http://', 'https://')}/v1`)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'connection', isRetryable: false, attempts: 1 });
    expect(error.message).toMatch(/TLS failed \(ERR_SSL_WRONG_VERSION_NUMBER: wrong version number\)/);
    expect(error.message).toContain('the base URL starts with http://');
    expect(error.message).not.toContain('is an OpenAI-compatible server running');
    expect(seen).toHaveLength(0);
  });

  it('says the port speaks TLS, and does not retry, for http:// to an HTTPS server that closes without a word', async () => {
    let requests = 0;
    const server = createHttpsServer(selfSignedCertificate(), (_request, response) => {
      requests += 1;
      json(response, 200, reply('over TLS'));
    });
    closeAfterTest(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    const error = (await ask(`http://127.0.0.1:${port}/v1`)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'connection', isRetryable: false, attempts: 1 });
    expect(error.message).toMatch(
      new RegExp(
        `closed the connection without answering \\(UND_ERR_SOCKET\\), and port ${port} speaks TLS: is this an HTTPS server\\? Then the base URL starts with https://$`,
      ),
    );
    expect(requests).toBe(0);
  });

  it('still retries a plain server that hangs up, and hints at http:// where one hangs up on a TLS handshake', async () => {
    const server = createNetServer((socket) => {
      socket.once('data', () => socket.destroy());
    });
    closeAfterTest(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    const plain = (await ask(`http://127.0.0.1:${port}/v1`)) as LLMCallError;
    expect(plain).toMatchObject({ failure: 'connection', isRetryable: true, attempts: 3 });
    expect(plain.message).toMatch(/the server closed the connection before answering \(UND_ERR_SOCKET\) \(gave up/);
    expect(plain.message).not.toContain('TLS');
    const secure = (await ask(`https://127.0.0.1:${port}/v1`, { maxRetries: 0 })) as LLMCallError;
    expect(secure.message).toMatch(
      /closed the connection before answering \(ECONNRESET\): it hung up during the TLS handshake; if it serves plain HTTP, the base URL starts with http:\/\/$/,
    );
  });

  it('says fetch refuses a blocked port instead of asking whether a server runs there', async () => {
    const error = (await ask('http://127.0.0.1:6000/v1')) as LLMCallError;
    expect(error).toMatchObject({ failure: 'connection', isRetryable: false, attempts: 1 });
    expect(error.message).toMatch(/fetch refuses port 6000/);
  });
});

describe('OpenAIChatModel and an error event inside a stream', () => {
  const sseError = (error: Record<string, unknown>) =>
    endpoint((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] })}\n\n`,
      );
      response.end(`data: ${JSON.stringify({ error })}\n\n`);
    });

  it("retries OpenAI's mid-stream server_error, as it would the same error sent as a 500", async () => {
    const { baseURL, seen } = await sseError({
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
    });
    const error = (await ask(baseURL, { stream: true })) as LLMCallError;
    expect(error).toMatchObject({ failure: 'http', isRetryable: true, attempts: 3 });
    expect(error.message).toContain('the server sent an error in the stream: The server had an error');
    expect(seen).toHaveLength(3);
  });

  it('does not retry an error event that is about the request', async () => {
    const { baseURL, seen } = await sseError({ message: 'Invalid tool schema', type: 'invalid_request_error' });
    expect(await ask(baseURL, { stream: true })).toMatchObject({ failure: 'http', isRetryable: false, attempts: 1 });
    expect(seen).toHaveLength(1);
  });
});

describe('OpenAIChatModel and reasoning sent apart from the content', () => {
  it.each([false, true])(
    'returns reasoning_content as `reasoning`, so an empty reply is seen as cut mid-thought (stream: %s)',
    async (stream) => {
      const { baseURL } = await endpoint((_request, response) => {
        if (!stream) {
          return json(response, 200, {
            id: 'c',
            object: 'chat.completion',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: null, reasoning_content: 'Let me think. 2 + 2' },
                finish_reason: 'length',
              },
            ],
          });
        }
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: unknown, finish: string | null) =>
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        response.write(chunk({ role: 'assistant', reasoning_content: 'Let me think. ' }, null));
        response.write(chunk({ reasoning_content: '2 + 2' }, null));
        response.end(`${chunk({}, 'length')}data: [DONE]\n\n`);
      });
      const answer = await model(baseURL, { stream }).complete({ messages: [{ role: 'user', content: '2+2?' }] });
      expect(answer).toMatchObject({
        message: { role: 'assistant', content: '' },
        finishReason: 'length',
        reasoning: 'Let me think. 2 + 2',
      });
    },
  );
});

describe('OpenAIChatModel and content sent as a list of parts', () => {
  // Mistral's reasoning models (and proxies in front of other APIs) send `content` as parts, thinking among them.
  const parts = [
    {
      type: 'thinking',
      thinking: [
        { type: 'text', text: 'The user greets; ' },
        { type: 'text', text: 'greet back.' },
      ],
    },
    { type: 'text', text: 'Hello' },
    { type: 'text', text: ' there!' },
  ];

  it.each([false, true])(
    'reads the text parts as the reply and thinking as its reasoning (stream: %s)',
    async (stream) => {
      const { baseURL } = await endpoint((_request, response) => {
        if (!stream)
          return json(response, 200, {
            id: 'c',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: parts }, finish_reason: 'stop' }],
          });
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: unknown, finish: string | null) =>
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        // Taken as strings, these deltas were added to the reply as "[object Object]".
        for (const part of parts) response.write(chunk({ content: [part] }, null));
        response.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
      });
      const answer = await model(baseURL, { stream }).complete({ messages: [{ role: 'user', content: 'Hi' }] });
      expect(answer).toMatchObject({
        message: { role: 'assistant', content: 'Hello there!' },
        reasoning: 'The user greets; greet back.',
        finishReason: 'stop',
      });
    },
  );

  it('names content that is neither text nor parts, instead of passing a number on or crashing on it', async () => {
    const { baseURL } = await endpoint((_request, response) =>
      json(response, 200, {
        choices: [{ index: 0, message: { role: 'assistant', content: 42 }, finish_reason: 'stop' }],
      }),
    );
    const error = (await ask(baseURL)) as LLMCallError;
    expect(error).toMatchObject({ failure: 'invalid-response', isRetryable: false });
    expect(error.message).toMatch(
      /unreadable response: the reply's content is neither text nor a list of parts \(got 42\)$/,
    );
    const nothing = await endpoint((_request, response) => json(response, 200, null));
    expect(((await ask(nothing.baseURL)) as Error).message).toMatch(
      /unreadable response: the response is JSON null, not a chat completion$/,
    );
  });
});

describe("OpenAIChatModel and vLLM's sampling fields", () => {
  it('sends topK, minP and repetitionPenalty on as top_k, min_p and repetition_penalty, leaving off values out', async () => {
    const bodies: Record<string, unknown>[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        json(response, 200, reply('ok'));
      });
    });
    closeAfterTest(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    const vllm = model(`http://127.0.0.1:${port}/v1`);
    // A served model that says it applies them gets them from `serveChatModel`; these were dropped on the way out.
    expect(vllm.supportsExtendedSampling).toBe(true);
    const messages = [{ role: 'user' as const, content: 'x' }];
    await vllm.complete({ messages, topK: 20, minP: 0.05, repetitionPenalty: 1.1 });
    await vllm.complete({ messages, topK: -1, minP: 0, repetitionPenalty: 1 });
    expect(bodies[0]).toMatchObject({ top_k: 20, min_p: 0.05, repetition_penalty: 1.1 });
    expect(Object.keys(bodies[1] ?? {}).filter((key) => /top_k|min_p|repetition/.test(key))).toEqual([]);
  });
});
