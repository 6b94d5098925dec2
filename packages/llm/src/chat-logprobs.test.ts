import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { CachedChatModel, chatCacheKey } from './cached-chat-model';
import type { ChatModel, ChatRequest, ChatResponse, ChatTokenLogprob } from './chat-model';
import { OpenAIChatModel } from './openai-chat-model';
import { serveChatModel, type ChatModelServer } from './serve-chat-model';

/** A reply of three tokens, the second the two halves' first byte of 'é' (its text alone is U+FFFD). */
const ENTRIES: ChatTokenLogprob[] = [
  { token: 'Hi', logprob: -0.25, bytes: [72, 105], topLogprobs: [] },
  { token: '\uFFFD', logprob: -1.5, bytes: [0xc3], topLogprobs: [] },
  { token: '\uFFFD!', logprob: -0.125, bytes: [0xa9, 33], topLogprobs: [] },
];
const CONTENT = 'Hié!';

/**
 * A model with log-probabilities, as LocalChatModel has them: `topLogprobs` alternatives at each token (the chosen
 * one first), streamed with the deltas when the caller streams. Records the requests it got.
 */
function scoringModel(options: { answerWithout?: boolean } = {}): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    id: 'scoring',
    supportsLogprobs: true,
    requests,
    async complete(request: ChatRequest & { onDelta?: (text: string, logprobs?: ChatTokenLogprob[]) => void }) {
      requests.push(request);
      const entries = ENTRIES.map((entry) => ({
        ...entry,
        topLogprobs: Array.from({ length: request.topLogprobs ?? 0 }, (_, k) =>
          k === 0
            ? { token: entry.token, logprob: entry.logprob, bytes: entry.bytes }
            : { token: `alt${k}`, logprob: entry.logprob - k, bytes: null },
        ),
      }));
      request.onDelta?.('Hi', request.logprobs ? entries.slice(0, 1) : undefined);
      // The second token's text is held back (half a character) and goes out with the third.
      request.onDelta?.('é!', request.logprobs ? entries.slice(1) : undefined);
      const response: ChatResponse = {
        message: { role: 'assistant', content: CONTENT },
        usage: { promptTokens: 4, completionTokens: 3 },
        finishReason: 'stop',
        ...(request.logprobs && !options.answerWithout ? { logprobs: entries } : {}),
      };
      return response;
    },
  };
}

describe('chat log-probabilities: served, read back by OpenAIChatModel, cached', () => {
  let server: ChatModelServer;
  let backend: ReturnType<typeof scoringModel>;
  let openai: OpenAI;
  const messages = [{ role: 'user' as const, content: 'hi' }];

  beforeEach(async () => {
    backend = scoringModel();
    server = await serveChatModel(backend, { modelName: 'tiny' });
    openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
  });
  afterEach(async () => {
    await server.close();
  });

  it("answers logprobs in OpenAI's shape, null when not asked, and the same entries streamed chunk by chunk", async () => {
    const plain = await openai.chat.completions.create({ model: 'tiny', messages, logprobs: true, top_logprobs: 2 });
    expect(plain.choices[0]!.logprobs).toEqual({
      content: ENTRIES.map((entry) => ({
        token: entry.token,
        logprob: entry.logprob,
        bytes: entry.bytes,
        top_logprobs: [
          { token: entry.token, logprob: entry.logprob, bytes: entry.bytes },
          { token: 'alt1', logprob: entry.logprob - 1, bytes: null },
        ],
      })),
      refusal: null,
    });
    expect(backend.requests[0]).toMatchObject({ logprobs: true, topLogprobs: 2 });
    expect((await openai.chat.completions.create({ model: 'tiny', messages })).choices[0]!.logprobs).toBeNull();
    expect(backend.requests[1]!.logprobs).toBeUndefined();

    const stream = await openai.chat.completions.create({
      model: 'tiny',
      messages,
      logprobs: true,
      top_logprobs: 2,
      stream: true,
    });
    const perChunk: { content: string; tokens: number }[] = [];
    const streamed: unknown[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0]!;
      const content = choice.logprobs?.content ?? [];
      streamed.push(...content);
      if (choice.delta.content) perChunk.push({ content: choice.delta.content, tokens: content.length });
    }
    expect(streamed).toEqual(plain.choices[0]!.logprobs!.content);
    // Each chunk carries the entries of the tokens whose text it brings.
    expect(perChunk).toEqual([
      { content: 'Hi', tokens: 1 },
      { content: 'é!', tokens: 2 },
    ]);
  });

  it('fails a request for logprobs that the model answered without, instead of sending logprobs: null', async () => {
    await server.close();
    server = await serveChatModel(scoringModel({ answerWithout: true }), { modelName: 'tiny' });
    openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
    await expect(openai.chat.completions.create({ model: 'tiny', messages, logprobs: true })).rejects.toMatchObject({
      status: 502,
    });
  });

  it('OpenAIChatModel sends logprobs and top_logprobs on and reads the entries back, plain and streamed', async () => {
    for (const stream of [false, true]) {
      const client = new OpenAIChatModel({ model: 'tiny', baseURL: server.baseURL, maxRetries: 0, stream });
      expect(client.supportsLogprobs).toBe(true);
      const reply = await client.complete({ messages, logprobs: true, topLogprobs: 1 });
      expect(reply.message.content).toBe(CONTENT);
      expect(reply.logprobs).toEqual(
        ENTRIES.map((entry) => ({
          ...entry,
          topLogprobs: [{ token: entry.token, logprob: entry.logprob, bytes: entry.bytes }],
        })),
      );
      expect(backend.requests.at(-1)).toMatchObject({ logprobs: true, topLogprobs: 1 });
      // Not asked for: none sent, none read.
      const without = await client.complete({ messages });
      expect(without.logprobs).toBeUndefined();
      expect(backend.requests.at(-1)!.logprobs).toBeUndefined();
    }
  });

  it('OpenAIChatModel fails a reply that a server sent without the logprobs asked for, rather than return none', async () => {
    // A server that ignores `logprobs` (answers as if it had not been sent).
    const ignoring = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'tiny',
            choices: [
              { index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop', logprobs: null },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => ignoring.listen(0, '127.0.0.1', resolve));
    try {
      const baseURL = `http://127.0.0.1:${(ignoring.address() as AddressInfo).port}/v1`;
      const client = new OpenAIChatModel({ model: 'tiny', baseURL, maxRetries: 0 });
      await expect(client.complete({ messages, logprobs: true })).rejects.toMatchObject({
        failure: 'invalid-response',
        message: expect.stringMatching(/no logprobs/),
      });
      expect((await client.complete({ messages })).message.content).toBe('Hi');
    } finally {
      await new Promise((resolve) => ignoring.close(resolve));
    }
  });

  it('serves the logprobs of a model that does not stream (a proxy to another server) in its streamed chunks', async () => {
    const proxy = await serveChatModel(new OpenAIChatModel({ model: 'tiny', baseURL: server.baseURL, maxRetries: 0 }), {
      modelName: 'proxy',
    });
    try {
      const client = new OpenAI({ baseURL: proxy.baseURL, apiKey: 'unused', maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'proxy',
        messages,
        logprobs: true,
        stream: true,
      });
      let content = '';
      const streamed: unknown[] = [];
      for await (const chunk of stream) {
        content += chunk.choices[0]?.delta.content ?? '';
        streamed.push(...(chunk.choices[0]?.logprobs?.content ?? []));
      }
      expect(content).toBe(CONTENT);
      expect(streamed).toEqual(ENTRIES.map(({ topLogprobs: _, ...entry }) => ({ ...entry, top_logprobs: [] })));
    } finally {
      await proxy.close();
    }
  });

  it('never answers a request for logprobs from a reply cached without them, and keeps them when cached with them', async () => {
    const cached = new CachedChatModel(backend);
    expect(cached.supportsLogprobs).toBe(true);
    const ask = (extra: Partial<ChatRequest> = {}): Promise<ChatResponse> =>
      cached.complete({ messages, temperature: 0, ...extra });
    expect((await ask()).logprobs).toBeUndefined();
    const scored = await ask({ logprobs: true });
    expect(scored.cached).toBeUndefined();
    expect(scored.logprobs).toHaveLength(3);
    const again = await ask({ logprobs: true });
    expect(again).toMatchObject({ cached: true, logprobs: scored.logprobs });
    // More alternatives are another answer; fewer ask the backend again too (the key names the count).
    expect((await ask({ logprobs: true, topLogprobs: 2 })).cached).toBeUndefined();
    expect(backend.requests).toHaveLength(3);
    // A request without logprobs keys as before they existed: old cache files still answer.
    expect(chatCacheKey('m', { messages, logprobs: false, topLogprobs: 3 })).toBe(chatCacheKey('m', { messages }));
  });
});
