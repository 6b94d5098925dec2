/**
 * A `fetch` for the openai client that keeps what a failed response said, and what a successful one sent where its
 * JSON does not parse. The client reads an error body only where it is OpenAI's `{"error": {...}}`: vLLM and SGLang
 * answer `{"object": "error", "message": ...}`, FastAPI servers `{"detail": ...}`, and with those the client's error
 * says "400 status code (no body)" — a context-length error came out with no words at all. It also cannot tell that
 * a 405 came from a redirect that turned the POST into a GET. Each failed response is handed on with its body read
 * (at most `MAX_ERROR_BODY_BYTES`: an error body that never ends is not read to its end) and a note keyed by its
 * `Headers`, the object the client passes on to its `APIError`.
 */

import { readTextWithin } from '@turngym/core';
import { CREDENTIAL_HEADER } from './credential-header';
import { MAX_KEPT_BODY_CHARACTERS, UnparsableBodyError } from './unparsable-body-error';

/** What a failed response said, for the error message. */
export interface ErrorResponseNote {
  /** The body as text, cut at `MAX_ERROR_BODY_BYTES`. */
  readonly text: string;
  /** Where a redirect took the request, when one did. */
  readonly redirectedTo?: string;
}

export const MAX_ERROR_BODY_BYTES = 65_536;

const notes = new WeakMap<Headers, ErrorResponseNote>();

/** The note for an `APIError`'s headers, if its response passed through `errorBodyFetch`. */
export function errorResponseNote(headers: Headers | undefined): ErrorResponseNote | undefined {
  return headers ? notes.get(headers) : undefined;
}

/**
 * Makes `response.json()` throw an `UnparsableBodyError` that keeps what was received, where the body is not JSON.
 * The body is still read once and parsed once, as the client would. Every way the client reads a successful body is
 * bounded: `json()` and `text()` (what it calls for a reply that is not `application/json`: `text/plain`, no
 * content type) to `MAX_REPLY_BODY_BYTES` in all, and `body` (what it reads a stream from) to
 * `MAX_REPLY_BODY_BYTES` per event (see `wholeEvents`). Only the one that was read was bounded: a 200 sent as
 * `text/plain`, or a stream event that never ended, was read into memory until the timeout, then retried.
 */
function boundReplyBody(response: Response): void {
  const body = response.body;
  if (!body) return;
  let wrapped: ReadableStream<Uint8Array> | undefined;
  Object.defineProperty(response, 'body', {
    get: () => (wrapped ??= wholeEvents(body, response.status)),
  });
  Object.defineProperty(response, 'text', { value: () => readReply(body, response.status) });
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
  if (!mediaType.includes('application/json') && !mediaType.endsWith('+json')) return;
  Object.defineProperty(response, 'json', {
    value: async (): Promise<unknown> => {
      const text = await readReply(body, response.status);
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new UnparsableBodyError(text.slice(0, MAX_KEPT_BODY_CHARACTERS), text.length, response.status, error);
      }
    },
  });
}

/**
 * Most bytes of a successful reply's body. A reply is at most `maxReplyChars` (1,000,000 by default) of text plus its
 * JSON and, with logprobs, ~60 bytes per alternative: tens of MB at the very most. A server that kept sending (a bug,
 * a proxy looping) was read into memory until the timeout, then retried as a timeout.
 */
export const MAX_REPLY_BODY_BYTES = 64 * 1024 * 1024;

/** A successful reply whose body, or one event of whose stream, is over `MAX_REPLY_BODY_BYTES`: reading stopped there. */
export class ReplyTooLargeError extends Error {
  constructor(
    readonly status: number,
    what: 'body' | 'event' = 'body',
  ) {
    super(
      what === 'body'
        ? `the HTTP ${status} response's body is over ${MAX_REPLY_BODY_BYTES / 1024 / 1024} MiB; reading stopped there`
        : `one event of the HTTP ${status} response's stream is over ${MAX_REPLY_BODY_BYTES / 1024 / 1024} MiB ` +
            'without ending (no blank line); reading stopped there',
    );
    this.name = 'ReplyTooLargeError';
  }
}

async function readReply(body: ReadableStream<Uint8Array>, status: number): Promise<string> {
  const { text, cut } = await readTextWithin(body, MAX_REPLY_BODY_BYTES);
  if (cut) throw new ReplyTooLargeError(status);
  return text;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * A stream's bytes handed on in whole server-sent events (each ends at a blank line), an event over
 * `MAX_REPLY_BODY_BYTES` an error. The client joins what it is given to what it holds and searches the lot for a
 * blank line again at every network chunk: one event of a few MB, arriving in 64 KiB pieces, cost it quadratic time
 * (an endless one held the event loop for seconds at a time until the timeout), and nothing bounded it.
 */
function wholeEvents(body: ReadableStream<Uint8Array>, status: number): ReadableStream<Uint8Array> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  // Bytes since the last line break; whether the last byte was a CR (a CRLF is one line break), and whether that CR
  // ended a blank line (the LF after it then belongs to the event it ends, or the client waits for it).
  let lineLength = 0;
  let afterCR = false;
  let blankCR = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let end = -1;
        for (let index = 0; index < chunk.length; index++) {
          const byte = chunk[index];
          if (byte === LF && afterCR) {
            if (blankCR) end = index + 1;
            afterCR = blankCR = false;
          } else if (byte === LF || byte === CR) {
            if (lineLength === 0) end = index + 1;
            afterCR = byte === CR;
            blankCR = afterCR && lineLength === 0;
            lineLength = 0;
          } else {
            lineLength += 1;
            afterCR = blankCR = false;
          }
        }
        if (end < 0) {
          held.push(chunk);
          heldBytes += chunk.byteLength;
          if (heldBytes > MAX_REPLY_BODY_BYTES) throw new ReplyTooLargeError(status, 'event');
          return;
        }
        controller.enqueue(joined([...held, chunk.subarray(0, end)]));
        held = end < chunk.length ? [chunk.subarray(end)] : [];
        heldBytes = chunk.length - end;
      },
      flush(controller) {
        if (heldBytes > 0) controller.enqueue(joined(held));
      },
    }),
  );
}

function joined(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.byteLength;
  }
  return whole;
}

/**
 * fetch failed at the host a redirect named: the error says so, where "could not connect: is a server running at"
 * the base URL sent the user to the server that had answered.
 */
export class RedirectFailedError extends Error {
  constructor(
    /** Where the redirect pointed. */
    readonly redirectedTo: string,
    cause: unknown,
  ) {
    super(`fetch failed after a redirect to ${redirectedTo}`, { cause });
    this.name = 'RedirectFailedError';
  }
}

function urlOrUndefined(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** Redirects followed, as fetch follows them. */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * fetch with redirects followed as fetch follows them, except that credential headers (see `CREDENTIAL_HEADER`) are
 * not sent on to another host: fetch drops only `Authorization` there, and an Azure `api-key` or a gateway's
 * `x-api-key` reached whatever host a redirect named. An upgrade to `https://` on the same host keeps them.
 * `redirectedTo`: where the last redirect took the request, if one did.
 */
async function fetchFollowing(
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<{ response: Response; redirectedTo?: string }> {
  if (input instanceof Request) return { response: await fetch(input, init) };
  let url = new URL(input);
  let request: RequestInit = { ...init, redirect: 'manual' };
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(url, request);
    } catch (error) {
      // An abort is handed on as it is: the client tells a timeout and a caller's abort by it.
      if (hop === 0 || init?.signal?.aborted) throw error;
      throw new RedirectFailedError(url.href, error);
    }
    const location = response.headers.get('location');
    // As fetch, only to http(s): fetch itself reads `data:` and `blob:` URLs, which a redirect must not reach.
    const next = location === null ? undefined : urlOrUndefined(location, url);
    if (
      !REDIRECT_STATUSES.has(response.status) ||
      !next ||
      (next.protocol !== 'http:' && next.protocol !== 'https:') ||
      hop === MAX_REDIRECTS
    )
      return { response, ...(hop > 0 ? { redirectedTo: url.href } : {}) };
    await response.body?.cancel().catch(() => undefined);
    const sameHost = next.origin === url.origin || (next.hostname === url.hostname && next.protocol === 'https:');
    const headers = new Headers(request.headers);
    if (!sameHost) for (const name of [...headers.keys()]) if (CREDENTIAL_HEADER.test(name)) headers.delete(name);
    // As fetch: a 303, and a 301 or 302 of a POST, goes on as a GET without the body.
    const method = (request.method ?? 'GET').toUpperCase();
    const toGet =
      (response.status === 303 && method !== 'HEAD') || ([301, 302].includes(response.status) && method === 'POST');
    if (toGet) for (const name of ['content-type', 'content-length', 'content-encoding']) headers.delete(name);
    request = { ...request, headers, ...(toGet ? { method: 'GET', body: null } : {}) };
    url = next;
  }
}

export async function errorBodyFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const { response, redirectedTo } = await fetchFollowing(input, init);
  if (response.status < 400) {
    boundReplyBody(response);
    return response;
  }
  // Statuses past 599 cannot be rebuilt as a Response; the client reports them as they come.
  if (response.status > 599) return response;
  const text = await readCapped(response);
  const headers = new Headers(response.headers);
  // The text is already decoded and may be cut: the original length and encoding no longer describe it.
  headers.delete('content-length');
  headers.delete('content-encoding');
  const copy = new Response(text, { status: response.status, statusText: response.statusText, headers });
  notes.set(copy.headers, { text, ...(redirectedTo !== undefined ? { redirectedTo } : {}) });
  return copy;
}

async function readCapped(response: Response): Promise<string> {
  return (await readTextWithin(response.body, MAX_ERROR_BODY_BYTES)).text;
}

/**
 * The words of an error body whatever its shape: OpenAI's `error.message`, a bare `error` string (Ollama, TGI),
 * a top-level `message` (vLLM, SGLang), FastAPI's `detail` (a string, or a list of `{msg}`), an HTML page's
 * title (a proxy's error page), or the text itself; one line, at most `limit` characters. Undefined when empty.
 */
export function errorBodyText(text: string, limit = 300): string | undefined {
  let said: string | undefined;
  try {
    said = wordsOf(JSON.parse(text));
  } catch {
    said = undefined;
  }
  if (said === undefined) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
    said = /<(!doctype|html|head|body)\b/i.test(text)
      ? `an HTML page${title?.trim() ? ` titled "${title.trim()}"` : ''}, not an API error (a proxy or gateway in between?)`
      : text;
  }
  const line = said.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}

function wordsOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, message, detail } = body as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof error === 'string') return error;
  const nested = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof nested === 'string') return nested;
  if (typeof message === 'string') return message;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail
      .map((each) => (each as { msg?: unknown } | null)?.msg)
      .filter((msg) => typeof msg === 'string');
    if (parts.length > 0) return parts.join('; ');
  }
  return undefined;
}
