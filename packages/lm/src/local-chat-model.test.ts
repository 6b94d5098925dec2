import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatCacheKey, LLMCallError } from '@turngym/llm';
import { useBackend } from './backend';
import { ByteTokenizer } from './byte-tokenizer';
import { GenerationBatch } from './generation-batch';
import { HfTokenizer } from './hf-tokenizer';
import { LanguageModel } from './language-model';
import { LocalChatModel } from './local-chat-model';
import { testConfig } from './tiny-configs';
import { randomWeights } from './__fixtures__/random-weights';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

describe('LocalChatModel', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });

  it("reports a chat template's raise_exception as a request the client must change (400), not a model fault", async () => {
    const { json, config } = smallBpeTokenizer();
    const template =
      "{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}" +
      '{{ m.content }}{% endfor %}';
    const tokenizer = new HfTokenizer(json, { ...config, chat_template: template });
    const model = LanguageModel.fromTensors(testConfig(), randomWeights(testConfig(), 3), tokenizer);
    const chat = new LocalChatModel(model);
    try {
      const refused = chat.complete({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
        ],
        maxTokens: 1,
      });
      await expect(refused).rejects.toThrow(LLMCallError);
      await expect(refused).rejects.toMatchObject({ status: 400, isRetryable: false });
      await expect(refused).rejects.toThrow(/chat template refused the messages: System role not supported/);
      const answer = await chat.complete({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 1 });
      expect(answer.usage?.completionTokens).toBe(1);
    } finally {
      model.dispose();
    }
  });

  it('refuses a prompt past the context as an OpenAI server would: a 400 LLMCallError (a bench records the episode as errored)', async () => {
    const { json, config } = smallBpeTokenizer();
    const tokenizer = new HfTokenizer(json, config);
    const model = LanguageModel.fromTensors(testConfig(), randomWeights(testConfig(), 3), tokenizer);
    const chat = new LocalChatModel(model);
    try {
      const long = 'hello world '.repeat(model.config.maxPositions);
      const refused = chat.complete({ messages: [{ role: 'user', content: long }], maxTokens: 1 });
      await expect(refused).rejects.toThrow(LLMCallError);
      await expect(refused).rejects.toMatchObject({
        code: 'LLM_CALL',
        status: 400,
        isRetryable: false,
        cause: { code: 'CONTEXT_LENGTH_EXCEEDED' },
      });
      await expect(refused).rejects.toThrow(/more than the model's context limit/);
    } finally {
      model.dispose();
    }
  });

  it('refuses a chat of more messages than the context has positions before rendering its template (it blocks the server)', async () => {
    const model = LanguageModel.fromTensors(testConfig(), randomWeights(testConfig(), 3), new ByteTokenizer());
    const chat = new LocalChatModel(model);
    const rendered = jest.spyOn(model.tokenizer, 'applyChatTemplate');
    try {
      const limit = model.config.maxPositions;
      const messages = Array.from({ length: limit + 1 }, (_, index) => ({
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: 'x',
      }));
      const refused = chat.complete({ messages, maxTokens: 1 });
      await expect(refused).rejects.toMatchObject({
        status: 400,
        isRetryable: false,
        cause: { code: 'CONTEXT_LENGTH_EXCEEDED' },
        message: `local:model: The chat has ${limit + 1} messages, more than the model's context limit max_position_embeddings = ${limit} can hold: every message renders to at least one token, so send at most ${limit} messages.`,
      });
      expect(rendered).not.toHaveBeenCalled();
      // At the limit the chat is rendered, and refused (or served) by its tokens as before.
      await expect(chat.complete({ messages: messages.slice(1), maxTokens: 1 })).rejects.toThrow(/tokens/);
      expect(rendered).toHaveBeenCalledTimes(1);
    } finally {
      rendered.mockRestore();
      model.dispose();
    }
  });

  it('reads OpenAI top_p 0 as greedy, and answers sampling settings out of range with a 400, not a server error', async () => {
    const model = LanguageModel.fromTensors(testConfig(), randomWeights(testConfig(), 3), new ByteTokenizer());
    const chat = new LocalChatModel(model);
    try {
      const messages = [{ role: 'user' as const, content: 'Say something.' }];
      const greedy = await chat.complete({ messages, maxTokens: 6, temperature: 0 });
      const topP0 = await chat.complete({ messages, maxTokens: 6, temperature: 1, topP: 0, seed: 5 });
      expect(topP0.message.content).toBe(greedy.message.content);
      const refused = chat.complete({ messages, maxTokens: 2, topP: 1.5 });
      await expect(refused).rejects.toThrow(LLMCallError);
      await expect(refused).rejects.toMatchObject({ status: 400, isRetryable: false });
      await expect(refused).rejects.toThrow(/topP/);
    } finally {
      model.dispose();
    }
  });

  it('keys a response cache on the checkpoint as it is now: retrained in place, or another adapter, is another model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-chat-identity-'));
    try {
      writeFileSync(join(dir, 'config.json'), '{}');
      writeFileSync(join(dir, 'model.safetensors'), 'weights v1');
      const before = new LocalChatModel(dir).cacheIdentity;
      expect(new LocalChatModel(dir).cacheIdentity).toBe(before);
      expect(new LocalChatModel(dir, { adapter: 'policy' }).cacheIdentity).not.toBe(before);
      writeFileSync(join(dir, 'model.safetensors'), 'weights v2, retrained');
      expect(new LocalChatModel(dir).cacheIdentity).not.toBe(before);
      const key = (model: LocalChatModel) =>
        chatCacheKey(model.id, { messages: [{ role: 'user', content: 'hi' }], temperature: 0 }, model.cacheIdentity);
      expect(key(new LocalChatModel(dir))).not.toBe(key(new LocalChatModel(dir, { adapter: 'policy' })));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops generating at the next decoder pass once the request is aborted or the model is closed', async () => {
    const { json, config } = smallBpeTokenizer();
    const model = LanguageModel.fromTensors(
      testConfig(),
      randomWeights(testConfig(), 3),
      new HfTokenizer(json, config),
    );
    const step = GenerationBatch.prototype.step;
    let onStep = (): void => {};
    let passes = 0;
    const steps = jest.spyOn(GenerationBatch.prototype, 'step').mockImplementation(function (this: GenerationBatch) {
      passes += 1;
      onStep();
      return step.call(this);
    });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    try {
      const aborted = new AbortController();
      onStep = () => aborted.abort();
      const chat = new LocalChatModel(model);
      const hungUp = chat.complete({ messages, maxTokens: 200, signal: aborted.signal });
      await expect(hungUp).rejects.toMatchObject({ failure: 'aborted', isRetryable: false });
      await expect(hungUp).rejects.toThrow(LLMCallError);
      expect(passes).toBe(1);
      passes = 0;
      onStep = () => void chat.close();
      await expect(chat.complete({ messages, maxTokens: 200 })).rejects.toThrow(/local:model is closed/);
      expect(passes).toBe(1);
    } finally {
      steps.mockRestore();
      model.dispose();
    }
  });

  it('hands a streaming request its text pass by pass, adding up to the reply, never past a stop', async () => {
    const { json, config } = smallBpeTokenizer();
    const model = LanguageModel.fromTensors(
      testConfig(),
      randomWeights(testConfig(), 3),
      new HfTokenizer(json, config),
    );
    const step = GenerationBatch.prototype.step;
    let passes = 0;
    const steps = jest.spyOn(GenerationBatch.prototype, 'step').mockImplementation(function (this: GenerationBatch) {
      passes += 1;
      return step.call(this);
    });
    const request = { messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 30, temperature: 0 };
    const chat = new LocalChatModel(model);
    try {
      const deltas: { text: string; pass: number }[] = [];
      const onDelta = (text: string): void => void deltas.push({ text, pass: passes });
      const reply = await chat.complete({ ...request, onDelta });
      expect(reply.finishReason).toBe('length');
      expect(deltas.map((delta) => delta.text).join('')).toBe(reply.message.content);
      // Text went out while the generation ran: the first piece passes before the last pass.
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas[0]!.pass).toBeLessThan(passes);
      // A stop two characters long inside the reply: the deltas hold back its first character, then end before it.
      const content = reply.message.content;
      const at = [...content].findIndex((_, i) => i > 0 && /^\S{2}$/.test(content.slice(i, i + 2)));
      expect(at).toBeGreaterThan(0);
      const stop = content.slice(at, at + 2);
      const cut: string[] = [];
      const stopped = await chat.complete({ ...request, stop, onDelta: (text) => void cut.push(text) });
      expect(stopped.finishReason).toBe('stop');
      expect(stopped.message.content).toBe(content.slice(0, content.indexOf(stop)));
      expect(cut.join('')).toBe(stopped.message.content);
    } finally {
      steps.mockRestore();
      await chat.close();
      model.dispose();
    }
  });
});
