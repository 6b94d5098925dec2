import { LLMCallError } from './llm-call-error';
import { ScriptedChatModel } from './scripted-chat-model';

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('ScriptedChatModel', () => {
  it('replies from a list in order, as text or tool calls, and fails clearly when it runs out', async () => {
    const model = new ScriptedChatModel(['hello', { name: 'LOOKUP', arguments: { key: 'a' } }]);
    const first = await model.complete(ask('hi'));
    expect(first).toMatchObject({ message: { role: 'assistant', content: 'hello' }, finishReason: 'stop' });
    const second = await model.complete(ask('next'));
    expect(second.finishReason).toBe('tool_calls');
    expect(second.message.toolCalls).toEqual([{ id: 'call_1_0', name: 'LOOKUP', arguments: { key: 'a' } }]);
    const error = await model.complete(ask('more')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LLMCallError);
    expect(error).toMatchObject({ code: 'LLM_CALL', failure: 'script', isRetryable: false });
    expect((error as Error).message).toMatch(/ran out after 2 replies/);
    expect(model.requests.map((request) => request.messages[0]?.content)).toEqual(['hi', 'next', 'more']);
  });

  it('loops when asked and answers from a function of the request', async () => {
    const looping = new ScriptedChatModel(['a', 'b'], { loop: true });
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push((await looping.complete(ask('x'))).message.content);
    expect(replies).toEqual(['a', 'b', 'a']);
    const upper = new ScriptedChatModel((request) => request.messages.at(-1)?.content.toUpperCase() ?? '');
    expect((await upper.complete(ask('shout'))).message.content).toBe('SHOUT');
  });

  it('echoes the last user message by default and counts usage', async () => {
    const model = new ScriptedChatModel();
    const response = await model.complete({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'two words' },
      ],
    });
    expect(response.message.content).toBe('two words');
    expect(response.usage).toEqual({ promptTokens: 5, completionTokens: 2 });
  });

  it('honours stop sequences and maxTokens like an endpoint', async () => {
    const model = new ScriptedChatModel(['one two three four. END more'], { loop: true });
    expect((await model.complete({ ...ask('x'), stop: ['END'] })).message.content).toBe('one two three four. ');
    const cut = await model.complete({ ...ask('x'), maxTokens: 2 });
    expect(cut).toMatchObject({ message: { content: 'one two' }, finishReason: 'length' });
  });

  it('wraps a throwing script in a non-retryable LLMCallError', async () => {
    const model = new ScriptedChatModel(() => {
      throw new Error('boom');
    });
    await expect(model.complete(ask('x'))).rejects.toMatchObject({
      failure: 'script',
      message: expect.stringMatching(/threw on call 1: boom/),
    });
  });
});
