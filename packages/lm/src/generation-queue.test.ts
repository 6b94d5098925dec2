import { LLMCallError } from '@turngym/llm';
import { GenerationQueue } from './generation-queue';

describe('GenerationQueue: a bound on the generations a server decodes at once', () => {
  it('runs up to maxConcurrent at once, then the waiting ones in arrival order as slots free', async () => {
    const queue = new GenerationQueue(2, 5);
    const order: string[] = [];
    const first = await queue.acquire();
    const second = await queue.acquire();
    const third = queue.acquire().then((release) => (order.push('third'), release));
    const fourth = queue.acquire().then((release) => (order.push('fourth'), release));
    expect(queue.active).toBe(2);
    expect(queue.queued).toBe(2);
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect(queue.active).toBe(0);
    expect(queue.queued).toBe(0);
  });

  it('refuses a request past maxQueued waiting ones with a retryable 429 that says when to retry', async () => {
    const queue = new GenerationQueue(1, 1);
    const running = await queue.acquire();
    const waiting = queue.acquire();
    const refused = await queue.acquire().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LLMCallError);
    expect(refused).toMatchObject({ status: 429, isRetryable: true, retryAfterMs: 1000 });
    expect((refused as Error).message).toMatch(/maxConcurrentRequests 1, maxQueuedRequests 1/);
    running();
    (await waiting)();
    // Freed slots are counted back: the next request runs at once.
    (await queue.acquire())();
    expect(queue.active).toBe(0);
  });

  it('takes a request whose signal aborts out of the queue, and a release twice frees one slot', async () => {
    const queue = new GenerationQueue(1, 4);
    const running = await queue.acquire();
    const hangUp = new AbortController();
    const leaving = queue.acquire(hangUp.signal);
    const staying = queue.acquire();
    hangUp.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    expect(queue.queued).toBe(1);
    running();
    running();
    const next = await staying;
    expect(queue.active).toBe(1);
    next();
    expect(queue.active).toBe(0);
  });
});
