import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CachedChatModel, chatCacheKey } from './cached-chat-model';
import type { ChatRequest } from './chat-model';
import { LLMCallError } from './llm-call-error';
import { OpenAIChatModel } from './openai-chat-model';
import { ScriptedChatModel } from './scripted-chat-model';

/** A bare OpenAI-compatible endpoint that always answers `text`; returns its base URL. */
async function endpoint(text: string, servers: Server[]): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'qwen',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 2 },
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** A model whose every answer differs, so a repeated answer can only come from the cache. */
const counting = (id = 'counter') => new ScriptedChatModel((_request, index) => `answer ${index}`, { id });

const request = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content }],
  temperature: 0,
  role: 'judge',
  ...extra,
});

describe('CachedChatModel', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-llm-cache-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('answers a repeated deterministic request from the cache, with its original usage', async () => {
    const inner = counting();
    const model = new CachedChatModel(inner);
    const first = await model.complete(request('hello'));
    const second = await model.complete(request('hello'));
    expect(first.message.content).toBe('answer 0');
    expect(second).toEqual({ ...first, cached: true });
    expect(inner.requests).toHaveLength(1);
    expect(model.stats).toEqual({ hits: 1, misses: 1, bypassed: 0, entries: 1 });
    expect(model.id).toBe('counter');
  });

  it('misses when the role, messages, tools, seed, sampling or model differ', async () => {
    const inner = counting();
    const model = new CachedChatModel(inner);
    await model.complete(request('hello'));
    await model.complete(request('hello', { role: 'buyer' }));
    await model.complete(request('hello!'));
    await model.complete(request('hello', { seed: 1 }));
    await model.complete(request('hello', { maxTokens: 5 }));
    await model.complete(request('hello', { tools: [{ name: 't', description: '', parameters: {} }] }));
    expect(model.stats.misses).toBe(6);
    expect(chatCacheKey('a', request('x'))).not.toBe(chatCacheKey('b', request('x')));
  });

  it("never answers from another endpoint's or another backend default's cached reply", async () => {
    const servers: Server[] = [];
    try {
      const base = await endpoint('from the base model', servers);
      const tuned = await endpoint('from the fine-tune', servers);
      const path = join(directory, 'shared-cache.jsonl');
      const open = (baseURL: string, maxTokens?: number) =>
        new CachedChatModel(
          new OpenAIChatModel(
            { model: 'qwen', baseURL, maxRetries: 0, ...(maxTokens !== undefined ? { defaults: { maxTokens } } : {}) },
            {},
          ),
          { path },
        );
      const first = open(base);
      expect((await first.complete(request('hello'))).message.content).toBe('from the base model');
      await first.close();

      // Same model name, same request, same cache file: a different server must be asked.
      const second = open(tuned);
      const answer = await second.complete(request('hello'));
      expect(answer.message.content).toBe('from the fine-tune');
      expect(answer.cached).toBeUndefined();
      await second.close();

      // A backend default that shapes the answer (here a token cap) keys the cache too.
      const capped = open(base, 1);
      expect((await capped.complete(request('hello'))).cached).toBeUndefined();
      await capped.close();
      // …while the same endpoint and defaults still hit, in a new process reading the file.
      expect((await open(base).complete(request('hello'))).cached).toBe(true);
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('keys tool-call arguments by value, not by key order', () => {
    const call = (args: Record<string, unknown>): ChatRequest => ({
      messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: args }] }],
      temperature: 0,
    });
    expect(chatCacheKey('m', call({ a: 1, b: [1, { c: 2, d: 3 }] }))).toBe(
      chatCacheKey('m', call({ b: [1, { d: 3, c: 2 }], a: 1 })),
    );
  });

  it('passes through requests that are meant to vary (temperature ≠ 0, no seed) unless told otherwise', async () => {
    const model = new CachedChatModel(counting());
    const a = await model.complete(request('hi', { temperature: 0.7 }));
    const b = await model.complete(request('hi', { temperature: 0.7 }));
    expect([a.message.content, b.message.content]).toEqual(['answer 0', 'answer 1']);
    expect(model.stats).toMatchObject({ bypassed: 2, entries: 0 });
    // A seed makes a sampled request reproducible, so it is cached.
    await model.complete(request('hi', { temperature: 0.7, seed: 3 }));
    expect((await model.complete(request('hi', { temperature: 0.7, seed: 3 }))).cached).toBe(true);

    const always = new CachedChatModel(counting(), { cacheNondeterministic: true });
    await always.complete(request('hi', { temperature: 1 }));
    expect((await always.complete(request('hi', { temperature: 1 }))).message.content).toBe('answer 0');
  });

  it('shares one call between concurrent identical requests', async () => {
    const inner = counting();
    const model = new CachedChatModel(inner);
    const answers = await Promise.all([
      model.complete(request('x')),
      model.complete(request('x')),
      model.complete(request('x')),
    ]);
    expect(new Set(answers.map((answer) => answer.message.content))).toEqual(new Set(['answer 0']));
    expect(inner.requests).toHaveLength(1);
  });

  it("does not fail a request that joined a call when that call's own caller aborts it", async () => {
    const controller = new AbortController();
    const inner = new ScriptedChatModel((call, index) =>
      index === 0
        ? new Promise<string>((_resolve, reject) =>
            call.signal?.addEventListener('abort', () =>
              reject(new LLMCallError('aborted by the caller', { failure: 'aborted' })),
            ),
          )
        : `answer ${index}`,
    );
    const model = new CachedChatModel(inner);
    const leader = model.complete(request('x', { signal: controller.signal }));
    const follower = model.complete(request('x'));
    await new Promise(setImmediate);
    expect(inner.requests).toHaveLength(1); // the follower joined the leader's call
    controller.abort();
    await expect(leader).rejects.toMatchObject({ failure: 'aborted' });
    expect((await follower).message.content).toBe('answer 1');
  });

  it("lets a request waiting on another caller's call cancel its own wait", async () => {
    let release: (text: string) => void = () => undefined;
    const inner = new ScriptedChatModel(() => new Promise<string>((resolve) => (release = resolve)));
    const model = new CachedChatModel(inner);
    const leader = model.complete(request('x'));
    const controller = new AbortController();
    let followerError: unknown;
    const follower = model.complete(request('x', { signal: controller.signal })).catch((error: unknown) => {
      followerError = error;
    });
    await new Promise(setImmediate);
    controller.abort();
    await new Promise(setImmediate);
    // Settled while the shared call is still running, not whenever that call happens to finish.
    expect(followerError).toMatchObject({ code: 'LLM_CALL', failure: 'aborted' });
    release('late answer');
    expect((await leader).message.content).toBe('late answer');
    await follower;
  });

  it('does not cache failures', async () => {
    let calls = 0;
    const flaky = new ScriptedChatModel(() => {
      calls += 1;
      if (calls === 1) throw new Error('transient');
      return 'fine';
    });
    const model = new CachedChatModel(flaky);
    await expect(model.complete(request('x'))).rejects.toThrow(/transient/);
    expect((await model.complete(request('x'))).message.content).toBe('fine');
  });

  it('persists to a JSONL file that a new process reads back, skipping a torn last line', async () => {
    const path = join(directory, 'nested', 'cache.jsonl');
    const first = new CachedChatModel(counting(), { path });
    await first.complete(request('one'));
    await first.complete(request('two', { tools: [{ name: 'f', description: 'd', parameters: { type: 'object' } }] }));
    await first.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      modelId: 'counter',
      role: 'judge',
      response: { message: { content: 'answer 0' } },
    });
    appendFileSync(path, '{"key": "torn');

    const inner = counting();
    const second = new CachedChatModel(inner, { path });
    expect((await second.complete(request('one'))).message.content).toBe('answer 0');
    expect(
      (
        await second.complete(
          request('two', { tools: [{ name: 'f', description: 'd', parameters: { type: 'object' } }] }),
        )
      ).message.content,
    ).toBe('answer 1');
    expect(inner.requests).toHaveLength(0);
    expect(second.stats).toMatchObject({ hits: 2, misses: 0, entries: 2 });
  });

  it('keeps the first answer appended after a torn last line', async () => {
    const path = join(directory, 'cache.jsonl');
    const first = new CachedChatModel(counting(), { path });
    await first.complete(request('one'));
    await first.close();
    appendFileSync(path, '{"key": "torn by a crash'); // no newline: the process died mid-append

    const second = new CachedChatModel(counting(), { path });
    expect((await second.complete(request('two'))).message.content).toBe('answer 0');
    await second.close();

    const inner = counting();
    const third = new CachedChatModel(inner, { path });
    expect((await third.complete(request('one'))).cached).toBe(true);
    expect((await third.complete(request('two'))).message.content).toBe('answer 0');
    expect(inner.requests).toHaveLength(0);
  });

  it('skips a line that holds no usable response instead of answering with it', async () => {
    const path = join(directory, 'cache.jsonl');
    const key = chatCacheKey('counter', request('x'));
    writeFileSync(path, `${JSON.stringify({ key, modelId: 'counter', response: { text: 'old format' } })}\n`);
    const model = new CachedChatModel(counting(), { path });
    const answer = await model.complete(request('x'));
    expect(answer.message.content).toBe('answer 0');
    expect(answer.cached).toBeUndefined();
  });

  it("refuses to append to a file that is not a response cache (a run's metrics) instead of corrupting it", async () => {
    const path = join(directory, 'metrics.jsonl');
    const metrics = '{"step":1,"reward":0.5}\n{"step":2,"reward":0.75}\n';
    writeFileSync(path, metrics);
    const model = new CachedChatModel(counting(), { path });
    await expect(model.complete(request('x'))).rejects.toMatchObject({
      code: 'LLM_CACHE',
      message: expect.stringContaining(`${path} is not a response cache`),
    });
    await model.flush();
    expect(readFileSync(path, 'utf8')).toBe(metrics);
  });

  it('reports a write failure at flush() without losing the answer', async () => {
    const folder = join(directory, 'folder');
    const model = new CachedChatModel(counting(), { path: join(folder, 'cache.jsonl') });
    await model.complete(request('x'));
    await model.flush();
    rmSync(folder, { recursive: true });
    writeFileSync(folder, 'a file where the folder was');
    expect((await model.complete(request('y'))).message.content).toBe('answer 1');
    expect((await model.complete(request('y'))).cached).toBe(true);
    await expect(model.flush()).rejects.toThrow(/ENOTDIR|EEXIST/);
    // One error tree: the failure is TurnGym's, and names the file.
    await expect(model.flush()).rejects.toMatchObject({
      code: 'LLM_CACHE',
      message: expect.stringContaining(`Could not write the response cache ${join(folder, 'cache.jsonl')}`),
    });
  });

  it('fails clearly when the cache path cannot be read', async () => {
    const model = new CachedChatModel(counting(), { path: directory });
    await expect(model.complete(request('x'))).rejects.toThrow(/Could not read the response cache .*EISDIR/);
  });

  it('validates its options', () => {
    expect(() => new CachedChatModel(counting(), { pth: 'x' } as never)).toThrow(
      /Invalid options for CachedChatModel: options has unknown field "pth"/,
    );
  });
});
