import { renderChatTemplate } from './chat-template';

describe('renderChatTemplate', () => {
  it('gives templates tool calls as HF does, id included', () => {
    // The tool-call part of Mistral's template: it writes each call's id and refuses calls without a 9-character one.
    const template =
      '{%- for message in messages %}' +
      "{%- if message.role == 'assistant' and message.tool_calls is defined %}[TOOL_CALLS][" +
      '{%- for tool_call in message.tool_calls %}' +
      "{%- if tool_call.id is not defined or tool_call.id|length != 9 %}{{ raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{%- endif %}" +
      '{"name": "{{ tool_call.function.name }}", "arguments": {{ tool_call.function.arguments|tojson }}, "id": "{{ tool_call.id }}"}' +
      '{%- endfor %}]</s>' +
      '{%- elif message.role == \'tool\' %}[TOOL_RESULTS]{"content": {{ message.content|tojson }}, "call_id": "{{ message.tool_call_id }}"}[/TOOL_RESULTS]' +
      '{%- else %}[INST] {{ message.content }}[/INST]{%- endif %}' +
      '{%- endfor %}';
    const text = renderChatTemplate(template, [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'abc123def', name: 'weather', arguments: { city: 'Oslo' } }],
      },
      { role: 'tool', content: 'rain', toolCallId: 'abc123def' },
    ]);
    expect(text).toBe(
      '[INST] Weather?[/INST][TOOL_CALLS][{"name": "weather", "arguments": {"city": "Oslo"}, "id": "abc123def"}]</s>' +
        '[TOOL_RESULTS]{"content": "rain", "call_id": "abc123def"}[/TOOL_RESULTS]',
    );
  });
});
