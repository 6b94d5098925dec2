import { TurnGymError } from '@turngym/core';

/** What went wrong, coarsely: lets callers branch without parsing messages. */
export type LLMCallFailure =
  | 'http' // the server answered with an error status
  | 'context-length' // the prompt does not fit the model's context (a 400 `context_length_exceeded` or its wording)
  | 'connection' // refused, reset, DNS: no answer at all
  | 'timeout' // no answer within the timeout
  | 'aborted' // the caller's AbortSignal fired
  | 'invalid-response' // an answer the client could not read (retryable where its body was cut short)
  | 'refusal' // the model declined to answer (OpenAI's `message.refusal`); `refusal` holds its text
  | 'no-answer' // an agent's reply held nothing to act on: cut at its token limit, filtered, or reasoning only
  | 'script'; // a scripted model ran out of replies or its function threw

export interface LLMCallErrorOptions {
  readonly failure: LLMCallFailure;
  readonly isRetryable?: boolean;
  /** HTTP status, for `http` failures. */
  readonly status?: number;
  /** The base URL called, for remote backends. */
  readonly baseURL?: string;
  /** The model id (`openai:gpt-4o-mini`). */
  readonly modelId?: string;
  /** How long the server asked us to wait (Retry-After / retry-after-ms), in ms. */
  readonly retryAfterMs?: number;
  /** Attempts made before giving up (1 = no retries). */
  readonly attempts?: number;
  /** The model's refusal text, for `refusal` failures. */
  readonly refusal?: string;
  readonly cause?: unknown;
}

/**
 * The one error every ChatModel backend throws, code `LLM_CALL`. A `context-length` failure is never retried and
 * sets `agentStop` (core's marker, see `isAgentStop`): an agent whose context is full ends its episode as a scored
 * failure, not an errored one. `isRetryable` is true for 408/409/429/5xx,
 * timeouts, connection failures and a 200 whose JSON body does not parse (cut short on the way) — what may succeed
 * if tried again — and false for bad requests, auth, aborts, script faults, refusals, a 429 that says the quota is
 * used up (`insufficient_quota`), TLS failures, plain `http://` to a port that speaks TLS and a port `fetch` refuses
 * to call. Its `cause` (the client's error) has the API key masked, as its message has.
 */
export class LLMCallError extends TurnGymError {
  readonly failure: LLMCallFailure;
  readonly status: number | undefined;
  readonly baseURL: string | undefined;
  readonly modelId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly attempts: number;
  /** What the model said instead of answering, for `refusal` failures. */
  readonly refusal: string | undefined;
  /**
   * Why the agent cannot go on, for core's runEpisode: `'context-length'` for a context overflow (the episode ends
   * as a failure that is scored), else undefined (the episode is errored).
   */
  readonly agentStop: 'context-length' | undefined;

  constructor(message: string, options: LLMCallErrorOptions) {
    // A context overflow fails the same way every time it is sent: never retried.
    const overflow = options.failure === 'context-length' || isContextLengthCause(options);
    super('LLM_CALL', message, {
      cause: options.cause,
      isRetryable: overflow ? false : (options.isRetryable ?? false),
    });
    this.failure = overflow ? 'context-length' : options.failure;
    this.agentStop = overflow ? 'context-length' : undefined;
    this.status = options.status;
    this.baseURL = options.baseURL;
    this.modelId = options.modelId;
    this.retryAfterMs = options.retryAfterMs;
    this.attempts = options.attempts ?? 1;
    this.refusal = options.refusal;
  }

  /** Whether a status means "try again later" (the same table as the openai client's). */
  static isRetryableStatus(status: number): boolean {
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }

  /** A copy that says how many attempts were made, and anything else worth knowing about giving up (`detail`). */
  withAttempts(attempts: number, detail?: string): LLMCallError {
    const gaveUp = attempts > 1 ? [`gave up after ${attempts} attempts`] : [];
    const notes = [...gaveUp, ...(detail ? [detail] : [])];
    const note = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    return new LLMCallError(`${this.message}${note}`, {
      failure: this.failure,
      isRetryable: this.isRetryable,
      status: this.status,
      baseURL: this.baseURL,
      modelId: this.modelId,
      retryAfterMs: this.retryAfterMs,
      attempts,
      ...(this.refusal !== undefined ? { refusal: this.refusal } : {}),
      cause: this.cause,
    });
  }
}

/**
 * A local model's refusal of a prompt past its context: an `http` 400 whose cause is @turngym/lm's
 * ContextLengthError (code `CONTEXT_LENGTH_EXCEEDED`), as serveChatModel reads it.
 */
function isContextLengthCause(options: LLMCallErrorOptions): boolean {
  return (
    options.failure === 'http' &&
    TurnGymError.isInstance(options.cause) &&
    options.cause.code === 'CONTEXT_LENGTH_EXCEEDED'
  );
}
