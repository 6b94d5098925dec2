/**
 * The server's `onSessionClosed` hook as something a test can await: `until(() => server.liveSessions() === 0)`
 * re-checks its condition each time a session's env is closed, instead of polling on a timer. Pass
 * `onSessionClosed: events.onSessionClosed` to `serveEnvs`.
 */
export class SessionEvents {
  /** Ids of the sessions closed so far, in order. */
  readonly closed: string[] = [];
  private readonly waiters = new Set<() => void>();

  readonly onSessionClosed = ({ sessionId }: { sessionId: string }): void => {
    this.closed.push(sessionId);
    for (const waiter of [...this.waiters]) waiter();
  };

  /** Resolves once `condition` holds: at once, or after the session close that makes it true. */
  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = (): void => {
        if (!condition()) return;
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }

  /** Resolves once the session `sessionId` is closed. */
  sessionClosed(sessionId: string): Promise<void> {
    return this.until(() => this.closed.includes(sessionId));
  }
}
