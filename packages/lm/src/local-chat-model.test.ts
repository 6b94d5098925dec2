import { LLMCallError } from '@turngym/llm';
import { useBackend } from './backend';
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
});
