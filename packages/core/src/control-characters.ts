// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- the same, but line feeds and tabs, which lay out a block of text
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with its control characters (C0, DEL, C1) and bidi overrides written as visible `\u001b` escapes. Text an
 * env, a program or a model wrote carries them to wherever it is shown: a terminal runs the `\x1b[…` and OSC
 * sequences it is sent (clear the screen, retitle the window, write the clipboard with OSC 52), a carriage return
 * overwrites the line, a bidi override reorders what follows it, and a NUL is refused by many stores and tokenizers.
 * `keepLayout` keeps line feeds and tabs, for a block of text rather than a table cell.
 */
export function showControlCharacters(text: string, keepLayout = false): string {
  return text.replace(
    keepLayout ? CONTROLS_BUT_LAYOUT : CONTROLS,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
