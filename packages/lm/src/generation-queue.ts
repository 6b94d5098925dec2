import { LLMCallError } from '@turngym/llm';

/** How long a client turned away by a full queue is asked to wait before it tries again. */
const RETRY_AFTER_MS = 1000;

/**
 * The generations a model server runs at once, and the requests waiting for one. Each generation builds its own
 * batch, and on models whose fused weights are not kept between calls (over 10M layer weights: tiny-30m, real
 * checkpoints) its own copy of them (~75 MB on tiny-30m: q/k/v and gate/up concatenated): without a bound, N
 * concurrent clients cost N copies.
 * Requests past `maxConcurrent` wait in arrival order; past `maxQueued` waiting ones, `acquire` refuses at once with
 * a retryable 429 (`LLMCallError`, `retryAfterMs` set), which is what OpenAI clients back off and retry on.
 */
export class GenerationQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly maxConcurrent: number,
    readonly maxQueued: number,
  ) {}

  /** Generations running now. */
  get active(): number {
    return this.running;
  }

  /** Requests waiting for a free generation. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Waits for a free generation and returns the function that frees it (call it once the generation has ended).
   * A request whose `signal` aborts while it waits leaves the queue and rejects with the signal's reason.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.running >= this.maxConcurrent) {
      if (this.waiting.length >= this.maxQueued) {
        throw new LLMCallError(
          `The server is busy: ${this.running} generations are running and ${this.waiting.length} requests are ` +
            `waiting (maxConcurrentRequests ${this.maxConcurrent}, maxQueuedRequests ${this.maxQueued}). ` +
            `Try again shortly.`,
          { failure: 'http', status: 429, isRetryable: true, retryAfterMs: RETRY_AFTER_MS },
        );
      }
      await new Promise<void>((resolve, reject) => {
        const turn = (): void => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = (): void => {
          const position = this.waiting.indexOf(turn);
          if (position >= 0) this.waiting.splice(position, 1);
          reject(signal!.reason);
        };
        this.waiting.push(turn);
        signal?.addEventListener('abort', leave, { once: true });
      });
    }
    // A slot freed by `release` passes straight to the next waiter, so `running` counts it throughout.
    else this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    };
  }
}
