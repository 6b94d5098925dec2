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
