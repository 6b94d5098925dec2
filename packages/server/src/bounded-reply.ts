import { readTextWithin } from '@turngym/core';
import { RemoteProtocolError } from './server-errors';

/**
 * The body of `response` as text, read to at most `limit` bytes: `fetch`'s `json()` and `text()` read whatever a
 * server sends, so a broken or hostile server (or a wrong URL that serves a download) could fill this process's
 * memory before the request's timeout. A body over the limit is refused as soon as its `Content-Length` says so,
 * or as soon as it passes the limit, and the rest is never read: `RemoteProtocolError` (`REPLY_TOO_LARGE`).
 */
export async function readReplyWithin(response: Response, limit: number, target: string): Promise<string> {
  const tooLarge = (): RemoteProtocolError =>
    new RemoteProtocolError(
      'REPLY_TOO_LARGE',
      `${target} sent a reply larger than ${limit} bytes, more than this reply can be; is it a TurnGym env server?`,
    );
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const { text, cut } = await readTextWithin(response.body, limit);
  if (cut) throw tooLarge();
  return text;
}
