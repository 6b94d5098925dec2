/**
 * An env hook's value (`info.anchor`, `info.fingerprint`) as the text states are keyed by: a string as it is; a
 * number, a boolean, an array or an object as JSON with every object's keys sorted, so `{ room: 'hall', floor: 1 }`
 * and `{ floor: 1, room: 'hall' }` are one state (verl-agent's `to_hashable` sorts a dict's items the same way).
 * Null when there is none: missing, null, or holding a value JSON cannot carry (NaN, ±Infinity, a function, a
 * bigint), which would otherwise turn into `null` or vanish and make different states equal. GiGPO keys its step
 * groups with it, CCAPO its history store.
 */
export function anchorText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return null;
  const canonical = canonicalValue(value);
  return canonical === undefined ? null : JSON.stringify(canonical);
}

/** `value` with object keys sorted, or undefined when it holds something JSON cannot carry. */
function canonicalValue(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const items = value.map(canonicalValue);
    return items.includes(undefined) ? undefined : items;
  }
  if (typeof value !== 'object') return undefined;
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(value).sort()) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner === undefined) continue; // as JSON drops it: the same state over the wire and in process
    const canonical = canonicalValue(inner);
    if (canonical === undefined) return undefined;
    entries.push([key, canonical]);
  }
  return Object.fromEntries(entries);
}
