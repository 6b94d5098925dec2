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

/**
 * Whether a normalised name is loopback: `localhost`, `::1`, or any address of 127.0.0.0/8 (the whole block is
 * loopback, `--host 127.0.0.2` included), also IPv4-mapped (`::ffff:127.0.0.1`). An address literal cannot be
 * a rebinding page's name: only DNS names can be made to resolve to loopback.
 */
function isLoopbackName(name: string): boolean {
  return LOOPBACK.has(name) || /^(?:::ffff:)?127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(name);
}

/** Whether a bind address (`127.0.0.1`, `::1`, `localhost`) is loopback: only such a server is guarded. */
export function isLoopbackBind(host: string): boolean {
  return isLoopbackName(normalHost(host.trim()));
}

/** Whether a `Host` header (`name[:port]`, `[v6][:port]`) names a loopback host. */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  const name = /^(\[[^\]]+\]|[^:]+)(?::\d*)?$/.exec((header ?? '').trim())?.[1];
  return name !== undefined && isLoopbackName(normalHost(name));
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
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(normalHost(url.hostname));
}

/**
 * Why a server bound to `bindHost` refuses a request from the web, if it does; undefined to serve it. A server
 * bound to loopback serves this machine's programs, not the pages its browser shows. Browsers let any page open a
 * WebSocket to 127.0.0.1 (and POST to it), naming the page in `Origin`; a page whose own name resolves to
 * 127.0.0.1 (DNS rebinding) is same-origin to its requests, so its GETs carry no `Origin` at all, only its name in
 * `Host`. Programs send no Origin and the loopback Host they dialled (`127.0.0.1:8000`, `localhost:8000`). A
 * server bound to another interface is its operator's to protect (a token).
 */
export function loopbackRefusal(
  bindHost: string,
  headers: { host?: string | undefined; origin?: string | undefined },
): string | undefined {
  if (!isLoopbackBind(bindHost)) return undefined;
  if (!isLoopbackHostHeader(headers.host)) {
    return 'Host not allowed: a server bound to loopback answers requests naming a loopback host (localhost, 127.0.0.1, [::1])';
  }
  return isLoopbackOrigin(headers.origin) ? undefined : 'Origin not allowed';
}
