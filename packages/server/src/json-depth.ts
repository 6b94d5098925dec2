import { InvalidRequestError } from './server-errors';

/**
 * Deepest nesting of arrays and objects a client's JSON may have. Real messages stay under ten levels (a tool
 * call's arguments a few more); the limit only has to stop a body like 100,000 `[`s, which JSON.parse reads
 * fine but every recursive walk after it (JSON.stringify, deep equality, schema validation) overflows the stack
 * on: a 500, or worse, where a 4xx is due.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Throws a VALIDATION_ERROR when the JSON text nests deeper than `MAX_JSON_DEPTH`. It scans the text, before
 * it is parsed and without recursion, so the check itself cannot overflow.
 */
export function checkJsonDepth(text: string, loc: readonly (string | number)[]): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i += 1; // a backslash escapes the next character (\" does not end the string)
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) {
        const msg = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
        throw new InvalidRequestError(`Invalid JSON: ${msg}`, [{ type: 'json_invalid', loc: [...loc], msg }]);
      }
    } else if (char === 0x5d || char === 0x7d) {
      depth -= 1;
    }
  }
}
