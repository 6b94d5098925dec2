import type { IncomingMessage } from 'node:http';

/** Whether an `Accept` header admits `type` (`application/json`): itself, `application/*` or `*\/*`, unless q=0. */
function admits(header: string, type: string): boolean {
  const ranges = header.split(',').map((part) => {
    const [range, ...params] = part.split(';');
    const refused = params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(param));
    return { range: (range ?? '').trim().toLowerCase(), refused };
  });
  // The most specific range decides (RFC 9110 §12.5.1): `application/json;q=0, *\/*` refuses JSON.
  for (const candidate of [type, `${type.split('/')[0]}/*`, '*/*']) {
    const found = ranges.find(({ range }) => range === candidate);
    if (found) return !found.refused;
  }
  return false;
}

/**
 * What the MCP SDK's transport wants in `Accept`, for a request whose own `Accept` admits the reply this server
 * sends; otherwise the header as it came (the transport then answers 406 Not Acceptable). MCP clients must list
 * both `application/json` and `text/event-stream`, and the transport takes nothing less; but this server answers
 * every POST with JSON (`enableJsonResponse`), so `*\/*` (what curl, Python's requests and httpx send),
 * `application/*`, `application/json` alone, or no header at all (RFC 9110: anything) take that reply as well as
 * the full list does. A GET opens the event stream, which `*\/*`, `text/*` or no header take.
 */
export function transportAccept(method: string | undefined, header: string | undefined): string | undefined {
  const needed =
    method === 'POST' ? ['application/json', 'text/event-stream'] : method === 'GET' ? ['text/event-stream'] : [];
  const served = method === 'POST' ? 'application/json' : 'text/event-stream';
  if (needed.length === 0 || !admits(header ?? '*/*', served)) return header;
  const missing = needed.filter((type) => !(header ?? '').toLowerCase().includes(type));
  if (missing.length === 0) return header;
  return [...(header?.trim() ? [header] : []), ...missing].join(', ');
}

/**
 * Rewrites a request's `Accept` as `transportAccept` says, in `headers` and in `rawHeaders` (the SDK's transport
 * builds its web `Request` from the raw list).
 */
export function normaliseAccept(request: IncomingMessage): void {
  const header = request.headers.accept;
  const wanted = transportAccept(request.method, header);
  if (wanted === undefined || wanted === header) return;
  request.headers.accept = wanted;
  const raw = request.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i]?.toLowerCase() === 'accept') raw.splice(i, 2);
  raw.push('Accept', wanted);
}
