import type { ServerClock } from './server-clock';

interface Ticker {
  readonly ms: number;
  next: number;
  readonly tick: () => void;
}

/**
 * A server clock that moves only when the test says: the idle reaper, fork expiry and heartbeat then fire at
 * `advance()`, never because the machine stalled between two lines of a test.
 */
export class ManualClock implements ServerClock {
  private time = 1_000_000;
  private readonly tickers = new Set<Ticker>();

  now(): number {
    return this.time;
  }

  every(ms: number, tick: () => void): () => void {
    const ticker: Ticker = { ms, next: this.time + ms, tick };
    this.tickers.add(ticker);
    return () => void this.tickers.delete(ticker);
  }

  /** Moves time forward by `ms`, running every tick that falls due on the way, earliest first. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let due: Ticker | undefined;
      for (const ticker of this.tickers) if (ticker.next <= end && (!due || ticker.next < due.next)) due = ticker;
      if (!due) break;
      this.time = due.next;
      due.next += due.ms;
      due.tick();
    }
    this.time = end;
  }
}
