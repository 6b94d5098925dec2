import type { Template as JinjaTemplate } from '@huggingface/jinja' with { 'resolution-mode': 'import' };
import type { ChatMessage } from '@turngym/spec';
import type { ChatTemplateOptions } from './tokenizer';

/** ChatML, as Qwen2 writes it; the built-in tiny configs use it. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

type JinjaModule = typeof import('@huggingface/jinja', { with: { 'resolution-mode': 'import' } });
// The package ships CommonJS too (its `require` export); its types are declared as ESM only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Template } = require('@huggingface/jinja') as JinjaModule;

const compiled = new Map<string, JinjaTemplate>();

/** Parses a template once (later calls reuse it); throws the parser's error for a template that does not parse. */
export function compileChatTemplate(template: string): JinjaTemplate {
  let parsed = compiled.get(template);
  if (!parsed) {
    parsed = new Template(template);
    compiled.set(template, parsed);
  }
  return parsed;
}

/**
 * Tool calls as HF templates expect them: `{id, type: 'function', function: {name, arguments}}`. The id is what
 * Mistral's template writes after each call (and what a tool message's `tool_call_id` answers); without it that
 * template refused every assistant turn with tool calls.
 */
function templateMessage(message: ChatMessage): Record<string, unknown> {
  return {
    role: message.role,
    content: message.content,
    ...(message.name ? { name: message.name } : {}),
    ...(message.toolCallId ? { tool_call_id: message.toolCallId } : {}),
    ...(message.toolCalls && message.toolCalls.length > 0
      ? {
          tool_calls: message.toolCalls.map((call) => ({
            ...(call.id !== undefined ? { id: call.id } : {}),
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : {}),
  };
}

/**
 * Renders an HF chat template (Jinja, through @huggingface/jinja, the renderer transformers.js uses) with
 * the variables HF's `apply_chat_template` passes: messages, add_generation_prompt, tools, bos/eos tokens.
 */
export function renderChatTemplate(
  template: string,
  messages: readonly ChatMessage[],
  options: ChatTemplateOptions & { bosToken?: string; eosToken?: string } = {},
): string {
  const parsed = compileChatTemplate(template);
  const tools = options.tools?.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  return parsed.render({
    messages: messages.map(templateMessage),
    add_generation_prompt: options.addGenerationPrompt ?? true,
    ...(tools && tools.length > 0 ? { tools } : {}),
    bos_token: options.bosToken ?? '',
    eos_token: options.eosToken ?? '',
  });
}
