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
const { Environment, Interpreter, Template } = require('@huggingface/jinja') as JinjaModule;

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

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Python's `date.strftime` in the C locale, the one transformers' `strftime_now` formats with (Python never sets
 * LC_TIME by itself). @huggingface/jinja's own took month names from the process locale ("27 nov. 2026" under
 * fr_FR where transformers writes "27 Nov 2026") and left `%A`, `%a`, `%y`, `%S`… unreplaced in the prompt.
 */
function strftime(date: Date, format: string): string {
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  const hour12 = date.getHours() % 12 === 0 ? 12 : date.getHours() % 12;
  const dayOfYear =
    Math.round(
      (Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) - Date.UTC(date.getFullYear(), 0, 1)) / 86_400_000,
    ) + 1;
  const fields: Record<string, () => string> = {
    a: () => (WEEKDAYS[date.getDay()] as string).slice(0, 3),
    A: () => WEEKDAYS[date.getDay()] as string,
    w: () => String(date.getDay()),
    d: () => pad(date.getDate()),
    e: () => String(date.getDate()).padStart(2, ' '),
    b: () => (MONTHS[date.getMonth()] as string).slice(0, 3),
    h: () => (MONTHS[date.getMonth()] as string).slice(0, 3),
    B: () => MONTHS[date.getMonth()] as string,
    m: () => pad(date.getMonth() + 1),
    y: () => pad(date.getFullYear() % 100),
    Y: () => String(date.getFullYear()),
    H: () => pad(date.getHours()),
    I: () => pad(hour12),
    p: () => (date.getHours() < 12 ? 'AM' : 'PM'),
    M: () => pad(date.getMinutes()),
    S: () => pad(date.getSeconds()),
    f: () => pad(date.getMilliseconds() * 1000, 6),
    j: () => pad(dayOfYear, 3),
    // A naive datetime, as transformers' datetime.now(), has no zone: Python writes nothing for these.
    z: () => '',
    Z: () => '',
    '%': () => '%',
  };
  // The C locale's composite formats, glibc's spellings.
  const composite: Record<string, string> = {
    c: '%a %b %e %H:%M:%S %Y',
    x: '%m/%d/%y',
    X: '%H:%M:%S',
    D: '%m/%d/%y',
    F: '%Y-%m-%d',
    T: '%H:%M:%S',
    R: '%H:%M',
  };
  for (const [field, expansion] of Object.entries(composite)) fields[field] = () => strftime(date, expansion);
  return format.replace(/%(.)/gs, (directive, field: string) => fields[field]?.() ?? directive);
}

/** Python's `range(stop)` / `range(start, stop[, step])`, as @huggingface/jinja defines it. */
function range(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (step === 0) throw new Error('range() step must not be zero');
  const out: number[] = [];
  for (let i = from; step > 0 ? i < to : i > to; i += step) out.push(i);
  return out;
}

/**
 * Renders a parsed template with `variables` over the globals @huggingface/jinja's `Template.render` declares, but
 * with transformers' `strftime_now`: that method refuses any variable named like one of its globals.
 */
function renderWith(parsed: JinjaTemplate, variables: Record<string, unknown>, now: () => Date): string {
  const globals: Record<string, unknown> = {
    false: false,
    true: true,
    none: null,
    False: false,
    True: true,
    None: null,
    raise_exception: (message: unknown) => {
      throw new Error(String(message));
    },
    range,
    strftime_now: (format: unknown) => strftime(now(), String(format)),
  };
  const environment = new Environment();
  for (const [name, value] of Object.entries({ ...globals, ...variables })) environment.set(name, value);
  return String(new Interpreter(environment).run(parsed.parsed).value);
}

/**
 * Renders an HF chat template (Jinja, through @huggingface/jinja, the renderer transformers.js uses) with
 * the variables HF's `apply_chat_template` passes: messages, add_generation_prompt, tools, every special token the
 * tokenizer has (`specialTokens`: pad_token, unk_token…; bos/eos render as '' when unset), and `strftime_now`.
 */
export function renderChatTemplate(
  template: string,
  messages: readonly ChatMessage[],
  options: ChatTemplateOptions & {
    bosToken?: string;
    eosToken?: string;
    specialTokens?: Readonly<Record<string, string | readonly string[]>>;
  } = {},
): string {
  const parsed = compileChatTemplate(template);
  const tools = options.tools?.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  return renderWith(
    parsed,
    {
      ...options.specialTokens,
      messages: messages.map(templateMessage),
      add_generation_prompt: options.addGenerationPrompt ?? true,
      ...(tools && tools.length > 0 ? { tools } : {}),
      bos_token: options.bosToken ?? '',
      eos_token: options.eosToken ?? '',
    },
    // Read when called, as transformers does: a long-lived server's prompts carry today's date, not its start's.
    () => options.now ?? new Date(),
  );
}
