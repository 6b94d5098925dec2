import type { Logger } from '@turngym/core';
import type { Action, Env } from '@turngym/spec';

/**
 * Closes an env, waiting at most `timeoutMs` for it. An env's `close()` that throws, or never settles (a child
 * process that will not exit), is reported to `logger` and otherwise ignored: the server releases the env's
 * capacity slot, finishes the request and shuts down regardless, since no client can be told and a stuck
 * close would otherwise hold a slot, a session or the whole shutdown forever. Never rejects.
 */
export async function closeEnvWithin(
  env: Env<unknown, Action>,
  timeoutMs: number,
  logger: Logger | undefined,
  label: string,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    timer.unref();
  });
  try {
    // `close()` itself may throw synchronously; inside the async function that is a rejection like any other.
    const closing = (async () => env.close())();
    const outcome = await Promise.race([closing.then(() => 'closed' as const), timedOut]);
    if (outcome === 'timeout') {
      // A late rejection of the abandoned close must not become an unhandled rejection.
      closing.catch(() => undefined);
      logger?.warn(`${label}: env close() did not finish within ${timeoutMs} ms; its slot is released anyway`);
    }
  } catch (error) {
    logger?.warn(`${label}: env close() failed: ${(error as Error)?.message ?? String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
