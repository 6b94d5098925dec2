import { readFileSync } from 'node:fs';
import { defineOptions, type JSONSchemaType } from '@turngym/core';
import type { ChatMessage } from '@turngym/spec';
import { BACKEND_NAMES, currentBackend, type BackendName } from './backend';
import { CheckpointError, ContextLengthError, TokenizerMismatchError } from './lm-errors';
import type { LanguageModel } from './language-model';
import { loadModel } from './load-model';

/**
 * What `turngym lm score | generate` run: plain async functions over a checkpoint that return JSON-ready
 * objects (the CLI prints them).
 */
export interface LmScoreOptions {
  /** A checkpoint directory or a built-in config name. */
  checkpoint: string;
  /**
   * A text file (scored whole), or a `.jsonl` file with one item a line: `{"text"}`, `{"tokens"}`,
   * `{"messages"}` (chat template applied) or `{"prompt", "completion"}` (both scored; `completionStart`
   * says where the completion begins). A bad line is an error naming `file:line`.
   */
  input: string;
  backend: BackendName;
  adapter?: string;
}

export const lmScoreOptionsSchema: JSONSchemaType<LmScoreOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['checkpoint', 'input'],
  properties: {
    checkpoint: { type: 'string', minLength: 1 },
    input: { type: 'string', minLength: 1 },
    backend: { type: 'string', enum: [...BACKEND_NAMES], default: 'auto' },
    adapter: { type: 'string', minLength: 1, nullable: true },
  },
};

export interface ScoredSequence {
  readonly tokens: number[];
  /** Each token's text. */
  readonly pieces: string[];
  /** log p(token | tokens before it); null for the first token. */
  readonly logprobs: (number | null)[];
  /** Sum of the logprobs (of the completion only, when the item had one). */
  readonly total: number;
  readonly completionStart?: number;
}

export interface LmScoreResult {
  readonly checkpoint: string;
  readonly backend: string;
  readonly sequences: ScoredSequence[];
}

const validateScore = defineOptions<LmScoreOptions>('lm score', lmScoreOptionsSchema);

interface InputItem {
  readonly tokens: number[];
  readonly completionStart?: number;
}

const CHAT_ROLES: readonly string[] = ['system', 'user', 'assistant', 'tool'];
const MESSAGE_FIELDS: readonly string[] = ['role', 'content', 'name', 'toolCalls', 'toolCallId'];

/** `{"tokens"}` as given: integers in the vocabulary, never coerced (Number turned "x" into NaN and true into 1). */
function itemTokens(value: unknown[], vocabSize: number, where: string): number[] {
  value.forEach((token, index) => {
    const shown = typeof token === 'number' ? String(token) : JSON.stringify(token);
    if (!Number.isInteger(token) || (token as number) < 0)
      throw new CheckpointError(`${where}: "tokens"[${index}] is ${shown}, not a token id (an integer >= 0).`);
    if ((token as number) >= vocabSize) {
      throw new TokenizerMismatchError(
        `${where}: "tokens"[${index}] is ${shown}, outside the model's vocabulary of ${vocabSize} ids.`,
      );
    }
  });
  return value as number[];
}

/**
 * `{"messages"}` checked before the chat template sees them: a role the package's chat messages have and string
 * content. A template renders whatever it is given (ChatML writes any role), so a misspelt role or an OpenAI
 * content-part list would be scored as some other text without a word.
 */
function itemMessages(value: unknown[], where: string): ChatMessage[] {
  value.forEach((message, index) => {
    const { role, content } = (typeof message === 'object' && message !== null ? message : {}) as Record<
      string,
      unknown
    >;
    if (typeof role !== 'string' || !CHAT_ROLES.includes(role)) {
      throw new CheckpointError(
        `${where}: "messages"[${index}] has role ${JSON.stringify(role)}; expected one of ${CHAT_ROLES.join(', ')}.`,
      );
    }
    if (typeof content !== 'string')
      throw new CheckpointError(`${where}: "messages"[${index}] needs "content" as a string.`);
    // OpenAI's snake_case `tool_calls` / `tool_call_id` are not what the template is given: dropped without a word,
    // the calls would vanish from the scored text.
    const unknown = Object.keys(message as object).find((key) => !MESSAGE_FIELDS.includes(key));
    if (unknown !== undefined) {
      throw new CheckpointError(
        `${where}: "messages"[${index}] has "${unknown}"; a message has ${MESSAGE_FIELDS.map((key) => `"${key}"`).join(', ')} ` +
          '(tool calls as "toolCalls": [{"id", "name", "arguments": {…}}]).',
      );
    }
  });
  return value as ChatMessage[];
}

/** One JSONL line as tokens; `where` is `path:line`, named in every error. */
function readItem(model: LanguageModel, line: string, where: string): InputItem {
  const { tokenizer } = model;
  let item: unknown;
  try {
    item = JSON.parse(line);
  } catch {
    throw new CheckpointError(`${where} is not valid JSON.`);
  }
  const fields = (typeof item === 'object' && item !== null && !Array.isArray(item) ? item : {}) as Record<
    string,
    unknown
  >;
  if (Array.isArray(fields.tokens)) return { tokens: itemTokens(fields.tokens, model.config.vocabSize, where) };
  if (typeof fields.text === 'string') return { tokens: tokenizer.encode(fields.text, { addSpecialTokens: true }) };
  if (Array.isArray(fields.messages)) {
    const messages = itemMessages(fields.messages, where);
    let text: string;
    try {
      text = tokenizer.applyChatTemplate(messages, { addGenerationPrompt: false });
    } catch (error) {
      throw new CheckpointError(`${where}: the chat template refused the messages: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return { tokens: tokenizer.encode(text) };
  }
  if (typeof fields.prompt === 'string' && typeof fields.completion === 'string') {
    const prompt = tokenizer.encode(fields.prompt, { addSpecialTokens: true });
    return { tokens: [...prompt, ...tokenizer.encode(fields.completion)], completionStart: prompt.length };
  }
  throw new CheckpointError(`${where}: expected {"text"}, {"tokens"}, {"messages"} or {"prompt", "completion"}.`);
}

function readItems(model: LanguageModel, path: string): InputItem[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CheckpointError(`Cannot read input file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const items: InputItem[] = [];
  const add = (item: InputItem, where: string): void => {
    // Refused here, where the line is known; the model would only say "row 3" of some batch of 8.
    if (item.tokens.length > model.config.maxPositions)
      throw new ContextLengthError(item.tokens.length, model.config.maxPositions, `item on ${where}`);
    items.push(item);
  };
  if (!path.endsWith('.jsonl')) {
    add({ tokens: model.tokenizer.encode(text, { addSpecialTokens: true }) }, path);
    return items;
  }
  // A byte-order mark (Windows editors write one) is not part of the first line's JSON.
  text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((line, index) => {
      // Numbered before blank lines are skipped, so an error names the line an editor shows.
      if (line.trim() === '') return;
      const where = `${path}:${index + 1}`;
      add(readItem(model, line, where), where);
    });
  return items;
}

/** Per-token logprobs of each input sequence: `turngym lm score --checkpoint DIR --input FILE`. */
export async function lmScore(
  input: Partial<LmScoreOptions> & { checkpoint: string; input: string },
): Promise<LmScoreResult> {
  const options = validateScore(input);
  const model = await loadModel(options.checkpoint, { backend: options.backend });
  try {
    const items = readItems(model, options.input);
    const sequences: ScoredSequence[] = [];
    // A few rows at a time keeps memory flat on long files.
    for (let start = 0; start < items.length; start += 8) {
      const batch = items.slice(start, start + 8);
      const { logprobs } = await model.score(
        batch.map((item) => ({ tokens: item.tokens })),
        options.adapter ? { adapter: options.adapter } : {},
      );
      batch.forEach((item, i) => {
        const values = logprobs[i]!;
        const from = item.completionStart ?? 0;
        sequences.push({
          tokens: item.tokens,
          pieces: item.tokens.map((token) => model.tokenizer.tokenText(token)),
          logprobs: values,
          total: values.slice(from).reduce<number>((sum, value) => sum + (value ?? 0), 0),
          ...(item.completionStart !== undefined ? { completionStart: item.completionStart } : {}),
        });
      });
    }
    return { checkpoint: options.checkpoint, backend: currentBackend(), sequences };
  } finally {
    model.dispose();
  }
}

export interface LmGenerateOptions {
  checkpoint: string;
  /** Plain-text prompt (encoded as is). */
  prompt?: string;
  /** Chat messages (rendered with the chat template and a generation prompt). Give this or `prompt`. */
  messages?: { role: 'system' | 'user' | 'assistant' | 'tool'; content: string }[];
  /** Samples per prompt. */
  n: number;
  maxTokens: number;
  temperature: number;
  topP: number;
  stop?: string[];
  seed: number;
  backend: BackendName;
  adapter?: string;
}

export const lmGenerateOptionsSchema: JSONSchemaType<LmGenerateOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['checkpoint'],
  properties: {
    checkpoint: { type: 'string', minLength: 1 },
    prompt: { type: 'string', nullable: true },
    messages: {
      type: 'array',
      nullable: true,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['role', 'content'],
        properties: {
          role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool'] },
          content: { type: 'string' },
        },
      },
    },
    n: { type: 'integer', minimum: 1, maximum: 256, default: 1 },
    maxTokens: { type: 'integer', minimum: 0, default: 64 },
    temperature: { type: 'number', minimum: 0, default: 1 },
    topP: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 1 },
    stop: { type: 'array', items: { type: 'string', minLength: 1 }, nullable: true },
    seed: { type: 'integer', default: 0 },
    backend: { type: 'string', enum: [...BACKEND_NAMES], default: 'auto' },
    adapter: { type: 'string', minLength: 1, nullable: true },
  },
};

const validateGenerate = defineOptions<LmGenerateOptions>('lm generate', lmGenerateOptionsSchema);

export interface LmGenerateResult {
  readonly checkpoint: string;
  readonly backend: string;
  readonly promptTokens: number;
  readonly samples: { text: string; tokens: number[]; logprobs: number[]; finishReason: 'stop' | 'length' }[];
}

/** Samples `n` completions in one batch: `turngym lm generate --checkpoint DIR --prompt TEXT`. */
export async function lmGenerate(
  input: Partial<LmGenerateOptions> & { checkpoint: string },
): Promise<LmGenerateResult> {
  const options = validateGenerate(input);
  if ((options.prompt === undefined) === (options.messages === undefined)) {
    throw new CheckpointError('lm generate needs exactly one of "prompt" or "messages".');
  }
  const model = await loadModel(options.checkpoint, { backend: options.backend });
  try {
    const text = options.messages ? model.tokenizer.applyChatTemplate(options.messages) : (options.prompt as string);
    const tokens = model.tokenizer.encode(text, { addSpecialTokens: options.messages === undefined });
    const results = model.generate(
      Array.from({ length: options.n }, () => ({ tokens })),
      {
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        topP: options.topP,
        seed: options.seed,
        ...(options.stop ? { stop: options.stop } : {}),
        ...(options.adapter ? { adapter: options.adapter } : {}),
      },
    );
    return {
      checkpoint: options.checkpoint,
      backend: currentBackend(),
      promptTokens: tokens.length,
      samples: results.map((result) => ({
        text: result.text,
        tokens: result.tokens,
        logprobs: result.logprobs,
        finishReason: result.finishReason,
      })),
    };
  } finally {
    model.dispose();
  }
}
