// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- the same, but line feeds and tabs, which lay out a block of text
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text an env or a model wrote, made safe to print on a terminal: control characters (C0, DEL, C1) and bidi
 * overrides become visible `\u001b` escapes. A terminal runs the `\x1b[…` and OSC sequences it is sent (clear the
 * screen, retitle the window, write the clipboard with OSC 52), a carriage return overwrites the line, and a bidi
 * override reorders what follows it; a program's output under RUN, a wiki page or an LLM buyer's reply is not the
 * operator's to run. `keepLayout` keeps line feeds and tabs, for a block of text rather than a table cell.
 */
export function terminalText(text: string, keepLayout = false): string {
  return text.replace(
    keepLayout ? CONTROLS_BUT_LAYOUT : CONTROLS,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
