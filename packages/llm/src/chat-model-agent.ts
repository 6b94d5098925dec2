import { defineOptions, mixSeed, type JSONSchemaType } from '@turngym/core';
import type {
  Action,
  Agent,
  AgentEpisodeStart,
  AgentUsage,
  ChatMessage,
  EnvSpec,
  Info,
  ToolCall,
  ToolSpec,
} from '@turngym/spec';
import type { ChatModel, ChatModelMessage, ChatResponse } from './chat-model';
import { LLMCallError } from './llm-call-error';
import { stripReasoning } from './strip-reasoning';

export interface ChatModelAgentOptions {
  /** The agent's name in records (default `chat:<model id>`). */
  name?: string;
  /** Default 0: greedy, so a seed replays and the response cache applies. */
  temperature: number;
  topP?: number;
  maxTokens?: number;
  /** Mixed with each episode's seed into the request seed (default: the episode seed as is). */
  seed?: number;
  /** Added after the env's instructions in the system prompt. */
  systemPrompt?: string;
  /**
   * Default true: the env's `info.instructions` open the system prompt. False leaves them out, as TurnGym's
   * trainers do by default (`instructions: false`): a policy trained without them is evaluated as it was trained,
   * and a small model's context is not spent on them.
   */
  instructions: boolean;
  /**
   * `auto`: in a tools space, offer the env's tools as function-calling schemas and return the call the
   * model makes. `text`: never send schemas; the model writes the env's text syntax (for models or servers
   * without function calling).
   */
  toolMode: 'auto' | 'text';
  /** The role name sent with each request (it keys the response cache). */
  role: string;
}

export const chatModelAgentOptionsSchema: JSONSchemaType<ChatModelAgentOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    name: { type: 'string', minLength: 1, nullable: true },
    temperature: { type: 'number', minimum: 0, maximum: 2, default: 0 },
    topP: { type: 'number', minimum: 0, maximum: 1, nullable: true },
    maxTokens: { type: 'integer', minimum: 1, nullable: true },
    seed: { type: 'integer', nullable: true },
    systemPrompt: { type: 'string', nullable: true },
    instructions: { type: 'boolean', default: true },
    toolMode: { type: 'string', enum: ['auto', 'text'], default: 'auto' },
    role: { type: 'string', minLength: 1, default: 'agent' },
  },
};

const validate = defineOptions<ChatModelAgentOptions>('ChatModelAgent', chatModelAgentOptionsSchema);

/** What a tool result says to the other calls of a turn that made several: only the first one ran. */
const NOT_EXECUTED = 'Not executed: this environment runs one tool call per turn. Call it again if you still need it.';

/**
 * Reads a reply in a discrete space as an option: the exact label, a leading number (`2`, `#2`,
 * `option 2`), the longest label mentioned, or a number in range anywhere. Otherwise the text itself goes
 * to the env, whose feedback tells the model what was wrong.
 */
/**
 * The reply without leading quotes, backticks, asterisks and blanks, nor trailing ones (and trailing `.`/`!`). Two
 * loops, not `/^[…]+|[…]+$/g`: that regex retried its unanchored second branch from every position of a run of
 * such characters inside the reply, quadratic in its length (100,000 dots: 16 s blocking the event loop).
 */
function stripQuotes(text: string): string {
  const leading = (char: string): boolean => `"'\`*`.includes(char) || /\s/.test(char);
  const trailing = (char: string): boolean => leading(char) || char === '.' || char === '!';
  let start = 0;
  let end = text.length;
  while (start < end && leading(text[start] as string)) start += 1;
  while (end > start && trailing(text[end - 1] as string)) end -= 1;
  return text.slice(start, end);
}

export function parseDiscreteReply(text: string, labels: readonly string[]): number | string {
  const reply = stripQuotes(text);
  const lower = reply.toLowerCase();
  const exact = labels.findIndex((label) => label.toLowerCase() === lower);
  if (exact >= 0) return exact;
  const leading = /^(?:option\s*)?#?(\d+)\b/i.exec(reply);
  if (leading && Number(leading[1]) < labels.length) return Number(leading[1]);
  let best = -1;
  labels.forEach((label, index) => {
    const escaped = label.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (label !== '' && new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}($|[^\\p{L}\\p{N}_])`, 'u').test(lower)) {
      if (best < 0 || label.length > (labels[best] as string).length) best = index;
    }
  });
  if (best >= 0) return best;
  for (const match of reply.matchAll(/\b\d+\b/g)) if (Number(match[0]) < labels.length) return Number(match[0]);
  return text.trim();
}

function describeOptions(labels: readonly string[], mask?: readonly boolean[]): string {
  return labels
    .map((label, index) => ({ label, index }))
    .filter(({ index }) => mask?.[index] !== false)
    .map(({ label, index }) => `${index}: ${label}`)
    .join('\n');
}

/**
 * An Agent backed by any ChatModel: the env's `info.instructions` is the system prompt, each observation a
 * user message (or, after a function call, the tool result). In a tools space the env's tools are offered
 * as function-calling schemas and the model's call is the action (its text, if it wrote text instead); in
 * a discrete space the options are listed and the reply is read as an index; in a text space the reply is
 * the action. The whole conversation is kept for the episode. The agent does not own the model: `close()`
 * leaves it open for other agents and roles.
 */
export class ChatModelAgent implements Agent<unknown, Action> {
  readonly name: string;
  readonly options: ChatModelAgentOptions;
  private history: ChatMessage[] = [];
  private spec: EnvSpec | undefined;
  private tools: readonly ToolSpec[] | undefined;
  private requestSeed: number | undefined;
  private pendingCallIds: string[] = [];
  private turn = 0;
  private usage = { promptTokens: 0, completionTokens: 0 };
  /** Cancels the episode's request in flight when the episode is given up (`close`, or the next `start`). */
  private episode = new AbortController();

  constructor(
    readonly model: ChatModel,
    options: Partial<ChatModelAgentOptions> = {},
  ) {
    this.options = validate(options);
    this.name = this.options.name ?? `chat:${model.id}`;
  }

  /** The conversation so far (system, user, assistant and tool messages). */
  get messages(): readonly ChatMessage[] {
    return this.history;
  }

  async start(episode: AgentEpisodeStart<unknown>): Promise<void> {
    this.episode.abort(new Error('ChatModelAgent: a new episode started'));
    this.episode = new AbortController();
    this.spec = episode.spec;
    const space = episode.spec.actionSpace;
    this.tools =
      space.type === 'tools' && this.options.toolMode === 'auto' ? (episode.spec.tools ?? space.tools) : undefined;
    const parts = [this.options.instructions ? episode.info.instructions : undefined, this.options.systemPrompt];
    if (space.type === 'discrete') {
      parts.push(`Options:\n${describeOptions(space.labels)}\nAnswer with the number of one option.`);
    }
    const system = parts.filter((part): part is string => typeof part === 'string' && part.trim() !== '').join('\n\n');
    this.history = system === '' ? [] : [{ role: 'system', content: system }];
    this.requestSeed = this.options.seed === undefined ? episode.seed : mixSeed(this.options.seed, episode.seed);
    this.pendingCallIds = [];
    this.turn = 0;
  }

  async act(observation: unknown, info: Info): Promise<Action> {
    const spec = this.spec;
    if (!spec) throw new Error('ChatModelAgent.act() before start()');
    this.appendObservation(typeof observation === 'string' ? observation : JSON.stringify(observation), info, spec);
    const response = await this.model.complete({
      messages: this.history,
      ...(this.tools && this.tools.length > 0 ? { tools: this.tools } : {}),
      temperature: this.options.temperature,
      ...(this.options.topP !== undefined ? { topP: this.options.topP } : {}),
      ...(this.options.maxTokens !== undefined ? { maxTokens: this.options.maxTokens } : {}),
      ...(this.requestSeed !== undefined ? { seed: this.requestSeed } : {}),
      role: this.options.role,
      signal: this.episode.signal,
    });
    this.usage.promptTokens += response.usage.promptTokens;
    this.usage.completionTokens += response.usage.completionTokens;
    this.checkAnswered(response);
    const message = this.withCallIds(response.message);
    this.history.push(message);
    this.turn += 1;
    return this.actionFrom(message, spec);
  }

  takeUsage(): AgentUsage {
    const usage = this.usage;
    this.usage = { promptTokens: 0, completionTokens: 0 };
    return usage;
  }

  /**
   * Cancels a model call still in flight (with its retries): an episode given up mid-turn (a runner's deadline, a
   * stop) no longer holds a connection and keeps retrying for minutes after. The model itself stays open.
   */
  async close(): Promise<void> {
    this.episode.abort(new Error('ChatModelAgent closed'));
  }

  private appendObservation(text: string, info: Info, spec: EnvSpec): void {
    if (this.pendingCallIds.length > 0) {
      // Every call of the last assistant turn needs an answer, or OpenAI-compatible servers reject the history.
      const [first, ...rest] = this.pendingCallIds;
      this.history.push({ role: 'tool', toolCallId: first as string, content: text });
      for (const id of rest) this.history.push({ role: 'tool', toolCallId: id, content: NOT_EXECUTED });
      this.pendingCallIds = [];
      return;
    }
    const space = spec.actionSpace;
    const allowed =
      space.type === 'discrete' && info.actionMask
        ? `\n\nAllowed options now:\n${describeOptions(space.labels, info.actionMask)}`
        : '';
    this.history.push({ role: 'user', content: `${text}${allowed}` });
  }

  /**
   * An empty reply that ran out of tokens, was filtered, or held only reasoning is no move the model chose: sent to
   * the env as the action `''`, it was scored as an ordinary (losing) move, and a run with `maxTokens` too small for
   * a reasoning model lost every episode with nothing to show why. It fails the episode with the reason instead.
   * An empty reply that simply stopped stays the model's move, and so does text that is only blanks (an untrained
   * model's 256 newlines are what it wrote), except after reasoning, where servers leave the blank line that
   * followed the end of thinking.
   */
  private checkAnswered(response: ChatResponse): void {
    const { message, finishReason } = response;
    // Reasoning written into the content (`<think>…</think>`: a server with no reasoning parser) is reasoning too.
    const inline = stripReasoning(message.content);
    const reasoningChars =
      (response.reasoning?.trim().length ?? 0) +
      (inline.hadReasoning ? message.content.length - inline.text.length : 0);
    const thought = reasoningChars > 0;
    const text = thought ? inline.text.trim() : message.content;
    if (text !== '' || (message.toolCalls ?? []).length > 0) return;
    const thinking = thought ? ` (${reasoningChars} characters of reasoning, no answer after it)` : '';
    let why: string;
    if (finishReason === 'length') {
      const limit = this.options.maxTokens !== undefined ? ` (maxTokens ${this.options.maxTokens})` : '';
      why = `the reply was cut at the token limit${limit} before any answer${thinking}: raise maxTokens`;
    } else if (finishReason === 'content_filter') {
      why = 'the content filter stopped the reply before any answer';
    } else if (thought) {
      why = `the reply held only reasoning (${reasoningChars} characters), no answer after it: the server's reasoning parser may have found no end of thinking`;
    } else {
      return;
    }
    throw new LLMCallError(`${this.model.id}: no answer to act on at turn ${this.turn + 1}: ${why}`, {
      failure: 'no-answer',
      modelId: this.model.id,
    });
  }

  /** Calls without an id get one, so the tool results can refer to them. */
  private withCallIds(message: ChatModelMessage): ChatModelMessage {
    if (!message.toolCalls || message.toolCalls.length === 0) return { role: 'assistant', content: message.content };
    return {
      role: 'assistant',
      content: message.content,
      toolCalls: message.toolCalls.map((call, position) => ({
        ...call,
        id: call.id ?? `call_${this.turn}_${position}`,
      })),
    };
  }

  private actionFrom(message: ChatModelMessage, spec: EnvSpec): Action {
    const space = spec.actionSpace;
    const calls = message.toolCalls ?? [];
    // Whatever the space, calls in the history need answers: the next observation becomes their result.
    this.pendingCallIds = calls.map((call) => call.id as string);
    if (space.type === 'tools' && calls.length > 0) {
      const call = calls[0] as NonNullable<ChatModelMessage['toolCalls']>[number];
      // Arguments that were not JSON go to the env as text, so its parser explains the mistake.
      if (call.rawArguments !== undefined) return `${call.name}(${call.rawArguments})`;
      const action: ToolCall = {
        ...(call.id !== undefined ? { id: call.id } : {}),
        name: call.name,
        arguments: call.arguments,
      };
      return action;
    }
    // The move is the answer after any reasoning: "<think>5 would threaten them, no</think> 2" is option 2, not 5.
    const answer = stripReasoning(message.content).text;
    if (space.type === 'discrete') return parseDiscreteReply(answer, space.labels);
    return answer;
  }
}
