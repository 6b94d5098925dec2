import { SeededRng, mixSeed } from '@turngym/core';
import { LLMCallError } from './llm-call-error';

/** How a failed call is retried: exponential backoff with jitter, capped, honouring Retry-After. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 = one attempt). */
  readonly maxRetries: number;
  /** Delay before the first retry, ms; doubles each retry. */
  readonly baseDelayMs: number;
  /** Cap on any single delay, ms (also caps a server's Retry-After). */
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
      if (!error.isRetryable || retry >= policy.maxRetries) throw error.withAttempts(retry + 1);
      const delay =
        error.retryAfterMs !== undefined
          ? Math.min(Math.max(0, error.retryAfterMs), policy.maxDelayMs)
          : backoffDelay(policy, retry);
      try {
        await sleep(delay, signal);
      } catch {
        throw abortedError(error, retry + 1);
      }
    }
  }
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
