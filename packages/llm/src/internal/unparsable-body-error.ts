/** What an `UnparsableBodyError` keeps of the body: enough to see what it was, not a whole page in every record. */
export const MAX_KEPT_BODY_CHARACTERS = 1000;

/**
 * A successful response whose JSON body does not parse: cut short by a proxy or a server that died mid-reply, or a
 * gateway's HTML page sent as `application/json`. The client's own error is a bare `SyntaxError` ("Unexpected end of
 * JSON input") that says neither that the response was a 200 nor what came instead; this one keeps the start of it.
 */
export class UnparsableBodyError extends Error {
  constructor(
    /** The body's first `MAX_KEPT_BODY_CHARACTERS` characters. */
    readonly received: string,
    /** The whole body's length in characters. */
    readonly length: number,
    readonly status: number,
    cause: unknown,
  ) {
    super(`the HTTP ${status} response's body is not JSON (${(cause as Error)?.message ?? String(cause)})`, { cause });
    this.name = 'UnparsableBodyError';
  }
}
