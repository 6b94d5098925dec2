import { LLMCallError } from '@turngym/llm';
import { useBackend } from './backend';
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
});
