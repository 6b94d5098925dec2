/**
 * Which cluster worker holds the session a connection names. A worker's session ids start with `w<index>-`
 * (`serveAsWorker` sets the prefix), so the primary can route a fork claim (`/ws?session=<id>`, `/mux` is not
 * needed: a mux connection claims its forks on itself) and RemoteEnv's side requests
 * (`/sessions/<id>/fingerprint`) to the worker that holds the session, from the request line alone.
 */

const SESSION_PATH = /\/sessions\/w(\d{1,4})-[A-Za-z0-9-]*\//;
const SESSION_QUERY = /[?&]session=w(\d{1,4})-/;

/** The prefix of session ids made by worker `index`. */
export function workerSessionPrefix(index: number): string {
  return `w${index}-`;
}

/**
 * The worker index a request line (`GET /ws?session=w1-… HTTP/1.1`) routes to, or undefined when it names no
 * session (a new session, `/health`, …: any worker will do).
 */
export function workerOfRequestLine(line: string): number | undefined {
  const target = line.split(' ')[1];
  if (target === undefined) return undefined;
  const found = SESSION_PATH.exec(target) ?? SESSION_QUERY.exec(target);
  return found ? Number(found[1]) : undefined;
}
