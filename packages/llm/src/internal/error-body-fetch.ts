/**
 * A `fetch` for the openai client that keeps what a failed response said, and what a successful one sent where its
 * JSON does not parse. The client reads an error body only where it is OpenAI's `{"error": {...}}`: vLLM and SGLang
 * answer `{"object": "error", "message": ...}`, FastAPI servers `{"detail": ...}`, and with those the client's error
 * says "400 status code (no body)" — a context-length error came out with no words at all. It also cannot tell that
 * a 405 came from a redirect that turned the POST into a GET. Each failed response is handed on with its body read
 * (at most `MAX_ERROR_BODY_BYTES`: an error body that never ends is not read to its end) and a note keyed by its
 * `Headers`, the object the client passes on to its `APIError`.
 */

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
 * The body is still read once and parsed once, as the client would.
 */
function keepUnparsableBody(response: Response): void {
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
  if (!mediaType.includes('application/json') && !mediaType.endsWith('+json')) return;
  Object.defineProperty(response, 'json', {
    value: async (): Promise<unknown> => {
      const body = await readReply(response);
      try {
        return JSON.parse(body);
      } catch (error) {
        throw new UnparsableBodyError(body.slice(0, MAX_KEPT_BODY_CHARACTERS), body.length, response.status, error);
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

/** A successful reply whose body is over `MAX_REPLY_BODY_BYTES`: its reading stopped there. */
export class ReplyTooLargeError extends Error {
  constructor(readonly status: number) {
    super(
      `the HTTP ${status} response's body is over ${MAX_REPLY_BODY_BYTES / 1024 / 1024} MiB; reading stopped there`,
    );
    this.name = 'ReplyTooLargeError';
  }
}

async function readReply(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_REPLY_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ReplyTooLargeError(response.status);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

export async function errorBodyFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.status < 400) {
    keepUnparsableBody(response);
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
  notes.set(copy.headers, { text, ...(response.redirected ? { redirectedTo: response.url } : {}) });
  return copy;
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = MAX_ERROR_BODY_BYTES - bytes;
    text += decoder.decode(value.subarray(0, room), { stream: true });
    bytes += Math.min(value.byteLength, room);
    if (bytes >= MAX_ERROR_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return text + decoder.decode();
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
