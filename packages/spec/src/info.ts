/** What one step (or reset) spent. Summed over an episode by the budget wrapper and the recorder. */
export interface Cost {
  /** Tool calls the agent made this step (a malformed call still counts: the agent spent the turn). */
  readonly toolCalls: number;
  /** Tokens used by env-side LLM roles (buyer, judge, executor …), prompt + completion. */
  readonly llmTokens: number;
  /** Wall-clock milliseconds the env spent on the step. */
  readonly wallMs: number;
}

/**
 * Side information of a reset or step. Open-ended: envs add their own keys, which survive the wire
 * and the episode records as long as they are JSON.
 */
export interface Info {
  /**
   * The episode's seed, set on every reset: the one given, or the one the env drew when none was (from OS
   * entropy on an env's first seedless reset). `reset({ seed })` with it replays the episode.
   */
  seed?: number;
  /** The system prompt: how to act in this env. Set on reset. */
  instructions?: string;
  /** What this step spent. */
  cost?: Cost;
  /** Set on the last step of an episode: did the agent solve the task? */
  success?: boolean;
  /** The abstract action just taken (`fingerprint(action)` evaluated before the step). */
  fingerprint?: string;
  /** The abstract location of the state reached (`anchor()` after the step). */
  anchor?: string;
  /** True when the action could not be parsed or was not allowed (an ordinary step with feedback). */
  invalidAction?: boolean;
  /** What was wrong with the action, or any other note meant for the agent. */
  feedback?: string;
  /** Discrete spaces: which actions are legal in the state reached. */
  actionMask?: boolean[];
  /** Why an episode was truncated: 'time-limit', 'tool-calls', 'tokens', … */
  truncatedBy?: string;
  [key: string]: unknown;
}

export const ZERO_COST: Cost = Object.freeze({ toolCalls: 0, llmTokens: 0, wallMs: 0 });
