import { defineOptions, mixSeed, type JSONSchemaType } from '@turngym/core';
import { LLMCallError, stripReasoning, type ChatModel, type ChatResponse } from '@turngym/llm';
import type { Action, Agent, AgentEpisodeStart, AgentUsage, ChatMessage, Info } from '@turngym/spec';
import {
  ACTOR,
  DEFAULT_PROTOCOL,
  PLANNER,
  readActorTurn,
  readPlannerTurn,
  reportSchedule,
  type PlanActCaps,
  type PlanActRoleName,
} from './plan-act-protocol';

export interface PlanActChatAgentOptions extends PlanActCaps {
  /** The agent's name in records (default `plan-act:planner=<id>,actor=<id>`). */
  name?: string;
  /** Default 0: greedy, so a seed replays and a response cache applies. */
  temperature: number;
  /** Most tokens per reply. */
  maxTokens?: number;
  /** Mixed with each episode's seed into the request seed (default: the episode seed as is). */
  seed?: number;
  /** Added after the env's instructions and the protocol's explanation in the system prompt. */
  systemPrompt?: string;
  /**
   * Default true: the system prompt opens with the env's `info.instructions` and the protocol's explanation.
   * False leaves both out, as the trainer renders its rollouts (`instructions: false` by default): a model
   * trained on the protocol is evaluated as it was trained (`--no-instructions`).
   */
  instructions?: boolean;
}

export const planActChatAgentOptionsSchema: JSONSchemaType<PlanActChatAgentOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    name: { type: 'string', minLength: 1, nullable: true },
    temperature: { type: 'number', minimum: 0, maximum: 2, default: 0 },
    maxTokens: { type: 'integer', minimum: 1, nullable: true },
    seed: { type: 'integer', nullable: true },
    systemPrompt: { type: 'string', nullable: true },
    instructions: { type: 'boolean', default: true, nullable: true },
    plannerMaxTurns: { type: 'integer', minimum: 1, default: 6 },
    actorMaxTurns: { type: 'integer', minimum: 1, default: 24 },
    actorTurnsPerTask: { type: 'integer', minimum: 1, default: 4 },
  },
};

const validate = defineOptions<PlanActChatAgentOptions>('PlanActChatAgent', planActChatAgentOptionsSchema);

/** What a chat model is told the protocol is (the trained model learns it from the warm start instead). */
const PROTOCOL_PROMPT = [
  'Two roles share this conversation. The planner (asked with "Plan:") writes the next sub-task for the actor,',
  'or, when the task is solved, "FINAL " followed by the action that answers it in the environment\'s syntax.',
  'The actor (asked with "Act:") writes one environment action per turn to carry out the sub-task, and when',
  'it is done writes "REPORT " followed by what it found. Write only your own turn.',
].join('\n');

/** One role turn as the agent took it (the env sees only the turns with `envAction`). */
export interface PlanActTurn {
  readonly role: PlanActRoleName;
  readonly text: string;
  /** The action sent to the env, when the turn stepped it. */
  readonly envAction?: string;
}

/**
 * Plan/Act over any two chat models (`openai:<model>`, `local:<ckpt>`, …): the planner writes sub-tasks and
 * the final answer, the actor acts until it reports back, each through its own model, both reading the one
 * conversation (the same system prompt and history, so an OpenAI-compatible server with prefix caching
 * reuses it across the two roles, as ALGORITHMS.md §4 asks). One `act()` runs role turns until one of them
 * is an env action (an actor's action, or the planner's FINAL). Text actions only (the env's own syntax):
 * the protocol is text. A role past its turn cap hands its last text to the env as the action, so the env's
 * own turn limit ends the episode. A reply is read as the leaderboard's `ChatModelAgent` reads one: reasoning
 * (`<think>…</think>`) is dropped before the protocol reads it, and a reply with no answer (cut at `maxTokens`,
 * filtered, reasoning only) fails the episode with `LLMCallError` (`no-answer`) instead of becoming a turn.
 */
export class PlanActChatAgent implements Agent<unknown, Action> {
  readonly name: string;
  readonly options: PlanActChatAgentOptions;
  private history: ChatMessage[] = [];
  private steps: { role: PlanActRoleName; envStep: boolean }[] = [];
  private log: PlanActTurn[] = [];
  private requestSeed: number | undefined;
  private usage = { promptTokens: 0, completionTokens: 0 };
  private readonly schedule: ReturnType<typeof reportSchedule>;

  constructor(
    readonly models: { readonly planner: ChatModel; readonly actor: ChatModel },
    options: Partial<PlanActChatAgentOptions> = {},
  ) {
    this.options = validate(options);
    this.name = this.options.name ?? `plan-act:planner=${models.planner.id},actor=${models.actor.id}`;
    this.schedule = reportSchedule(this.options.actorTurnsPerTask);
  }

  /** Every role turn of the episode so far, with its role. */
  get turns(): readonly PlanActTurn[] {
    return this.log;
  }

  /** The shared conversation (system, then user and assistant messages of both roles). */
  get messages(): readonly ChatMessage[] {
    return this.history;
  }

  async start(episode: AgentEpisodeStart<unknown>): Promise<void> {
    const told = this.options.instructions !== false;
    const parts = [
      told ? episode.info.instructions : undefined,
      told ? PROTOCOL_PROMPT : undefined,
      this.options.systemPrompt,
    ];
    const system = parts.filter((part): part is string => typeof part === 'string' && part.trim() !== '').join('\n\n');
    // With nothing to say there is no system message, as the trainer's rollouts have none.
    this.history = system === '' ? [] : [{ role: 'system', content: system }];
    this.steps = [];
    this.log = [];
    this.requestSeed = this.options.seed === undefined ? episode.seed : mixSeed(this.options.seed, episode.seed);
  }

  async act(observation: unknown, _info: Info): Promise<Action> {
    let pending = typeof observation === 'string' ? observation : JSON.stringify(observation);
    for (;;) {
      const role = this.schedule(this.steps);
      const cue = role === PLANNER ? DEFAULT_PROTOCOL.plannerCue : DEFAULT_PROTOCOL.actorCue;
      this.history.push({ role: 'user', content: pending === '' ? cue : `${pending}\n\n${cue}` });
      pending = '';
      const { content, text } = await this.complete(role);
      this.history.push({ role: 'assistant', content });
      const overCap =
        this.turnsOf(role) >= (role === PLANNER ? this.options.plannerMaxTurns : this.options.actorMaxTurns);
      const envAction = this.envActionOf(role, text) ?? (overCap ? text : undefined);
      this.steps.push({ role, envStep: envAction !== undefined });
      this.log.push({ role, text, ...(envAction !== undefined ? { envAction } : {}) });
      if (envAction !== undefined) return envAction;
    }
  }

  takeUsage(): AgentUsage {
    const usage = this.usage;
    this.usage = { promptTokens: 0, completionTokens: 0 };
    return usage;
  }

  /** The models are the caller's (one may serve several agents): closing the agent leaves them open. */
  async close(): Promise<void> {}

  private turnsOf(role: PlanActRoleName): number {
    return this.steps.filter((step) => step.role === role).length + 1;
  }

  private envActionOf(role: PlanActRoleName, text: string): string | undefined {
    if (role === PLANNER) {
      const turn = readPlannerTurn(text);
      return turn.kind === 'finish' ? turn.envAction : undefined;
    }
    const turn = readActorTurn(text);
    return turn.kind === 'act' ? turn.envAction : undefined;
  }

  /**
   * One role's reply: `content` as the model wrote it (the history keeps it, as `ChatModelAgent`'s does), `text`
   * its answer after any reasoning (`stripReasoning`), which the protocol reads and the env may receive.
   */
  private async complete(role: PlanActRoleName): Promise<{ content: string; text: string }> {
    const model = this.models[role === PLANNER ? 'planner' : 'actor'];
    const response = await model.complete({
      // A copy: the history grows after the call, and a model (or its cache) may keep the request.
      messages: [...this.history],
      temperature: this.options.temperature,
      ...(this.options.maxTokens !== undefined ? { maxTokens: this.options.maxTokens } : {}),
      ...(this.requestSeed !== undefined ? { seed: mixSeed(this.requestSeed, this.steps.length) } : {}),
      // Keys a shared response cache by role: the two roles never read each other's answers.
      role: role === PLANNER ? PLANNER : ACTOR,
    });
    this.usage.promptTokens += response.usage.promptTokens;
    this.usage.completionTokens += response.usage.completionTokens;
    const content = response.message.content ?? '';
    const inline = stripReasoning(content);
    this.checkAnswered(role, model.id, response, inline);
    return { content, text: inline.hadReasoning ? inline.text.trim() : content };
  }

  /**
   * A reply with nothing to act on is no turn the model chose, exactly as the leaderboard's single chat agent
   * (`ChatModelAgent`) reads it: one cut at `maxTokens` before any answer, stopped by the content filter, or holding
   * only reasoning. Taken as a turn, its empty text (or its reasoning) became a sub-task, a report, or the action
   * sent to the env, and the episode was scored as an ordinary losing one; it fails the episode with the reason
   * instead (`LLMCallError`, failure `no-answer`). An empty reply that simply stopped stays the role's turn.
   */
  private checkAnswered(
    role: PlanActRoleName,
    modelId: string,
    response: ChatResponse,
    inline: { text: string; hadReasoning: boolean },
  ): void {
    const content = response.message.content ?? '';
    const reasoningChars =
      (response.reasoning?.trim().length ?? 0) + (inline.hadReasoning ? content.length - inline.text.length : 0);
    const thought = reasoningChars > 0;
    if ((thought ? inline.text.trim() : content) !== '') return;
    const thinking = thought ? ` (${reasoningChars} characters of reasoning, no answer after it)` : '';
    let why: string;
    if (response.finishReason === 'length') {
      const limit = this.options.maxTokens !== undefined ? ` (maxTokens ${this.options.maxTokens})` : '';
      why = `the reply was cut at the token limit${limit} before any answer${thinking}: raise maxTokens`;
    } else if (response.finishReason === 'content_filter') {
      why = 'the content filter stopped the reply before any answer';
    } else if (thought) {
      why = `the reply held only reasoning (${reasoningChars} characters), no answer after it`;
    } else {
      return;
    }
    throw new LLMCallError(`${modelId}: no answer to act on at the ${role}'s turn ${this.turnsOf(role)}: ${why}`, {
      failure: 'no-answer',
      modelId,
    });
  }
}
