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

  it("gives strftime_now the date in Python's C-locale format, pinned by `now`", () => {
    // Friday 5 July 2024, 14:03:09 local time; transformers: datetime.now().strftime(format).
    const now = new Date(2024, 6, 5, 14, 3, 9);
    const text = renderChatTemplate(
      "{{ strftime_now('%a %A %d %e %b %B %m %y %Y %H %I %p %M %S %j %w %% %Q') }}",
      [{ role: 'user', content: 'hi' }],
      { now },
    );
    expect(text).toBe('Fri Friday 05  5 Jul July 07 24 2024 14 02 PM 03 09 187 5 % %Q');
  });

  it('formats month and day names in English whatever the process locale, as Python does', () => {
    const render = (now: Date, format: string): string =>
      renderChatTemplate(`{{ strftime_now('${format}') }}`, [], { now });
    expect(render(new Date(2026, 10, 27), '%d %b %Y')).toBe('27 Nov 2026');
    expect(render(new Date(2024, 11, 31, 0, 5), '%j %I %p')).toBe('366 12 AM');
    expect(render(new Date(2024, 6, 5, 14, 3, 9), '%c|%x|%X|%F|%R|%Z%z')).toBe(
      'Fri Jul  5 14:03:09 2024|07/05/24|14:03:09|2024-07-05|14:03|',
    );
  });

  it('passes the special tokens it is given (pad_token, unk_token…) as template variables', () => {
    const text = renderChatTemplate(
      '{{ pad_token }}|{{ unk_token }}|{{ additional_special_tokens | join(",") }}|{{ bos_token }}',
      [{ role: 'user', content: 'hi' }],
      { specialTokens: { pad_token: '<pad>', unk_token: '<unk>', additional_special_tokens: ['<a>', '<b>'] } },
    );
    expect(text).toBe('<pad>|<unk>|<a>,<b>|');
  });
});
