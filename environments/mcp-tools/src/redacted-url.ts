/**
 * A server URL as messages and the spec may show it: without a user name, a password or query values, which
 * hosted MCP servers often take as credentials (`https://key@host/mcp`, `…/mcp?api_key=…`). Error messages end up
 * in run records and logs, and the spec's summary goes to every client of `turngym serve`.
 */
export function redactedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(an unreadable URL)';
  }
  const credentials = parsed.username !== '' || parsed.password !== '' ? '…@' : '';
  const query = [...parsed.searchParams.keys()].map((key) => `${key}=…`).join('&');
  return `${parsed.protocol}//${credentials}${parsed.host}${parsed.pathname}${query ? `?${query}` : ''}`;
}

/**
 * The parts of a server URL and its headers that `redactedUrl` hides, for a fault message to leave out wherever they
 * turn up: a server that redirects `http://host/mcp?api_key=…` to `https://host/mcp?api_key=…` had the SDK quote the
 * whole target ("Redirect to … not followed"), key and all, and a 401 body may echo the token it refused. Each header
 * value counts whole, and so does its last word when that is long enough to be a token (`Bearer <token>`).
 */
export function urlSecrets(url: string, headers: Readonly<Record<string, string>> = {}): string[] {
  const secrets: string[] = [];
  try {
    const parsed = new URL(url);
    for (const part of [parsed.username, parsed.password, ...parsed.searchParams.values()])
      secrets.push(part, encodeURIComponent(part));
    for (const pair of parsed.search.slice(1).split('&')) secrets.push(pair.slice(pair.indexOf('=') + 1));
  } catch {
    // An unreadable URL has no parts to hide (and is refused as an option before any message).
  }
  for (const value of Object.values(headers)) {
    const last = value.trim().split(/\s+/).pop() ?? '';
    secrets.push(value, ...(last.length >= 8 ? [last] : []));
  }
  return [...new Set(secrets.filter((secret) => secret !== ''))];
}
