import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CachedChatModel, chatCacheKey } from './cached-chat-model';
import type { ChatRequest } from './chat-model';
import { ScriptedChatModel } from './scripted-chat-model';

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
