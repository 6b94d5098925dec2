import { currentFaultOwner, trackEnvFaultOwners, type EnvFaultOwner, type Logger } from '@turngym/core';

// The owner store lives in core, so that shared pools of env packages (which do not depend on this one) can run
// their own machinery as no session's code (`runUnowned`).
export { currentFaultOwner, runOwnedBy, runUnowned, type EnvFaultOwner } from '@turngym/core';

/** What a session offers its fault owner: the env it serves, and how a fault ends it. */
export interface FaultySession {
  readonly envId: string | undefined;
  /** `error`: what the env code threw, for a session that tells its client (MCP answers with it). */
  fail(error?: unknown): void;
}

/**
 * The fault owner of a session named `name` (`session <id>`, `MCP session <id>`), from its env's build on: `session`
 * finds it (it exists only once its env does). The owner travels with every timer and handle its env code starts,
 * shared pools' workers included, so it must not hold the session itself: a closed session would live as long as
 * they do. Callers look it up by id, or through a WeakRef.
 */
export function sessionFaultOwner(name: string, session: () => FaultySession | undefined): EnvFaultOwner {
  return {
    get label() {
      const envId = session()?.envId;
      return envId === undefined ? name : `${name} (${envId})`;
    },
    fail: (error) => session()?.fail(error),
  };
}

function describe(reason: unknown): string {
  return reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
}

/**
 * Process-wide handlers for faults no request can catch, for a process that serves envs (`turngym serve`):
 * - a promise an env started and never awaited that rejects later is logged, and the server keeps serving
 *   (Node's default, --unhandled-rejections=throw, would end the process and every session with it);
 * - an exception thrown from env code outside any request (a timer's callback) is logged and ends only the
 *   session whose env code threw: that env's state is suspect after it, the other sessions' envs are not;
 * - one thrown from a shared pool's own machinery (`runUnowned`: its workers, timers, dispatch) is logged, and
 *   no session is closed: none of them caused it, and the pool is every session's;
 * - an exception that no env code owns is the server's own bug: logged, then the process exits with code 1,
 *   as Node's default does, since nothing says what state it left behind.
 * Owners are tracked from here on (sessions opened before keep running untracked). Returns a function that
 * removes the handlers. A program that embeds `serveEnvs` decides this for its own process: it may install
 * these handlers, or its own.
 */
export function installEnvFaultGuard(
  logger: Logger,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  const onRejection = (reason: unknown): void => {
    const owner = currentFaultOwner();
    const where = owner ? ` in ${owner.label}` : " (an env's stray promise?)";
    logger.error(`unhandled promise rejection${where}, still serving: ${describe(reason)}`);
  };
  const onException = (error: unknown): void => {
    const owner = currentFaultOwner();
    if (!owner) {
      logger.error(`uncaught exception outside any env's code, exiting: ${describe(error)}`);
      exit(1);
      return;
    }
    const ending = owner.fail ? ', closing it' : '';
    logger.error(`uncaught exception in the env code of ${owner.label}${ending}; still serving: ${describe(error)}`);
    try {
      owner.fail?.(error);
    } catch (failure) {
      logger.error(`closing ${owner.label} failed: ${describe(failure)}`);
    }
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const untrack = trackEnvFaultOwners();
  let installed = true;
  return () => {
    if (!installed) return;
    installed = false;
    untrack();
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
