import { EnvFaultError } from '@turngym/core';
import { fromErrorData } from './error-mapping';
import type { ErrorData } from './protocol';

export interface Reply {
  readonly type: string;
  readonly data: unknown;
}

/** One session's link to the server, whatever carries it (its own WebSocket, or a `/mux` channel). */
export interface SessionLink {
  readonly url: string;
  request(message: { type: string; data?: unknown }): Promise<Reply>;
  close(): Promise<void>;
}

interface Pending {
  readonly type: string;
  resolve(reply: Reply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Requests waiting for their replies, in order (OpenEnv's protocol has no request ids: the n-th reply answers
 * the n-th request). An `error` reply rejects with the typed error behind it. A reply that does not come within
 * the timeout breaks the order for good: the queue fails, and its owner drops the link.
 */
export class ReplyQueue {
  private readonly pending: Pending[] = [];
  private failure: Error | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly url: string,
    private readonly onTimeout: (error: Error) => void,
  ) {}

  get failed(): Error | undefined {
    return this.failure;
  }

  /** The type of the oldest request still waiting. */
  get head(): string | undefined {
    return this.pending[0]?.type;
  }

  expect(type: string): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new EnvFaultError(`No reply to "${type}" from ${this.url} within ${this.timeoutMs} ms.`);
        this.fail(error);
        this.onTimeout(error);
      }, this.timeoutMs);
      this.pending.push({ type, resolve, reject, timer });
    });
  }

  /** Hands a reply to the oldest waiting request; false if nobody waits for one. */
  settle(reply: Reply): boolean {
    const waiting = this.pending.shift();
    if (!waiting) return false;
    clearTimeout(waiting.timer);
    if (reply?.type === 'error') waiting.reject(fromErrorData(reply.data as ErrorData));
    else waiting.resolve(reply);
    return true;
  }

  /** Rejects every waiting request, and every later one, with `error` (the first failure sticks). */
  fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.reject(this.failure);
    }
  }
}
