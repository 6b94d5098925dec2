/**
 * A model server's request body read as JSON, or what is wrong with it in words a client can act on. Shared by
 * `serveChatModel` and `turngym serve-model`'s `/v1/completions`, which answered every unreadable body with the same
 * "The request body is not valid JSON": no where, no why, and the same words for an empty body, a form, and a
 * gzip-compressed body (which no error told the sender was not accepted).
 */

/** Why a request body could not be read, with the status and OpenAI-style error code to answer. */
export interface RequestBodyProblem {
  readonly status: 400 | 415;
  readonly code: 'invalid_json' | 'unsupported_content_encoding';
  readonly message: string;
}

export type ParsedRequestJson =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: RequestBodyProblem };

/** The request's `content-type` and `content-encoding` headers, as Node's `IncomingMessage.headers` holds them. */
export interface RequestBodyHeaders {
  readonly 'content-type'?: string | undefined;
  readonly 'content-encoding'?: string | undefined;
}

/**
 * Parses `text`, the request body, as JSON. A compressed body (`Content-Encoding` other than identity) is refused with
 * 415, naming the encoding; a leading byte-order mark (some editors and Windows tools write one) is skipped; a body that
 * does not parse gets the parser's words and, where they give a position, its line and column.
 */
export function parseRequestJson(text: string, headers: RequestBodyHeaders = {}): ParsedRequestJson {
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity')
    return failed(
      415,
      'unsupported_content_encoding',
      `This server does not accept compressed request bodies (Content-Encoding: ${encoding}): send the JSON uncompressed.`,
    );
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (json.trim() === '')
    return failed(400, 'invalid_json', 'The request body is empty: send the request as a JSON object.');
  try {
    return { ok: true, value: JSON.parse(json) };
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    const type = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    const form = type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data';
    return failed(
      400,
      'invalid_json',
      // The parser's quote of the text may hold line breaks: shown escaped, the message stays one line.
      `The request body is not valid JSON: ${said.replace(/\r/g, '\\r').replace(/\n/g, '\\n')}${lineAndColumn(json, said)}` +
        (form ? ` (it was sent as ${type}: send a JSON object with content-type: application/json)` : ''),
    );
  }
}

function failed(status: 400 | 415, code: RequestBodyProblem['code'], message: string): ParsedRequestJson {
  return { ok: false, problem: { status, code, message } };
}

/**
 * ` (line L, column C)` of the parser's error, where its words give a position: V8 says "at position N" for some
 * errors and, for an unexpected token, quotes ten characters either side of it (`..."abc, ] }"...`), which are found
 * in the text. Lines and columns count from 1; '' when the position is not known.
 */
function lineAndColumn(text: string, said: string): string {
  let position: number | undefined;
  const stated = /at position (\d+)/.exec(said)?.[1];
  if (stated !== undefined) position = Number(stated);
  else {
    // V8 quotes the text from ten characters before the token to ten after, marking a cut end with "...".
    const quoted = /^Unexpected token .*?, (\.\.\.)?"(.*)"(\.\.\.)? is not valid JSON$/s.exec(said);
    const [, cutBefore, snippet, cutAfter] = quoted ?? [];
    const found = snippet === undefined ? -1 : text.indexOf(snippet);
    // A snippet found twice cannot say which is meant; one not cut at either end is the whole text, whose position
    // it does not give.
    if (snippet !== undefined && found >= 0 && text.indexOf(snippet, found + 1) < 0) {
      if (cutBefore) position = found + 10;
      else if (cutAfter) position = snippet.length - 10;
    }
  }
  if (position === undefined || position > text.length) return '';
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  return ` (line ${line}, column ${column})`;
}
