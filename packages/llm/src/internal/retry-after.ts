/**
 * How long a failed response asks the caller to wait, from its headers, in ms: `retry-after-ms`, then
 * `Retry-After` (seconds or an HTTP date), then, on a 429 only, the rate-limit reset headers OpenAI, Groq and
 * others send instead (`x-ratelimit-reset-requests: 1.5s`, `x-ratelimit-reset-tokens: 6m0s`). Without the
 * last, a 429 that only named its reset was retried on the short backoff and turned away each time until the
 * retries ran out. Undefined when the headers say nothing usable.
 */
export function retryAfterMs(headers: Headers | undefined, status: number | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const header = headers?.get('retry-after')?.trim();
  if (header) {
    if (/^\d+(\.\d+)?$/.test(header)) return Number(header) * 1000;
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  return status === 429 ? rateLimitResetMs(headers) : undefined;
}

/** The limits a reset header may name, each with the header saying how much of it is left. */
const LIMITS = ['requests', 'tokens'] as const;

/**
 * The wait until the exhausted limit resets: the limits whose `x-ratelimit-remaining-*` is 0, or every limit
 * with a reset header when none says so; the longest of them (retrying when only one has reset is turned away).
 */
function rateLimitResetMs(headers: Headers | undefined): number | undefined {
  const resets = LIMITS.map((limit) => ({
    exhausted: headers?.get(`x-ratelimit-remaining-${limit}`)?.trim() === '0',
    ms: duration(headers?.get(`x-ratelimit-reset-${limit}`)),
  })).filter((each): each is { exhausted: boolean; ms: number } => each.ms !== undefined);
  const exhausted = resets.filter((each) => each.exhausted);
  const chosen = exhausted.length > 0 ? exhausted : resets;
  return chosen.length > 0 ? Math.max(...chosen.map((each) => each.ms)) : undefined;
}

const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;

/** A Go-style duration (`6m0s`, `1.5s`, `20ms`, `1h2m3s`) or bare seconds (`7.66`), in ms. */
function duration(text: string | null | undefined): number | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(value)) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  return total;
}
