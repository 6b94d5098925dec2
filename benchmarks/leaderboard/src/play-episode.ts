import type { EpisodeOutcome } from '@turngym/core';
import type { Agent, Env } from '@turngym/spec';

/** Core's outcome plus what the agent itself spent (an LLM agent's tokens, from `takeUsage()`). */
export interface PlayedEpisode extends EpisodeOutcome {
  readonly agentPromptTokens: number;
  readonly agentCompletionTokens: number;
}

/**
 * Core's `runEpisode` (seed and per-episode reset options) plus the agent's own token usage from
 * `takeUsage()`, which a leaderboard must count: what should move to core is that accounting.
 */
export async function playEpisode(
  env: Env<any, any>,
  agent: Agent<any, any>,
  seed: number,
  resetOptions?: Record<string, unknown>,
): Promise<PlayedEpisode> {
  const started = performance.now();
  const reset = await env.reset({ seed, ...(resetOptions ? { options: resetOptions } : {}) });
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
