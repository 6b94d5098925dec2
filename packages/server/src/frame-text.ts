/*
 * ws's RawData, written out: index.ts exports decodeUtf8 from this file, so its .d.ts is public, and importing the
 * type from 'ws' made an API user's strict build need @types/ws (error TS7016) although no exported function takes
 * a frame.
 */
type RawData = Buffer | ArrayBuffer | Buffer[];

/** Fatal: invalid UTF-8 throws instead of becoming U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of `bytes`, or undefined when they are not UTF-8. Buffer's own decoding would turn the bad bytes into
 * U+FFFD and hand the env an action (or a request) the client never sent: callers refuse it instead.
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Why a frame is refused when its bytes are not UTF-8: the INVALID_JSON message. */
export const NOT_UTF8 = 'Invalid JSON: the frame is not valid UTF-8';

/**
 * The text of a WebSocket frame, or undefined when its bytes are not UTF-8. The `ws` layer checks a text frame
 * itself (close code 1007), but a binary frame arrives as it is, and Buffer's own decoding would turn the bad
 * bytes into U+FFFD: the env would get an action the client never sent. Callers refuse it (INVALID_JSON), as an
 * HTTP body that is not UTF-8 is refused.
 */
export function frameText(raw: RawData): string | undefined {
  return decodeUtf8(Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : new Uint8Array(raw));
}

/** The size of a WebSocket frame, in bytes, whatever form `ws` delivered it in. */
export function frameByteLength(raw: RawData): number {
  if (Buffer.isBuffer(raw)) return raw.length;
  if (Array.isArray(raw)) return raw.reduce((sum, part) => sum + part.length, 0);
  return raw.byteLength;
}
