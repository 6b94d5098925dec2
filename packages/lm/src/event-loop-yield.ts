/**
 * A function to await between steps of long synchronous work (decoder passes, minibatches): it lets the event loop
 * run — a SIGINT/SIGTERM handler, a timer, an HTTP request — once `intervalMs` of work has passed since it last did,
 * and otherwise returns at once. Awaiting a resolved promise runs microtasks only, so without it a signal sent
 * during a rollout on the cpu backend waited for the whole iteration. Where work pauses never changes what it
 * computes.
 */
export function eventLoopYielder(intervalMs = 50): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < intervalMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    last = performance.now();
  };
}
