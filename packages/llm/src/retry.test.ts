import { SeededRng } from '@turngym/core';
import { LLMCallError } from './llm-call-error';
import { backoffDelay, retryAfterDelay, withRetries } from './retry';

const retryable = (extra: Partial<ConstructorParameters<typeof LLMCallError>[1]> = {}) =>
  new LLMCallError('HTTP 503: busy', { failure: 'http', status: 503, isRetryable: true, ...extra });

describe('withRetries', () => {
  const policy = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 4 };

  it('retries retryable LLMCallErrors until one attempt succeeds', async () => {
    let attempts = 0;
    const result = await withRetries(async () => {
      attempts += 1;
      if (attempts < 3) throw retryable();
      return 'done';
    }, policy);
    expect(result).toBe('done');
    expect(attempts).toBe(3);
  });

  it('stops at once on a non-retryable error and says how many attempts were made', async () => {
    let attempts = 0;
    const error = await withRetries(async () => {
      attempts += 1;
      throw new LLMCallError('HTTP 400: bad', { failure: 'http', status: 400 });
    }, policy).catch((caught: unknown) => caught);
    expect(attempts).toBe(1);
    expect(error).toMatchObject({ attempts: 1, message: 'HTTP 400: bad' });
  });

  it('gives up after maxRetries and leaves other errors alone', async () => {
    await expect(withRetries(async () => Promise.reject(retryable()), policy)).rejects.toMatchObject({
      attempts: 4,
      message: 'HTTP 503: busy (gave up after 4 attempts)',
    });
    let attempts = 0;
    await expect(
      withRetries(async () => {
        attempts += 1;
        throw new TypeError('a bug');
      }, policy),
    ).rejects.toThrow(TypeError);
    expect(attempts).toBe(1);
  });

  it('says, when it gives up, that the server asked for a longer wait than the retries allowed', async () => {
    const error = await withRetries(async () => Promise.reject(retryable({ status: 429, retryAfterMs: 60_000 })), {
      ...policy,
      maxRetries: 1,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      attempts: 2,
      message:
        'HTTP 503: busy (gave up after 2 attempts; the server asked to wait 60 s, but retries wait at most 4 ms (retryMaxDelayMs))',
    });
    // A wait within the cap was honoured: nothing to add.
    await expect(
      withRetries(async () => Promise.reject(retryable({ retryAfterMs: 3 })), { ...policy, maxRetries: 1 }),
    ).rejects.toMatchObject({ message: 'HTTP 503: busy (gave up after 2 attempts)' });
  });

  it('turns an abort during the backoff into an aborted error', async () => {
    // The backoff is a timer: a fake clock puts the abort inside it, whatever the machine's speed.
    jest.useFakeTimers();
    try {
      const controller = new AbortController();
      let attempts = 0;
      const pending = withRetries(
        async () => {
          attempts += 1;
          throw retryable({ retryAfterMs: 10_000 });
        },
        { ...policy, maxDelayMs: 60_000 },
        controller.signal,
      );
      const outcome = expect(pending).rejects.toMatchObject({ failure: 'aborted', isRetryable: false, attempts: 1 });
      await jest.advanceTimersByTimeAsync(9_999); // one attempt failed; its retry is 1 ms away
      expect({ attempts, timers: jest.getTimerCount() }).toEqual({ attempts: 1, timers: 1 });
      controller.abort();
      await outcome;
      expect({ attempts, timers: jest.getTimerCount() }).toEqual({ attempts: 1, timers: 0 });
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('withRetries and a Retry-After many callers are told at once', () => {
  it('spreads their retries over up to 25% past the wait instead of sending them all back in one instant', async () => {
    // A fake clock: the instants compared are the timers' own, whatever the machine's load.
    jest.useFakeTimers();
    try {
      const retriedAt: number[] = [];
      const start = Date.now();
      const callers = Array.from({ length: 20 }, () => {
        let attempts = 0;
        return withRetries(
          async () => {
            attempts += 1;
            if (attempts === 1) throw retryable({ status: 429, retryAfterMs: 1000 });
            retriedAt.push(Date.now() - start);
            return 'ok';
          },
          { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 60_000 },
        );
      });
      await jest.advanceTimersByTimeAsync(999);
      expect(retriedAt).toEqual([]); // never before the wait the server asked for
      await jest.advanceTimersByTimeAsync(251);
      await expect(Promise.all(callers)).resolves.toHaveLength(20);
      expect(Math.max(...retriedAt)).toBeLessThanOrEqual(1250);
      expect(new Set(retriedAt).size).toBeGreaterThanOrEqual(15);
      expect(Math.max(...retriedAt) - Math.min(...retriedAt)).toBeGreaterThan(100);
    } finally {
      jest.useRealTimers();
    }
  });

  it('jitters a Retry-After past the cap too, from the cap up', () => {
    const rng = new SeededRng(3);
    const policy = { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2000 };
    const delays = Array.from({ length: 20 }, () => retryAfterDelay(policy, 60_000, rng));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(2000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(2500);
    expect(new Set(delays).size).toBe(20);
  });
});

describe('withRetries and long waits', () => {
  it('waits out a Retry-After longer than a Node timer can hold instead of retrying at once', async () => {
    // setTimeout fires after 1 ms for any delay past 2^31-1 ms (about 24.8 days); the fake clock does the same.
    jest.useFakeTimers();
    try {
      let attempts = 0;
      const pending = withRetries(
        async () => {
          attempts += 1;
          if (attempts === 1) throw retryable({ retryAfterMs: 30 * 86_400_000 }); // "come back in a month"
          return 'ok';
        },
        { maxRetries: 3, baseDelayMs: 1, maxDelayMs: Number.POSITIVE_INFINITY },
      );
      await jest.advanceTimersByTimeAsync(60_000);
      expect(attempts).toBe(1);
      await jest.advanceTimersByTimeAsync(2_147_483_647);
      await expect(pending).resolves.toBe('ok');
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('backoffDelay', () => {
  it('doubles from the base, caps at the maximum, and jitters down by at most 25%', () => {
    const rng = new SeededRng(1);
    const policy = { maxRetries: 10, baseDelayMs: 100, maxDelayMs: 1000 };
    for (let retry = 0; retry < 8; retry++) {
      const ceiling = Math.min(100 * 2 ** retry, 1000);
      const delay = backoffDelay(policy, retry, rng);
      expect(delay).toBeLessThanOrEqual(ceiling);
      expect(delay).toBeGreaterThanOrEqual(ceiling * 0.75);
    }
  });

  // Only the jitter varies at the cap: equal delays would mean retries in lockstep, the thing jitter prevents.
  const capped = { maxRetries: 10, baseDelayMs: 1000, maxDelayMs: 1000 };
  const delays = (backoff: typeof backoffDelay, rng?: SeededRng): number[] =>
    Array.from({ length: 20 }, () => backoff(capped, 4, rng));

  it('jitters each retry differently, across most of its 25% band', () => {
    const seeded = delays(backoffDelay, new SeededRng(1));
    expect(new Set(seeded).size).toBe(20);
    expect(Math.max(...seeded) - Math.min(...seeded)).toBeGreaterThan(150);
    expect(new Set(delays(backoffDelay)).size).toBe(20); // the default, per-process generator
  });

  it('jitters differently for other seeds and for other processes (seeded from the process id)', () => {
    const one = delays(backoffDelay, new SeededRng(1));
    const two = delays(backoffDelay, new SeededRng(2));
    expect(two.filter((delay, i) => delay === one[i])).toEqual([]);
    // The module's generator as another process would seed it: reloaded with another process id.
    const inProcess = (pid: number): number[] => {
      const real = Object.getOwnPropertyDescriptor(process, 'pid')!;
      Object.defineProperty(process, 'pid', { ...real, value: pid });
      try {
        let backoff: typeof backoffDelay | undefined;
        jest.isolateModules(() => {
          backoff = (require('./retry') as typeof import('./retry')).backoffDelay;
        });
        return delays(backoff!);
      } finally {
        Object.defineProperty(process, 'pid', real);
      }
    };
    const first = inProcess(4242);
    expect(inProcess(4242)).toEqual(first);
    expect(inProcess(4243).filter((delay, i) => delay === first[i])).toEqual([]);
  });
});
