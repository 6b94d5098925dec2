import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionTokenLogprob } from 'openai/resources/chat/completions';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { saveCheckpoint } from './checkpoint';
import { HfTokenizer } from './hf-tokenizer';
import { LanguageModel } from './language-model';
import { LocalChatModel } from './local-chat-model';
import { tokenBytes } from './local-chat-model-logprobs';
import { serveModel, type ModelServer } from './serve-model';
import { testConfig } from './tiny-configs';
import { randomWeights } from './__fixtures__/random-weights';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

describe('logprobs on the chat path of serve-model (/v1/chat/completions)', () => {
  let dir: string;
  let server: ModelServer;
  let client: OpenAI;
  const messages = [{ role: 'user' as const, content: 'Say something.' }];
  const base = { model: 'tiny-chat', messages, max_tokens: 16 };

  beforeAll(async () => {
    await useBackend('wasm');
    dir = mkdtempSync(join(tmpdir(), 'turngym-chat-logprobs-'));
    const checkpoint = join(dir, 'tiny-chat');
    const config = testConfig();
    const model = LanguageModel.fromTensors(config, randomWeights(config, 12), new ByteTokenizer());
    await saveCheckpoint(model, checkpoint);
    model.dispose();
    server = await serveModel({ checkpoint, port: 0, backend: 'wasm' });
    client = new OpenAI({ baseURL: server.baseURL, apiKey: 'local', maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The entries' bytes joined: the reply's content, whatever characters its tokens split. */
  const textOf = (entries: readonly ChatCompletionTokenLogprob[]): string =>
    Buffer.from(entries.flatMap((entry) => entry.bytes ?? [])).toString('utf8');

  async function streamed(request: Record<string, unknown>): Promise<{
    content: string;
    entries: ChatCompletionTokenLogprob[];
  }> {
    const stream = await client.chat.completions.create({ ...base, ...request, stream: true } as never);
    let content = '';
    const entries: ChatCompletionTokenLogprob[] = [];
    for await (const chunk of stream as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
      const choice = chunk.choices[0];
      content += choice?.delta.content ?? '';
      entries.push(...(choice?.logprobs?.content ?? []));
    }
    return { content, entries };
  }

  it('answers logprobs with top_logprobs: the chosen token is its entry, sorted, greedy at temperature 0 is entry 0', async () => {
    const reply = await client.chat.completions.create({ ...base, temperature: 0, logprobs: true, top_logprobs: 5 });
    const choice = reply.choices[0]!;
    const entries = choice.logprobs!.content!;
    expect(choice.logprobs!.refusal).toBeNull();
    // One entry per token of the content (the end-of-turn token is not part of it): their bytes are the content.
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThanOrEqual(reply.usage!.completion_tokens);
    expect(textOf(entries)).toBe(choice.message.content);
    for (const entry of entries) {
      expect(entry.top_logprobs).toHaveLength(5);
      const values = entry.top_logprobs.map((each) => each.logprob);
      expect(values).toEqual([...values].sort((a, b) => b - a));
      expect(values.every((value) => value <= 0)).toBe(true);
      // Greedy: the chosen token is the likeliest, with the very logprob listed for it.
      expect(entry.top_logprobs[0]).toEqual({ token: entry.token, logprob: entry.logprob, bytes: entry.bytes });
    }
  });

  it("sampled tokens' logprobs equal their entries among the alternatives; without top_logprobs none are listed", async () => {
    const request = { ...base, temperature: 1.5, seed: 7, max_tokens: 24 };
    const reply = await client.chat.completions.create({ ...request, logprobs: true, top_logprobs: 20 });
    const entries = reply.choices[0]!.logprobs!.content!;
    let found = 0;
    for (const entry of entries) {
      const listed = entry.top_logprobs.find((each) => JSON.stringify(each.bytes) === JSON.stringify(entry.bytes));
      if (listed) {
        found += 1;
        expect(listed.logprob).toBe(entry.logprob);
      } else expect(entry.logprob).toBeLessThanOrEqual(entry.top_logprobs.at(-1)!.logprob);
    }
    expect(found).toBeGreaterThan(0);
    // The same draws (the seed decides them) with the chosen tokens' logprobs alone.
    const alone = await client.chat.completions.create({ ...request, logprobs: true });
    expect(alone.choices[0]!.message.content).toBe(reply.choices[0]!.message.content);
    expect(alone.choices[0]!.logprobs!.content).toEqual(entries.map((entry) => ({ ...entry, top_logprobs: [] })));
    // Not asked for: null, as OpenAI answers.
    const none = await client.chat.completions.create(request);
    expect(none.choices[0]!.logprobs).toBeNull();
    expect(none.choices[0]!.message.content).toBe(reply.choices[0]!.message.content);
  });

  it("streams each chunk's tokens' logprobs; they add up to the plain answer's, a stop sequence's tokens left out", async () => {
    const asked = { temperature: 0, logprobs: true, top_logprobs: 3 };
    const plain = await client.chat.completions.create({ ...base, ...asked });
    const content = plain.choices[0]!.message.content!;
    const stream = await streamed(asked);
    expect(stream.content).toBe(content);
    expect(stream.entries).toEqual(plain.choices[0]!.logprobs!.content);
    // A stop inside the reply: the entries cover the text before it, streamed or not.
    const at = [...content].findIndex((_, i) => i > 1 && /^\S{2}$/.test(content.slice(i, i + 2)));
    expect(at).toBeGreaterThan(0);
    const stop = content.slice(at, at + 2);
    const cut = await client.chat.completions.create({ ...base, ...asked, stop });
    const cutContent = cut.choices[0]!.message.content!;
    expect(cut.choices[0]!.finish_reason).toBe('stop');
    expect(cutContent).toBe(content.slice(0, content.indexOf(stop)));
    expect(textOf(cut.choices[0]!.logprobs!.content!)).toBe(cutContent);
    const cutStream = await streamed({ ...asked, stop });
    expect(cutStream.content).toBe(cutContent);
    expect(cutStream.entries).toEqual(cut.choices[0]!.logprobs!.content);
  });

  it('refuses top_logprobs without logprobs, or past 20, with a 400 naming it', async () => {
    const refused = (request: Record<string, unknown>): Promise<unknown> =>
      client.chat.completions.create({ ...base, ...request } as never).then(
        () => undefined,
        (error: unknown) => error,
      );
    for (const request of [
      { top_logprobs: 2 },
      { logprobs: false, top_logprobs: 2 },
      { logprobs: true, top_logprobs: 21 },
    ])
      expect(await refused(request)).toMatchObject({ status: 400, param: 'top_logprobs' });
  });

  it("gives each token its own bytes, a character's pieces included, from the byte-level vocabulary", async () => {
    const bytes = new ByteTokenizer();
    const euro = [...Buffer.from('€', 'utf8')];
    // Alone, each byte of '€' decodes to U+FFFD: its bytes are the byte itself, not U+FFFD's.
    expect(euro.map((byte) => tokenBytes(bytes, byte))).toEqual(euro.map((byte) => [byte]));
    expect(tokenBytes(bytes, 'a'.charCodeAt(0))).toEqual([97]);
    expect(tokenBytes(bytes, 258)).toEqual([...Buffer.from('<|im_end|>')]);
    const { json, config } = smallBpeTokenizer();
    const hf = new HfTokenizer(json, config);
    // The bytes of a text's tokens add up to its UTF-8.
    const ids = hf.encode('héllo € wörld');
    expect(ids.every((id) => tokenBytes(hf, id) !== null)).toBe(true);
    expect(Buffer.from(ids.flatMap((id) => tokenBytes(hf, id)!)).toString('utf8')).toBe('héllo € wörld');
  });

  it('LocalChatModel streams the entries with the deltas that complete their text', async () => {
    const config = testConfig();
    const model = LanguageModel.fromTensors(config, randomWeights(config, 12), new ByteTokenizer());
    const chat = new LocalChatModel(model);
    try {
      const request = { messages, maxTokens: 20, temperature: 1, seed: 3, logprobs: true, topLogprobs: 2 };
      const reply = await chat.complete(request);
      const deltas: { text: string; logprobs: readonly unknown[] }[] = [];
      const streamedReply = await chat.complete({
        ...request,
        onDelta: (text, logprobs) => void deltas.push({ text, logprobs: logprobs ?? [] }),
      });
      expect(streamedReply).toEqual(reply);
      expect(deltas.map((delta) => delta.text).join('')).toBe(reply.message.content);
      expect(deltas.flatMap((delta) => delta.logprobs)).toEqual(reply.logprobs);
      expect(deltas.length).toBeGreaterThan(1);
    } finally {
      await chat.close();
      model.dispose();
    }
  });
});
