import { AsyncLocalStorage } from 'node:async_hooks';

/** What env code runs on behalf of: a session (which a fault ends), a stateless request, or no one (`runUnowned`). */
export interface EnvFaultOwner {
  /** Names the owner in the log, e.g. `session 3f…  (turngym/example-v1)`. */
  readonly label: string;
  /** Ends the owner after a fault in its env's code; absent where nothing outlives the request, or no one owns it. */
  fail?(error: unknown): void;
}

interface OwnerTracking {
  /**
   * The owner of the env code running now. Node carries it into every timer, promise, child process and callback
   * that code starts, so a fault that surfaces later, outside any request (an exception thrown in an env's
   * setTimeout), can still be traced to the session whose env started it.
   */
  readonly owners: AsyncLocalStorage<EnvFaultOwner>;
  /** What `runUnowned` runs as. */
  readonly unowned: EnvFaultOwner;
  /**
   * Whether owners are tracked: only while a server's fault guard is installed. Tracking is not free: once an
   * AsyncLocalStorage runs, Node (20) hooks every promise of the process, a few µs per message of an env server,
   * which a program without a guard would pay for nothing.
   */
  trackers: number;
}

/**
 * One store per process, even where several copies of this package are loaded (an env package installed with its
 * own nested @turngym/core): a pool built on one copy must leave the scope that a server built on another set.
 */
const TRACKING_KEY = Symbol.for('@turngym/core:env-fault-owners:v1');
const tracking: OwnerTracking = ((globalThis as Record<symbol, OwnerTracking | undefined>)[TRACKING_KEY] ??= {
  owners: new AsyncLocalStorage<EnvFaultOwner>(),
  unowned: Object.freeze({ label: "no session (a shared pool's own code)" }),
  trackers: 0,
});

/** Runs env code (building, stepping, forking, closing an env) on behalf of `owner`. */
export function runOwnedBy<T>(owner: EnvFaultOwner, body: () => T): T {
  return tracking.trackers > 0 ? tracking.owners.run(owner, body) : body();
}

/**
 * Runs the machinery of something every session shares (a pool's worker processes, its timers, the dispatch of
 * queued jobs, handlers on a shared browser) as no session's code. Without it, whatever a pool starts belongs to
 * the session whose call happened to start it, and a later fault of the pool, even one while serving another
 * session's job, closed that innocent session. A caller's job keeps its caller: its promise settles in the
 * caller's scope, and a callback of the caller's that the pool runs stays the caller's when bound with
 * `AsyncResource.bind` or `AsyncLocalStorage.snapshot()` before it enters the pool.
 */
export function runUnowned<T>(body: () => T): T {
  return runOwnedBy(tracking.unowned, body);
}

/**
 * The owner of the code running now: a session's or a request's owner, the owner without `fail` of `runUnowned`
 * code, or undefined outside env code (a server's own) and while no guard tracks owners.
 */
export function currentFaultOwner(): EnvFaultOwner | undefined {
  return tracking.owners.getStore();
}

/**
 * Tracks owners from now on (code already running keeps running untracked) until the returned function is called
 * (idempotent). For a server's fault guard; nested guards count.
 */
export function trackEnvFaultOwners(): () => void {
  tracking.trackers += 1;
  let tracked = true;
  return () => {
    if (!tracked) return;
    tracked = false;
    tracking.trackers -= 1;
  };
}
