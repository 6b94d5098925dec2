import { SeededRng, mixSeed } from '@turngym/core';
import { LLMCallError } from './llm-call-error';

/** How a failed call is retried: exponential backoff with jitter, capped, honouring Retry-After. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 = one attempt). */
  readonly maxRetries: number;
  /** Delay before the first retry, ms; doubles each retry. */
  readonly baseDelayMs: number;
  /** Cap on any single backoff delay, ms; also caps a server's Retry-After, to which up to 25% jitter is then added. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({ maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8000 });

/**
 * Jitter only spreads retries out in time; it never changes a result. It is seeded from the process id so
 * that many worker processes hitting one rate-limited server do not retry in lockstep (the very thing
 * jitter is for), while `Math.random()` stays out of the codebase.
 */
const jitterRng = new SeededRng(mixSeed('turngym-llm-retry-jitter', process.pid));

/** The delay before retry number `retry` (0-based): base·2^retry, capped, minus up to 25% jitter. */
export function backoffDelay(policy: RetryPolicy, retry: number, rng: SeededRng = jitterRng): number {
  const exponential = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
  return exponential * (1 - 0.25 * rng.next());
}

/**
 * The wait a server asked for (Retry-After, capped at `maxDelayMs`), plus up to 25% jitter. Every caller a
 * rate-limited server turns away at once is told the same wait: retried exactly on it, they all came back in the
 * same millisecond and were turned away again together. Jitter goes up, never down: coming back early would only
 * earn another 429.
 */
export function retryAfterDelay(policy: RetryPolicy, retryAfterMs: number, rng: SeededRng = jitterRng): number {
  return Math.min(Math.max(0, retryAfterMs), policy.maxDelayMs) * (1 + 0.25 * rng.next());
}

/** The longest delay `setTimeout` honours (about 24.8 days); past it Node fires after 1 ms, which would retry at once. */
export const MAX_TIMER_MS = 2_147_483_647;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or `policy.maxRetries` retries are
 * spent. The one place TurnGym retries LLM calls: backends pass their single-attempt call here. Errors
 * other than `LLMCallError` are not retried. The final error says how many attempts were made.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry + 1);
    } catch (error) {
      if (!(error instanceof LLMCallError)) throw error;
      if (signal?.aborted) throw abortedError(error, retry + 1);
      if (!error.isRetryable || retry >= policy.maxRetries)
        throw error.withAttempts(retry + 1, waitNote(error, policy));
      const delay =
        error.retryAfterMs !== undefined ? retryAfterDelay(policy, error.retryAfterMs) : backoffDelay(policy, retry);
      try {
        await sleep(delay, signal);
      } catch {
        throw abortedError(error, retry + 1);
      }
    }
  }
}

/**
 * A retryable error given up on while the server had asked for a longer wait than `maxDelayMs` allows: the retries
 * came back too early and were bound to fail. Said, so that the fix (a larger `retryMaxDelayMs`) is in the message.
 */
function waitNote(error: LLMCallError, policy: RetryPolicy): string | undefined {
  if (!error.isRetryable || policy.maxRetries === 0) return undefined;
  const asked = error.retryAfterMs;
  if (asked === undefined || asked <= policy.maxDelayMs) return undefined;
  return `the server asked to wait ${Math.ceil(asked / 1000)} s, but retries wait at most ${policy.maxDelayMs} ms (retryMaxDelayMs)`;
}

function abortedError(last: LLMCallError, attempts: number): LLMCallError {
  return new LLMCallError(`LLM call aborted by the caller after ${attempts} attempt(s); last error: ${last.message}`, {
    failure: 'aborted',
    baseURL: last.baseURL,
    modelId: last.modelId,
    attempts,
    cause: last,
  });
}
