import { TurnGymError } from '@turngym/core';
import type { RoleName } from './seller-options';

/** How much of the last reply the message quotes, and how much the error keeps (a model can ramble for pages). */
const QUOTED_CHARS = 200;
const KEPT_CHARS = 4000;

export interface RoleUnusableDetails {
  readonly envId: string;
  readonly role: RoleName;
  /** The role's model id (`openai:…`, a ChatModel's id). */
  readonly model: string;
  /** Calls made this turn, all unusable (1 + the retries). */
  readonly attempts: number;
  /** What the role answered on the last attempt. */
  readonly lastReply: string;
  /** Why that answer could not be used (`no JSON object in the answer`, `empty reply`). */
  readonly problem: string;
  /** Whether playing the episode again may get usable answers (a sampled role); default no. */
  readonly isRetryable?: boolean;
}

/**
 * An LLM role answered every call of a turn, but never usably: a judge whose verdicts never parse, a buyer or an
 * executor that says nothing. The episode is void, not a lost sale: its reward would rest on a verdict nobody
 * gave or on words nobody said. Runners record it as errored (code `ROLE_UNUSABLE`), exclude it from scores and
 * count it, as they do an `EnvFaultError`. Not retryable by default: at temperature 0 (and through the response
 * cache) the same requests get the same replies.
 */
export class RoleUnusableError extends TurnGymError {
  readonly role: RoleName;
  readonly model: string;
  readonly attempts: number;
  readonly lastReply: string;
  readonly problem: string;

  constructor(details: RoleUnusableDetails) {
    const quoted =
      details.lastReply.length > QUOTED_CHARS ? `${details.lastReply.slice(0, QUOTED_CHARS)}…` : details.lastReply;
    super(
      'ROLE_UNUSABLE',
      `${details.envId}: the ${details.role} role (${details.model}) gave no usable answer in ${details.attempts} ` +
        `attempt${details.attempts === 1 ? '' : 's'} (last: ${details.problem}; it said ${JSON.stringify(quoted)}). ` +
        'The episode is void: record it as errored, not as a lost sale.',
      { isRetryable: details.isRetryable ?? false },
    );
    this.role = details.role;
    this.model = details.model;
    this.attempts = details.attempts;
    this.lastReply = details.lastReply.slice(0, KEPT_CHARS);
    this.problem = details.problem;
  }
}
