import type { Action } from '@turngym/spec';

/** The synchronous hooks of a live session, for a RemoteEnv whose server runs in the same thread. */
export interface SessionHooks {
  fingerprint(action: Action): string;
  anchor(): string;
}

/**
 * Sessions of servers in this thread, by session id. `RemoteEnv.fingerprint()` is synchronous; across
 * processes it blocks on a side request, but a thread cannot block on a server it runs itself, so a
 * RemoteEnv looks here first. Keyed on a `Symbol.for` global so two copies of this package share it.
 */
const KEY = Symbol.for('turngym.server.in-process-sessions');

export function inProcessSessions(): Map<string, SessionHooks> {
  const holder = globalThis as unknown as Record<symbol, Map<string, SessionHooks> | undefined>;
  let sessions = holder[KEY];
  if (!sessions) {
    sessions = new Map();
    holder[KEY] = sessions;
  }
  return sessions;
}
