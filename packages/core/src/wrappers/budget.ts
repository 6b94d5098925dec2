import type { Action, Env, ResetArgs, ResetResult, StepResult } from '@turngym/spec';
import { ResetNeededError } from '../errors';
import { Wrapper } from './wrapper';

export interface BudgetLimits {
  /** Most tool calls in an episode (from `info.cost.toolCalls`). */
  maxToolCalls?: number;
  /** Most tokens env-side LLM roles may spend in an episode (from `info.cost.llmTokens`). */
  maxLlmTokens?: number;
}

export interface BudgetUsage {
  toolCalls: number;
  llmTokens: number;
  wallMs: number;
}

/**
 * Per-episode budgets: the step that reaches a limit is returned truncated (`info.truncatedBy`), and
 * `info.budget` reports what is left after every step so agents can plan.
 */
export class Budget<Obs = string, Act = Action> extends Wrapper<Obs, Act> {
  private used: BudgetUsage = { toolCalls: 0, llmTokens: 0, wallMs: 0 };
  /** The limit that truncated this episode: the env inside never saw the end, so later steps are refused here. */
  private truncatedBy: string | undefined;

  constructor(
    env: Env<Obs, Act>,
    readonly limits: BudgetLimits,
  ) {
    super(env);
    for (const [name, value] of Object.entries(limits)) {
      if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
        throw new RangeError(`budget ${name} must be an integer >= 0, got ${String(value)}`);
      }
    }
  }

  /** What the current episode has spent so far. */
  get usage(): Readonly<BudgetUsage> {
    return this.used;
  }

  private remaining(): Record<string, number> {
    const left: Record<string, number> = {};
    if (this.limits.maxToolCalls !== undefined)
      left.toolCalls = Math.max(0, this.limits.maxToolCalls - this.used.toolCalls);
    if (this.limits.maxLlmTokens !== undefined)
      left.llmTokens = Math.max(0, this.limits.maxLlmTokens - this.used.llmTokens);
    return left;
  }

  override async reset(args?: ResetArgs): Promise<ResetResult<Obs>> {
    // Cleared once the env has reset: a reset refused (a step still in flight) leaves the episode going.
    const result = await this.env.reset(args);
    this.truncatedBy = undefined;
    const cost = result.info.cost;
    this.used = { toolCalls: cost?.toolCalls ?? 0, llmTokens: cost?.llmTokens ?? 0, wallMs: cost?.wallMs ?? 0 };
    return { ...result, info: { ...result.info, budget: this.remaining() } };
  }

  override async step(action: Act): Promise<StepResult<Obs>> {
    if (this.truncatedBy !== undefined)
      throw new ResetNeededError(
        `${this.spec.id}: the episode was truncated by its ${this.truncatedBy} budget; call reset() before step().`,
      );
    const result = await this.env.step(action);
    const cost = result.info.cost;
    this.used.toolCalls += cost?.toolCalls ?? 0;
    this.used.llmTokens += cost?.llmTokens ?? 0;
    this.used.wallMs += cost?.wallMs ?? 0;
    const info = { ...result.info, budget: this.remaining() };
    if (result.terminated || result.truncated) return { ...result, info };
    let truncatedBy: string | undefined;
    if (this.limits.maxToolCalls !== undefined && this.used.toolCalls >= this.limits.maxToolCalls)
      truncatedBy = 'tool-calls';
    else if (this.limits.maxLlmTokens !== undefined && this.used.llmTokens >= this.limits.maxLlmTokens)
      truncatedBy = 'llm-tokens';
    if (truncatedBy === undefined) return { ...result, info };
    this.truncatedBy = truncatedBy;
    return { ...result, truncated: true, info: { ...info, truncatedBy, success: info.success ?? false } };
  }

  override async fork(): Promise<Env<Obs, Act>> {
    const twin = new Budget(await this.env.fork(), this.limits);
    twin.used = { ...this.used };
    twin.truncatedBy = this.truncatedBy;
    return twin;
  }
}
