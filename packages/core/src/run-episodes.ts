import type { Agent, Env } from '@turngym/spec';
import { mean, meanInterval95, wilsonInterval95, type Interval } from './statistics';

export interface EpisodeOutcome {
  readonly seed: number;
  readonly totalReward: number;
  readonly turns: number;
  readonly success: boolean;
  readonly truncated: boolean;
  readonly toolCalls: number;
  readonly llmTokens: number;
  readonly wallMs: number;
  /** What the agent itself spent (an LLM agent's `takeUsage()`); 0 for agents that report nothing. */
  readonly agentPromptTokens: number;
  readonly agentCompletionTokens: number;
  /**
   * Set when the agent could not go on (its model's context is full): the episode ended there, truncated and not a
   * success, and is scored as the failure it is. Absent for an episode the env ended.
   */
  readonly agentStop?: AgentStop;
}

/** Why the agent ended an episode: `reason` is the error's `agentStop` (`'context-length'`), `code` and `message` its own. */
export interface AgentStop {
  readonly reason: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Whether an error thrown by `agent.act` means the agent cannot go on, a failure of the agent's own (an LLM agent
 * whose context is full: @turngym/llm's `LLMCallError` with `failure: 'context-length'` sets it), rather than a fault
 * of the infrastructure. The marker is a non-empty string property `agentStop`, so core names no backend.
 */
export function isAgentStop(error: unknown): error is Error & { readonly agentStop: string } {
  const reason = error instanceof Error ? (error as { agentStop?: unknown }).agentStop : undefined;
  return typeof reason === 'string' && reason !== '';
}

/**
 * Plays one episode of `agent` in `env` from `seed` to the end (terminated or truncated). `resetOptions` are
 * the env's per-episode options (e.g. a task id). An error `agent.act` throws that `isAgentStop` recognises (the
 * model's context is full) ends the episode as a scored failure: truncated, not a success, the reward and turns so
 * far, and `agentStop` saying why; the env is left mid-episode (a recorder writes it, incomplete, at the next reset
 * or close). Any other error, the env's or the agent's, is thrown as before.
 */
export async function runEpisode(
  env: Env<any, any>,
  agent: Agent<any, any>,
  seed: number,
  resetOptions?: Record<string, unknown>,
): Promise<EpisodeOutcome> {
  const started = performance.now();
  const reset = await env.reset(resetOptions === undefined ? { seed } : { seed, options: resetOptions });
  await agent.start({ seed, spec: env.spec, observation: reset.observation, info: reset.info });
  let observation = reset.observation;
  let info = reset.info;
  let totalReward = 0;
  let turns = 0;
  let toolCalls = reset.info.cost?.toolCalls ?? 0;
  let llmTokens = reset.info.cost?.llmTokens ?? 0;
  let agentPromptTokens = 0;
  let agentCompletionTokens = 0;
  const takeUsage = (): void => {
    const usage = agent.takeUsage?.();
    agentPromptTokens += usage?.promptTokens ?? 0;
    agentCompletionTokens += usage?.completionTokens ?? 0;
  };
  for (;;) {
    let action: unknown;
    try {
      action = await agent.act(observation, info);
    } catch (error) {
      if (!isAgentStop(error)) throw error;
      takeUsage();
      const { code } = error as { code?: unknown };
      return {
        seed,
        totalReward,
        turns,
        success: false,
        truncated: true,
        toolCalls,
        llmTokens,
        wallMs: performance.now() - started,
        agentPromptTokens,
        agentCompletionTokens,
        agentStop: {
          reason: error.agentStop,
          code: typeof code === 'string' ? code : 'UNKNOWN',
          message: error.message,
        },
      };
    }
    takeUsage();
    const result = await env.step(action);
    turns += 1;
    totalReward += result.reward;
    toolCalls += result.info.cost?.toolCalls ?? 0;
    llmTokens += result.info.cost?.llmTokens ?? 0;
    observation = result.observation;
    info = result.info;
    if (result.terminated || result.truncated) {
      return {
        seed,
        totalReward,
        turns,
        success: result.info.success === true,
        truncated: result.truncated,
        toolCalls,
        llmTokens,
        wallMs: performance.now() - started,
        agentPromptTokens,
        agentCompletionTokens,
      };
    }
  }
}

export interface RunSummary {
  readonly episodes: number;
  readonly successes: number;
  readonly successRate: number;
  readonly successInterval: Interval;
  readonly meanReward: number;
  readonly rewardInterval: Interval;
  readonly meanTurns: number;
  readonly meanToolCalls: number;
  readonly meanLlmTokens: number;
  readonly wallMs: number;
}

/**
 * Success rate with a Wilson 95% interval, mean reward with a normal 95% interval. Over no episodes every
 * mean, the success rate included, is NaN (`null` in JSON): a rate of 0 would read as measured.
 */
export function summarize(outcomes: readonly EpisodeOutcome[], wallMs = 0): RunSummary {
  const successes = outcomes.filter((outcome) => outcome.success).length;
  const rewards = outcomes.map((outcome) => outcome.totalReward);
  return {
    episodes: outcomes.length,
    successes,
    successRate: outcomes.length > 0 ? successes / outcomes.length : Number.NaN,
    successInterval: wilsonInterval95(successes, outcomes.length),
    meanReward: mean(rewards),
    rewardInterval: meanInterval95(rewards),
    meanTurns: mean(outcomes.map((outcome) => outcome.turns)),
    meanToolCalls: mean(outcomes.map((outcome) => outcome.toolCalls)),
    meanLlmTokens: mean(outcomes.map((outcome) => outcome.llmTokens)),
    wallMs,
  };
}
