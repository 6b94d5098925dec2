import { RandomAgent, TurnGymError, type Registry } from '@turngym/core';
import type { Agent, Env } from '@turngym/spec';
import { UsageError } from './cli-errors';
import { loadLlm, loadLm } from './optional-modules';

/** Where the agents of a run come from: one fresh agent per episode, all from the same source. */
export interface AgentSource {
  /** Written into every episode record. */
  readonly name: string;
  create(context: { env: Env<any, any>; seed: number }): Agent<any, any>;
  close(): Promise<void>;
}

export interface ChatModelSettings {
  baseURL?: string;
  apiKey?: string;
}

/** `openai:gpt-4o-mini`, `local:./checkpoints/step-100`, … (a provider, a colon, the rest). */
const CHAT_MODEL_SPEC = /^[a-z][a-z0-9-]*:.+$/;

/**
 * Resolves `--agent`: a baseline the env registered (`scripted`, `random`, …), the generic random agent for
 * envs that register none, or a chat-model spec. Runs before any episode, so a typo fails in one line
 * instead of after the first env is built.
 */
export function resolveAgentSource(
  registry: Registry,
  envId: string,
  name: string,
  settings: ChatModelSettings = {},
): AgentSource {
  const registered = Object.keys(registry.get(envId).agents ?? {});
  if (registered.includes(name)) {
    return { name, create: ({ env, seed }) => registry.makeAgent(envId, name, { env, seed }), close: async () => {} };
  }
  if (name === 'random') {
    return { name, create: ({ seed }) => new RandomAgent(seed), close: async () => {} };
  }
  if (CHAT_MODEL_SPEC.test(name)) return chatModelSource(name, settings);
  const known = [...new Set([...registered, 'random'])].sort().join(', ');
  if (name === 'scripted')
    throw new UsageError(`${envId} has no scripted agent; its agents are: ${known}, or a chat-model spec.`);
  throw new UsageError(
    `Unknown agent "${name}" for ${envId}: expected one of ${known}, or a chat-model spec such as openai:gpt-4o-mini.`,
  );
}

function chatModelSource(spec: string, settings: ChatModelSettings): AgentSource {
  const llm = loadLlm();
  // `local:<checkpoint>` runs the tfjs LM in-process; its provider is registered only when asked for (tfjs loads).
  if (spec.startsWith('local:')) loadLm().registerLocalChatModelProvider();
  let model: ReturnType<typeof llm.createChatModel>;
  try {
    model = llm.createChatModel(spec, {
      openai: {
        ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      },
    });
  } catch (error) {
    if (TurnGymError.isInstance(error)) throw error;
    // A missing API key or a malformed URL: the command line (or its environment) has to change.
    throw new UsageError(`Cannot use chat model "${spec}": ${(error as Error).message}`);
  }
  // The agent mixes each episode's seed (from start()) into its request seeds; one agent per episode keeps
  // conversations apart. The model is shared and closed once, at the end of the run.
  const create = (): Agent<any, any> => new llm.ChatModelAgent(model);
  return {
    name: create().name,
    create,
    close: async () => {
      await model.close?.();
    },
  };
}
