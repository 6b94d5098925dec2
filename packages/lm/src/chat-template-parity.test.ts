import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '@turngym/spec';
import { loadTokenizer } from './checkpoint';
import { HfTokenizer } from './hf-tokenizer';
import { CheckpointError } from './lm-errors';
import { smallBpeTokenizer } from './__fixtures__/small-bpe-tokenizer';

/**
 * Checkpoint directories laid out as Qwen2.5's and Llama 3.2's Instruct releases are (their chat templates verbatim,
 * their special tokens as added tokens), rendered as transformers' `apply_chat_template(messages,
 * add_generation_prompt=True)` renders them; each expected string is derived by hand from its template.
 */

const QWEN2_TEMPLATE = `{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
`;

const LLAMA32_TEMPLATE = `{{- bos_token }}
{%- if custom_tools is defined %}
    {%- set tools = custom_tools %}
{%- endif %}
{%- if not tools_in_user_message is defined %}
    {%- set tools_in_user_message = true %}
{%- endif %}
{%- if not date_string is defined %}
    {%- if strftime_now is defined %}
        {%- set date_string = strftime_now("%d %b %Y") %}
    {%- else %}
        {%- set date_string = "26 Jul 2024" %}
    {%- endif %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}

{#- This block extracts the system message, so we can slot it into the right place. #}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}

{#- System message #}
{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}
{%- if tools is not none %}
    {{- "Environment: ipython\\n" }}
{%- endif %}
{{- "Cutting Knowledge Date: December 2023\\n" }}
{{- "Today Date: " + date_string + "\\n\\n" }}
{%- if tools is not none and not tools_in_user_message %}
    {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\\n\\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\\n\\n" }}
    {%- endfor %}
{%- endif %}
{{- system_message }}
{{- "<|eot_id|>" }}

{%- for message in messages %}
    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}
    {%- elif 'tool_calls' in message %}
        {%- if not message.tool_calls|length == 1 %}
            {{- raise_exception("This model only supports single tool-calls at once!") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}
        {{- '{"name": "' + tool_call.name + '", ' }}
        {{- '"parameters": ' }}
        {{- tool_call.arguments | tojson }}
        {{- "}" }}
        {{- "<|eot_id|>" }}
    {%- elif message.role == "tool" or message.role == "ipython" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}
        {%- if message.content is mapping or message.content is iterable %}
            {{- message.content | tojson }}
        {%- else %}
            {{- message.content }}
        {%- endif %}
        {{- "<|eot_id|>" }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}
{%- endif %}
`;

/** Three turns after a system message: the conversation the brief of both templates is checked on. */
const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Hi' },
  { role: 'assistant', content: 'Hello!' },
  { role: 'user', content: 'Name a prime.' },
];

describe('chat templates of real checkpoints render as transformers renders them', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turngym-lm-parity-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A checkpoint's tokenizer files: the small BPE vocabulary plus `special` as special added tokens. */
  function writeTokenizer(special: string[], config: Record<string, unknown>): void {
    const { json } = smallBpeTokenizer();
    const firstId = 300;
    const added = special.map((content, index) => ({
      id: firstId + index,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    }));
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({ ...json, added_tokens: added }));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  }

  it('Qwen2.5: ChatML with the system message first, then the assistant header', () => {
    writeTokenizer(['<|endoftext|>', '<|im_start|>', '<|im_end|>'], {
      bos_token: null,
      eos_token: '<|im_end|>',
      pad_token: '<|endoftext|>',
      unk_token: null,
      chat_template: QWEN2_TEMPLATE,
    });
    const tokenizer = loadTokenizer(dir);
    const prompt = tokenizer.applyChatTemplate(CONVERSATION, { addGenerationPrompt: true });
    expect(prompt).toBe(
      '<|im_start|>system\nYou are terse.<|im_end|>\n' +
        '<|im_start|>user\nHi<|im_end|>\n' +
        '<|im_start|>assistant\nHello!<|im_end|>\n' +
        '<|im_start|>user\nName a prime.<|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
    expect(tokenizer.encode(prompt).slice(0, 1)).toEqual([301]);
    expect(tokenizer.eosTokenIds).toEqual([302]);
    expect(tokenizer.padTokenId).toBe(300);
  });

  it("Llama 3.2: bos, today's date from strftime_now, the system message in its header block", () => {
    writeTokenizer(['<|begin_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>'], {
      bos_token: '<|begin_of_text|>',
      eos_token: '<|eot_id|>',
      chat_template: LLAMA32_TEMPLATE,
    });
    const tokenizer = loadTokenizer(dir);
    const prompt = tokenizer.applyChatTemplate(CONVERSATION, {
      addGenerationPrompt: true,
      now: new Date(2025, 2, 4, 9, 30),
    });
    expect(prompt).toBe(
      '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n' +
        'Cutting Knowledge Date: December 2023\nToday Date: 04 Mar 2025\n\nYou are terse.<|eot_id|>' +
        '<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>' +
        '<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>' +
        '<|start_header_id|>user<|end_header_id|>\n\nName a prime.<|eot_id|>' +
        '<|start_header_id|>assistant<|end_header_id|>\n\n',
    );
    expect(tokenizer.encode(prompt).slice(0, 2)).toEqual([300, 301]);
  });

  it('gives the template every special token the config sets (pad_token, unk_token), as transformers does', () => {
    writeTokenizer(['<|endoftext|>', '<unk>', '<mask>'], {
      eos_token: '<|endoftext|>',
      pad_token: { content: '<|endoftext|>' },
      unk_token: '<unk>',
      mask_token: '<mask>',
      chat_template: '[{{ pad_token }}|{{ unk_token }}|{{ mask_token }}|{{ sep_token is defined }}]',
    });
    expect(loadTokenizer(dir).applyChatTemplate([{ role: 'user', content: 'hi' }])).toBe(
      '[<|endoftext|>|<unk>|<mask>|false]',
    );
  });
});

describe('special tokens in tokenizer_config.json', () => {
  it('refuses one that is not a token string or {content}, as transformers does, instead of ignoring it', () => {
    const { json, config } = smallBpeTokenizer();
    expect(() => new HfTokenizer(json, { ...config, eos_token: 2 })).toThrow(CheckpointError);
    expect(() => new HfTokenizer(json, { ...config, eos_token: 2 })).toThrow(
      /tokenizer_config.json: "eos_token" must be a token string or \{"content": …\}, got 2/,
    );
    expect(() => new HfTokenizer(json, { ...config, pad_token: ['<|end|>'] })).toThrow(/"pad_token" must be/);
    expect(new HfTokenizer(json, { ...config, pad_token: null }).padTokenId).toBe(
      new HfTokenizer(json, config).eosTokenIds[0],
    );
  });
});
