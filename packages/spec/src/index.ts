/** @turngym/spec — the environment contract, version 1. Types only (plus one frozen constant). */
export const SPECIFICATION_VERSION = 'v1' as const;
export type SpecificationVersion = typeof SPECIFICATION_VERSION;

export type { Action, Env, ResetArgs, ResetResult, StepResult } from './env';
export type { EnvDocs, EnvSpec } from './env-spec';
export type { DiscreteSpace, JsonSchema, Space, TextSpace, ToolSpace, ToolSpec } from './spaces';
export type { Cost, Info } from './info';
export { ZERO_COST } from './info';
export type { ChatMessage, ChatRole, ToolCall } from './chat';
export type { Agent, AgentEpisodeStart, AgentUsage } from './agent';
