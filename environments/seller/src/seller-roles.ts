import { EnvFaultError, InvalidOptionsError, TurnGymError } from '@turngym/core';
import { CachedChatModel, createChatModel, stripReasoning, type ChatModel, type FinishReason } from '@turngym/llm';
import type { ChatMessage } from '@turngym/spec';
import type { LlmSettings, RoleEndpoint, RoleName, SellerOptions } from './seller-options';

/** The spec of the embedded simulator, every role's default. */
export const SIMULATED = 'simulated';

/** What one role call produced. */
export interface RoleOutput {
  /** The reply's text, trimmed, without the reasoning some models write into it (`<think>…</think>`). */
  readonly text: string;
  /** Prompt + completion tokens (a cached answer reports its original usage, so replays cost the same). */
  readonly tokens: number;
  /** Why the model stopped: `length` means the reply was cut at `maxTokens`. */
  readonly finishReason: FinishReason;
  /** Names of the tools the model called instead of (or besides) writing text; roles are offered none. */
  readonly toolCalls: readonly string[];
  /** The reply held reasoning, now removed from `text`. */
  readonly hadReasoning: boolean;
}

/**
 * One env-side role played by a ChatModel. A failed call (after the model's own retries) becomes core's
 * `EnvFaultError` with the `LLMCallError` as its cause: the step throws, and the runner records the episode
 * as errored — never as a lost sale.
 */
export class LlmRole {
  constructor(
    readonly name: RoleName,
    readonly model: ChatModel,
    readonly temperature: number,
    readonly maxTokens: number,
  ) {}

  async say(messages: readonly ChatMessage[], seed: number): Promise<RoleOutput> {
    try {
      const response = await this.model.complete({
        messages,
        role: this.name,
        temperature: this.temperature,
        maxTokens: this.maxTokens,
        seed,
      });
      const answer = stripReasoning(response.message.content);
      return {
        text: answer.text.trim(),
        tokens: response.usage.promptTokens + response.usage.completionTokens,
        finishReason: response.finishReason,
        toolCalls: (response.message.toolCalls ?? []).map((call) => call.name),
        hadReasoning: answer.hadReasoning,
      };
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).replace(/[.\s]+$/, '');
      const advice = overflowsContext(error)
        ? ` The ${this.name}'s prompt (its instructions and the dialogue so far) does not fit the model's context: it grows each round, so use a model with a longer context, or lower options.rounds or options.maxUtteranceChars.`
        : '';
      throw new EnvFaultError(
        `turngym/seller: the ${this.name} role (${this.model.id}) failed: ${reason}.${advice} The episode is void: record it as errored, not as a lost sale.`,
        { cause: error, isRetryable: TurnGymError.isInstance(error) ? error.isRetryable : true },
      );
    }
  }
}

const CONTEXT_OVERFLOW = /context_length_exceeded|maximum context length|context (length|limit|window)/i;

/**
 * Whether a call failed because the prompt is longer than the model's context (a local checkpoint's
 * CONTEXT_LENGTH_EXCEEDED, an OpenAI-compatible server's 400 `context_length_exceeded` or its message), anywhere
 * in the chain of causes.
 */
function overflowsContext(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    if ((cause as { code?: unknown }).code === 'CONTEXT_LENGTH_EXCEEDED' || CONTEXT_OVERFLOW.test(cause.message))
      return true;
  }
  return false;
}

/** True for anything that can serve as a role: an object with an `id` and a `complete()` method. */
function isChatModel(value: unknown): value is ChatModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ChatModel).complete === 'function' &&
    typeof (value as ChatModel).id === 'string'
  );
}

function endpointFor(llm: LlmSettings, override: RoleEndpoint | undefined): RoleEndpoint {
  return { ...llm, ...Object.fromEntries(Object.entries(override ?? {}).filter(([, value]) => value !== undefined)) };
}

/**
 * The LLM roles of an env and of all its forks: built once, shared (a fork's calls hit the same response
 * cache), and closed when the last env holding them closes.
 */
export class SellerRoles {
  private references = 1;

  private constructor(
    readonly buyer: LlmRole | undefined,
    readonly judge: LlmRole | undefined,
    readonly executor: LlmRole | undefined,
    /** Models this object created (from spec strings) and so closes; given ones are only flushed. */
    private readonly owned: readonly ChatModel[],
    private readonly flushed: readonly CachedChatModel[],
  ) {}

  /** True when every LLM role answers at temperature 0 (with the cache: the same episode, the same answers). */
  get deterministic(): boolean {
    return [this.buyer, this.judge, this.executor].every((role) => role === undefined || role.temperature === 0);
  }

  /** A ChatModel spec per role from options, or a ChatModel (or spec) per role from `dependencies`, which wins. */
  static resolve(envId: string, options: SellerOptions, dependencies: Readonly<Record<string, unknown>>): SellerRoles {
    const owned: ChatModel[] = [];
    const flushed: CachedChatModel[] = [];
    const build = (name: RoleName): LlmRole | undefined => {
      const given = dependencies[name];
      if (given !== undefined && typeof given !== 'string' && !isChatModel(given)) {
        throw new InvalidOptionsError(`${envId} dependencies`, [
          `dependencies.${name} must be a ChatModel (an object with id and complete()) or a model spec string`,
        ]);
      }
      const endpoint = endpointFor(options.llm, options.roleEndpoints[name]);
      const temperature = endpoint.temperature ?? 0;
      const maxTokens = endpoint.maxTokens ?? 256;
      const spec = typeof given === 'string' ? given : options[name];
      if ((given === undefined || typeof given === 'string') && spec.trim() === SIMULATED) return undefined;
      let model: ChatModel;
      if (isChatModel(given)) {
        model = given;
      } else {
        const apiKey = endpoint.apiKeyVariable ? process.env[endpoint.apiKeyVariable] : undefined;
        if (endpoint.apiKeyVariable && !apiKey) {
          throw new InvalidOptionsError(envId, [
            `options.llm.apiKeyVariable: the environment variable ${endpoint.apiKeyVariable} (the ${name}'s API key) is not set`,
          ]);
        }
        try {
          model = createChatModel(spec, {
            openai: {
              ...(endpoint.baseURL !== undefined ? { baseURL: endpoint.baseURL } : {}),
              ...(apiKey !== undefined ? { apiKey } : {}),
              ...(endpoint.timeoutMs !== undefined ? { timeoutMs: endpoint.timeoutMs } : {}),
              ...(endpoint.maxRetries !== undefined ? { maxRetries: endpoint.maxRetries } : {}),
              ...(endpoint.retryBaseDelayMs !== undefined ? { retryBaseDelayMs: endpoint.retryBaseDelayMs } : {}),
              ...(endpoint.retryMaxDelayMs !== undefined ? { retryMaxDelayMs: endpoint.retryMaxDelayMs } : {}),
            },
          });
        } catch (error) {
          if (error instanceof InvalidOptionsError) throw error;
          throw new InvalidOptionsError(envId, [`options.${name}: ${(error as Error).message}`]);
        }
        owned.push(model);
      }
      // Temperature 0 + a cache keyed by (role, messages, seed): the same episode gets the same answers, so
      // seeds, replays and forks are exact even against a remote model.
      if (options.llm.cache && temperature === 0 && !(model instanceof CachedChatModel)) {
        const cached = new CachedChatModel(
          model,
          options.llm.cachePath !== undefined ? { path: options.llm.cachePath } : {},
        );
        if (owned.includes(model)) owned[owned.indexOf(model)] = cached;
        else flushed.push(cached);
        model = cached;
      }
      return new LlmRole(name, model, temperature, maxTokens);
    };
    if (options.mode === 'seller' && (options.executor.trim() !== SIMULATED || dependencies.executor !== undefined)) {
      throw new InvalidOptionsError(envId, [
        `options.executor has no effect in seller mode: the agent writes the seller's words (got "${options.executor}")`,
      ]);
    }
    const buyer = build('buyer');
    const judge = build('judge');
    const executor = options.mode === 'commander' ? build('executor') : undefined;
    return new SellerRoles(buyer, judge, executor, owned, flushed);
  }

  /** Another env (a fork) shares these roles. */
  retain(): this {
    this.references += 1;
    return this;
  }

  /** One holder is done; the last one closes the models it created and flushes caches around given ones. */
  async release(): Promise<void> {
    this.references -= 1;
    if (this.references > 0) return;
    await Promise.all([...this.owned.map((model) => model.close?.()), ...this.flushed.map((model) => model.flush())]);
  }
}
