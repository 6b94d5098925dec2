import type { ToolCall } from './chat';
import type { EnvSpec } from './env-spec';
import type { Info } from './info';

/**
 * What an agent may send: the raw text the model wrote, a structured tool call (function calling), or,
 * for discrete spaces, an option's index. Envs parse text themselves; malformed text is an ordinary step.
 */
export type Action = string | ToolCall | number;

export interface ResetArgs {
  /**
   * Same seed ⇒ same episode. Omitted: the env draws one from its own stream, seeded by the last explicit seed
   * or, if none was ever given, from OS entropy; `info.seed` reports the seed used either way.
   */
  seed?: number;
  /** Per-episode options the env documents (e.g. a task id). */
  options?: Record<string, unknown>;
}

export interface ResetResult<Obs = string> {
  /** The task, as the first user message. */
  observation: Obs;
  /** `info.instructions` holds the system prompt. */
  info: Info;
}

export interface StepResult<Obs = string> {
  observation: Obs;
  reward: number;
  /** The episode reached a terminal state of the task (solved, failed, answered). */
  terminated: boolean;
  /** The episode was cut short from outside the task (turn limit, budget). */
  truncated: boolean;
  info: Info;
}

/**
 * The environment contract, version 1: Gymnasium's API made async and text-first.
 *
 * Exceptions are for API misuse only (step before reset or after the end, a closed env, bad options,
 * an action of the wrong JavaScript type); everything an agent can write is an ordinary step.
 */
export interface Env<Obs = string, Act = Action> {
  readonly spec: EnvSpec;
  reset(args?: ResetArgs): Promise<ResetResult<Obs>>;
  step(action: Act): Promise<StepResult<Obs>>;
  /** An independent env at exactly this state: stepping either one never affects the other. */
  fork(): Promise<Env<Obs, Act>>;
  /** The abstract action, evaluated against the current state, e.g. `NAVIGATE(person)`. */
  fingerprint(action: Act): string;
  /** The abstract location of the current state, e.g. `person#early-life`. */
  anchor(): string;
  /** Releases browsers, sandboxes, sockets. Idempotent. */
  close(): Promise<void>;
  /** The innermost env under any wrappers (itself when unwrapped). */
  readonly unwrapped?: Env<Obs, Act>;
}
