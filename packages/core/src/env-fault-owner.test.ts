import { currentFaultOwner, runOwnedBy, runUnowned, trackEnvFaultOwners, type EnvFaultOwner } from './env-fault-owner';

describe('runUnowned', () => {
  it("runs as no session's code; the session resumes as itself, and a caller's code inside runs as the caller's", async () => {
    const untrack = trackEnvFaultOwners();
    try {
      const session: EnvFaultOwner = { label: 'session A', fail: () => undefined };
      const seen = await runOwnedBy(session, async () => {
        // What a shared pool starts from inside a session's call (a timer, a worker) is no session's ...
        const unowned = await runUnowned(
          () => new Promise<EnvFaultOwner | undefined>((resolve) => setImmediate(() => resolve(currentFaultOwner()))),
        );
        // ... and the session resumes as itself.
        return { unowned, resumed: currentFaultOwner() };
      });
      expect(seen.resumed).toBe(session);
      expect(seen.unowned).toEqual({ label: "no session (a shared pool's own code)" });
      expect(seen.unowned?.fail).toBeUndefined();
      // A pool running a caller's callback as the caller's (bound to the caller's scope).
      expect(runUnowned(() => runOwnedBy(session, currentFaultOwner))).toBe(session);
    } finally {
      untrack();
    }
    // Untracked (no guard installed), nothing is tracked, and nothing is paid for.
    expect(runUnowned(currentFaultOwner)).toBeUndefined();
  });
});

describe('the owner store', () => {
  it('is one per process, even with a second copy of @turngym/core loaded (an env package with its own)', () => {
    let copy: typeof import('./env-fault-owner') | undefined;
    jest.isolateModules(() => {
      copy = jest.requireActual<typeof import('./env-fault-owner')>('./env-fault-owner');
    });
    expect(copy?.runUnowned).not.toBe(runUnowned);
    const untrack = copy?.trackEnvFaultOwners() as () => void;
    try {
      const session: EnvFaultOwner = { label: 'session A', fail: () => undefined };
      // A server on this copy, a pool on the other: the pool still leaves the session's scope.
      const seen = runOwnedBy(session, () => copy?.runUnowned(currentFaultOwner));
      expect(seen).toEqual({ label: "no session (a shared pool's own code)" });
    } finally {
      untrack();
      untrack();
    }
    expect(runOwnedBy({ label: 'session A' }, currentFaultOwner)).toBeUndefined();
  });
});
