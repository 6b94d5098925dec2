/**
 * Reads a byte stream (a fetch `Response.body`) as UTF-8 text, at most `limit` bytes. Past the limit the rest is never
 * read: the stream is cancelled and `cut` is true, `text` holding the first `limit` bytes. What a server sends is not
 * bounded by fetch's `text()` or `json()`: a broken or hostile one (or a URL that serves a download) fills memory until
 * the request's timeout. Each caller decides what a cut body is: an error (a reply that cannot be that large) or the
 * start of an error page kept for the message.
 */
export async function readTextWithin(
  body: ReadableStream<Uint8Array> | null | undefined,
  limit: number,
): Promise<{ text: string; cut: boolean }> {
  if (!body) return { text: '', cut: false };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = limit - bytes;
    if (value.byteLength > room) {
      parts.push(decoder.decode(value.subarray(0, room), { stream: true }), decoder.decode());
      await reader.cancel().catch(() => undefined);
      return { text: parts.join(''), cut: true };
    }
    bytes += value.byteLength;
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return { text: parts.join(''), cut: false };
}
