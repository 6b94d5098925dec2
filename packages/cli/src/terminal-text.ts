import { showControlCharacters } from '@turngym/core';

/**
 * Text an env or a model wrote, made safe to print on a terminal (core's `showControlCharacters`): a program's
 * output under RUN, a wiki page or an LLM buyer's reply is not the operator's to run. `keepLayout` keeps line feeds
 * and tabs, for a block of text rather than a table cell.
 */
export function terminalText(text: string, keepLayout = false): string {
  return showControlCharacters(text, keepLayout);
}
