/**
 * A copy of an error in which a secret (the API key) is masked everywhere it could be printed: its message and
 * stack, the parsed body and response headers the openai client keeps on an `APIError`, and its causes. A gateway
 * or debugging proxy that echoes the request's headers puts the key into all of them, and `console.error(error)`
 * or `util.inspect` of the error that holds this one as `cause` prints every one. The copy keeps the original's
 * prototype (an `APIError` stays one) and its other fields.
 */
export function redactedError<T>(error: T, mask: (text: string) => string): T {
  return redact(error, mask, new Map()) as T;
}

function redact(value: unknown, mask: (text: string) => string, seen: Map<object, unknown>): unknown {
  if (typeof value === 'string') return mask(value);
  if (typeof value !== 'object' || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (value instanceof Headers) {
    const headers = new Headers();
    value.forEach((text, name) => headers.append(name, mask(text)));
    seen.set(value, headers);
    return headers;
  }
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const each of value) copy.push(redact(each, mask, seen));
    return copy;
  }
  const prototype = Object.getPrototypeOf(value) as object | null;
  // Errors and plain data (a parsed body) are copied; anything else (a socket, a Response) is left as it is.
  if (!(value instanceof Error) && prototype !== Object.prototype && prototype !== null) return value;
  const copy = Object.create(prototype) as object;
  seen.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor) continue;
    // An accessor (a newer V8's `stack`) is read once and kept as a value: its getter would not run on the copy.
    let field: unknown;
    try {
      field = 'value' in descriptor ? descriptor.value : (value as Record<PropertyKey, unknown>)[key];
    } catch {
      continue;
    }
    Object.defineProperty(copy, key, {
      value: redact(field, mask, seen),
      writable: true,
      enumerable: descriptor.enumerable ?? false,
      configurable: true,
    });
  }
  return copy;
}
