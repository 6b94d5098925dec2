import type { Space, ToolSpec } from './spaces';

/** Gymnasium's documentation sections; every env fills them and `turngym info` prints them. */
export interface EnvDocs {
  readonly description: string;
  readonly actionSpace: string;
  readonly observationSpace: string;
  readonly rewards: string;
  readonly startingState: string;
  readonly episodeEnd: string;
  readonly arguments: string;
  readonly versionHistory: string;
}

/** The static description of an environment id. */
export interface EnvSpec {
  readonly specificationVersion: 'v1';
  /** `[namespace/]name-vN`, e.g. `turngym/math-thought-v1`. */
  readonly id: string;
  /** One line: what the agent has to do. */
  readonly summary: string;
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  /** The tools of a tool space (repeated here so function-calling agents find them in one place). */
  readonly tools?: readonly ToolSpec[];
  /** The env's own turn limit; the time-limit wrapper truncates there. */
  readonly maxTurns: number;
  /** Smallest and largest reward of a single step. */
  readonly rewardRange: readonly [number, number];
  /** True if the same seed may not reproduce an episode (e.g. a live LLM role without a cache). */
  readonly nondeterministic?: boolean;
  readonly docs?: EnvDocs;
  /** The npm package and version that provide it, recorded in every result. */
  readonly packageName?: string;
  readonly packageVersion?: string;
}
