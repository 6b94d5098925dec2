import type { Registry } from '@turngym/core';
import { resolveSuiteAgent, type AgentSource, type ChatAgentSettings } from '@turngym/leaderboard';
import { UsageError } from './cli-errors';

/**
 * Resolves `--agent` for one env with the leaderboard's resolver (baselines the env registers, the generic
 * random agent, or a chat-model spec), so `run` and `bench` read agent specs the same way. Runs before any
 * episode, so a typo fails in one line instead of after the first env is built.
 */
export function resolveAgentSource(
  registry: Registry,
  envId: string,
  name: string,
  settings: ChatAgentSettings = {},
): AgentSource & { check(): Promise<void> } {
  const agent = resolveSuiteAgent(name, settings); // a malformed or unknown chat-model spec throws PreflightError
  if (!agent.supports(registry, envId)) {
    const known = [...new Set([...Object.keys(registry.get(envId).agents ?? {}), 'random'])].sort().join(', ');
    if (name === 'scripted')
      throw new UsageError(`${envId} has no scripted agent; its agents are: ${known}, or a chat-model spec.`);
    throw new UsageError(
      `Unknown agent "${name}" for ${envId}: expected one of ${known}, or a chat-model spec such as openai:gpt-4o-mini.`,
    );
  }
  const source = agent.sourceFor(registry, envId);
  return {
    ...source,
    // A chat model's endpoint: reachable, key accepted, model served (bench's preflight); nothing for a baseline.
    check: () => agent.check(),
    close: async () => {
      await source.close();
      await agent.close();
    },
  };
}
