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
}

/**
 * Plays one episode of `agent` in `env` from `seed` to the end (terminated or truncated). `resetOptions` are
 * the env's per-episode options (e.g. a task id).
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
  for (;;) {
    const action = await agent.act(observation, info);
    const usage = agent.takeUsage?.();
    agentPromptTokens += usage?.promptTokens ?? 0;
    agentCompletionTokens += usage?.completionTokens ?? 0;
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
