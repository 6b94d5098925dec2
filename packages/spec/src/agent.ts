import type { Action } from './env';
import type { EnvSpec } from './env-spec';
import type { Info } from './info';

/** What an agent is told at the start of an episode. */
export interface AgentEpisodeStart<Obs = string> {
  readonly seed: number;
  readonly spec: EnvSpec;
  readonly observation: Obs;
  readonly info: Info;
}

/** Usage an agent reports (an LLM agent's own tokens), added to the episode's cost. */
export interface AgentUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** Anything that acts in an env: a scripted baseline, a chat model, a trained policy. */
export interface Agent<Obs = string, Act = Action> {
  readonly name: string;
  start(episode: AgentEpisodeStart<Obs>): Promise<void>;
  act(observation: Obs, info: Info): Promise<Act>;
  /** Tokens spent since the last call (LLM agents), for the record. */
  takeUsage?(): AgentUsage;
  close?(): Promise<void>;
}
