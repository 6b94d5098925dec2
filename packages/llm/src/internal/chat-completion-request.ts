/**
 * The request body the model server accepts: OpenAI's chat-completions fields that a ChatModel can honour.
 * Unknown top-level fields (user, metadata, …) are accepted and ignored, as vLLM does,
 * so that real clients keep working; the fields we read are validated. What a client asks for and would
 * silently not get is refused instead: log-probabilities from a model without them (the reply would carry
 * `logprobs: null`), `top_logprobs` without `logprobs: true` (as OpenAI refuses it), `stream_options` without
 * `stream: true` (as OpenAI), `presence_penalty`, `frequency_penalty`, `logit_bias` and vLLM's guided decoding and
 * stop controls set to anything but off (no ChatModel applies them: `UNSUPPORTED_SAMPLING_FIELDS`), the deprecated
 * `functions` / `function_call` (the model would see no tools), content parts other than text (an image the model
 * never sees), more than OpenAI's 4 stop sequences or 128 tools, a `response_format` other than text and a
 * `tool_choice` that forces a call (the reply would be unconstrained text).
 */
import type { WireMessage, WireTool } from './openai-wire';

export interface ChatCompletionRequestBody {
  model: string;
  messages: WireMessage[];
  tools?: WireTool[];
  tool_choice?: 'none' | 'auto' | 'required' | Record<string, unknown>;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  n?: number | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  /** Only `{ type: 'text' }` (or none) is served: constrained decoding is refused. */
  response_format?: unknown;
}

const content = {
  anyOf: [
    { type: 'string' },
    { type: 'null' },
    {
      type: 'array',
      // `refusal` parts come back in assistant messages a client replays; both are text to a ChatModel.
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { enum: ['text', 'refusal'] }, text: { type: 'string' } },
      },
    },
  ],
};

const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string', minLength: 1 }, arguments: { type: 'string' } },
    },
  },
};

const message = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content,
    name: { type: 'string' },
    tool_calls: { type: 'array', items: toolCall },
    tool_call_id: { type: 'string' },
  },
  // ajv's strictRequired wants each `required` name declared beside it, hence the repeated properties.
  allOf: [
    {
      if: { type: 'object', properties: { role: { const: 'tool' } } },
      then: {
        type: 'object',
        required: ['content', 'tool_call_id'],
        properties: { content, tool_call_id: { type: 'string' } },
      },
    },
    {
      if: { type: 'object', properties: { role: { enum: ['system', 'developer', 'user'] } } },
      then: { type: 'object', required: ['content'], properties: { content } },
    },
  ],
};

const tool = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object' },
        strict: { type: ['boolean', 'null'] },
      },
    },
  },
};

/** The most tools one request may offer, as on OpenAI ("a max of 128 functions are supported"). */
export const MAX_TOOLS = 128;

const nullableInteger = (minimum?: number): object => ({
  type: ['integer', 'null'],
  ...(minimum !== undefined ? { minimum } : {}),
});

export const chatCompletionRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1 },
    messages: { type: 'array', minItems: 1, items: message },
    // OpenAI's own limit. Every tool is converted for the chat template and rendered on the event loop: 100,000 of
    // them (13 MB, well under the body limit) held the LM's server, and every other client of it, for 1.4–7.6 s.
    tools: { type: 'array', maxItems: MAX_TOOLS, items: tool },
    tool_choice: { anyOf: [{ enum: ['none', 'auto', 'required'] }, { type: 'object' }] },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    max_tokens: nullableInteger(1),
    max_completion_tokens: nullableInteger(1),
    stop: { anyOf: [{ type: 'string' }, { type: 'array', maxItems: 4, items: { type: 'string' } }, { type: 'null' }] },
    seed: nullableInteger(),
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 1 },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
  },
} as const;
