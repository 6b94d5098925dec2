import type { Action, Space } from '@turngym/spec';

/**
 * Turns a line a person typed into an action for the env's space:
 * - discrete: an index (`2`) or a label (`left`, case-insensitive); anything else goes to the env as text,
 *   which answers it as a malformed action;
 * - tools: a JSON object `{"name": …, "arguments": {…}}` is a function call; any other JSON object is passed
 *   on as it is (the env rejects an action of the wrong type); other text is the env's text syntax;
 * - text: the line itself.
 */
export function parsePlayedAction(line: string, space: Space): Action {
  const text = line.trim();
  switch (space.type) {
    case 'discrete': {
      if (/^-?\d+$/.test(text)) return Number(text);
      const exact = space.labels.indexOf(text);
      if (exact >= 0) return exact;
      const folded = space.labels.findIndex((label) => label.toLowerCase() === text.toLowerCase());
      return folded >= 0 ? folded : text;
    }
    case 'tools': {
      if (!text.startsWith('{')) return text;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return text;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return text;
      const call = parsed as { name?: unknown; arguments?: unknown };
      if (typeof call.name !== 'string') return parsed as Action;
      let args: unknown = call.arguments ?? {};
      if (typeof args === 'string') {
        // OpenAI's wire format carries arguments as a JSON string.
        try {
          args = JSON.parse(args) as unknown;
        } catch {
          return text;
        }
      }
      return { name: call.name, arguments: args as Record<string, unknown> };
    }
    case 'text':
      return line;
  }
}
