/**
 * Time as the server reads it: the idle reaper, fork expiry and the WebSocket heartbeat. The default is the
 * system clock; a test (or a simulation) injects its own through `serveEnvs({ clock })` and moves time itself,
 * so "idle for 250 ms" is a statement about the test's clock, not a race against a loaded machine.
 */
export interface ServerClock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /**
   * Calls `tick` every `ms` milliseconds until the returned function is called. Must not keep the process
   * alive on its own (the system clock's timers are unref'd).
   */
  every(ms: number, tick: () => void): () => void;
}

export const systemClock: ServerClock = {
  now: () => Date.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};
