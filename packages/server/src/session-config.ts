import { isDeepStrictEqual } from 'node:util';
import type { MakeOptions } from '@turngym/core';
import type { SessionConfigData } from './protocol';

/** What a session's env is built from: an env id and `make()` options. */
export interface SessionConfig {
  readonly envId: string;
  readonly envOptions?: Record<string, unknown>;
  readonly maxTurns?: number;
  readonly budget?: { readonly maxToolCalls?: number; readonly maxLlmTokens?: number };
}

/** The keys a client sent replace the current ones; keys it left out keep their value. */
export function mergeConfig(current: SessionConfig, data: SessionConfigData | undefined): SessionConfig {
  if (!data) return current;
  const next: { -readonly [K in keyof SessionConfig]: SessionConfig[K] } = { ...current };
  if (data.env_id !== undefined) next.envId = data.env_id;
  if (data.env_options !== undefined) next.envOptions = data.env_options;
  if (data.max_turns !== undefined) next.maxTurns = data.max_turns;
  if (data.budget !== undefined) {
    next.budget = {
      ...(data.budget.max_tool_calls === undefined ? {} : { maxToolCalls: data.budget.max_tool_calls }),
      ...(data.budget.max_llm_tokens === undefined ? {} : { maxLlmTokens: data.budget.max_llm_tokens }),
    };
  }
  return next;
}

export function sameConfig(a: SessionConfig, b: SessionConfig): boolean {
  return isDeepStrictEqual(a, b);
}

export function makeOptionsOf(config: SessionConfig): MakeOptions {
  return {
    ...(config.envOptions ? { options: config.envOptions } : {}),
    ...(config.maxTurns === undefined ? {} : { maxTurns: config.maxTurns }),
    ...(config.budget && Object.keys(config.budget).length > 0 ? { budget: { ...config.budget } } : {}),
  };
}

/** The config as the wire shows it (used by the `session` reply). */
export function configData(config: SessionConfig): SessionConfigData {
  return {
    env_id: config.envId,
    ...(config.envOptions ? { env_options: config.envOptions } : {}),
    ...(config.maxTurns === undefined ? {} : { max_turns: config.maxTurns }),
    ...(config.budget
      ? {
          budget: {
            ...(config.budget.maxToolCalls === undefined ? {} : { max_tool_calls: config.budget.maxToolCalls }),
            ...(config.budget.maxLlmTokens === undefined ? {} : { max_llm_tokens: config.budget.maxLlmTokens }),
          },
        }
      : {}),
  };
}
