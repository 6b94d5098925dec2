const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * A host name as the loopback checks compare it: without the brackets of an IPv6 literal, in lower case and
 * without the trailing dot of a fully qualified name, since host names are case-insensitive (RFC 9110 §4.2.3)
 * and `localhost.` is the same host as `localhost`.
 */
function normalHost(name: string): string {
  return name
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

/** Whether a bind address (`127.0.0.1`, `::1`, `localhost`) is loopback: only such a server is guarded. */
export function isLoopbackBind(host: string): boolean {
  return LOOPBACK.has(normalHost(host.trim()));
}

/** Whether a `Host` header (`name[:port]`, `[v6][:port]`) names a loopback host. */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  const name = /^(\[[^\]]+\]|[^:]+)(?::\d*)?$/.exec((header ?? '').trim())?.[1];
  return name !== undefined && LOOPBACK.has(normalHost(name));
}

/**
 * Whether an `Origin` header allows a request to a loopback server: absent (programs such as OpenEnv's Python
 * client send none; browsers always send one with a WebSocket and a POST), or a page served from loopback
 * itself. Any other origin is a web page the user happens to visit, which must not drive local envs through the
 * user's browser (cross-site WebSocket hijacking, DNS rebinding); `null` (a sandboxed frame, a file) is refused.
 */
export function isLoopbackOrigin(header: string | undefined): boolean {
  if (header === undefined) return true;
  let url: URL;
  try {
    url = new URL(header.trim());
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK.has(normalHost(url.hostname));
}
