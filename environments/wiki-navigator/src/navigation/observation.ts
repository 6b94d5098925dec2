import type { ExtractedPage } from '../page/extract-page';

/** A page as the env holds it: the server path it came from and what the extraction function read. */
export interface LoadedPage {
  readonly path: string;
  readonly view: ExtractedPage;
}

export interface Note {
  readonly title: string;
  readonly line: number;
  readonly text: string;
}

export interface ObservationParts {
  readonly header: string;
  readonly feedback: readonly string[];
  readonly page: LoadedPage | undefined;
  /** First line shown (1-based). */
  readonly top: number;
  readonly windowLines: number;
  readonly notes: readonly Note[];
  readonly toolCallsLeft: number;
  readonly toolBudget: number;
}

/** Link markers `[#3 Morrow Bay]` as their labels (for notes, which outlive the page's link numbers). */
export function withoutMarkers(text: string): string {
  // A label holds no bracket (extract-page.ts makes them parentheses), so `[^\][]`: with `[^\]]` each unclosed
  // `[#1 ` scanned to the end of the text, quadratic in an agent's CLICK argument (100,000 characters: 6 s).
  return text.replace(/\[#\d+ ([^\][]*)\]/g, '$1');
}

/**
 * The observation text: the task, what the last action did, the window of numbered lines with link markers,
 * the saved notes and the budget left. A pure function of the navigation state: both modes share it.
 */
export function formatObservation(parts: ObservationParts): string {
  const out: string[] = [parts.header];
  out.push(...parts.feedback);
  const page = parts.page;
  if (!page) {
    out.push('(No page is open.)');
  } else {
    const lines = page.view.lines;
    const from = Math.min(Math.max(1, parts.top), Math.max(1, lines.length));
    const to = Math.min(lines.length, from + parts.windowLines - 1);
    const label = page.view.kind === 'article' ? `${page.view.title} (${page.view.type})` : page.view.title;
    out.push(`--- ${label} · lines ${lines.length === 0 ? 0 : from}–${to} of ${lines.length} ---`);
    for (let line = from; line <= to; line++) out.push(`L${line} ${lines[line - 1]?.text ?? ''}`);
    out.push(to < lines.length ? `--- ${lines.length - to} more lines: SCROLL(down) ---` : '--- end of page ---');
  }
  if (parts.notes.length > 0) {
    out.push(`Notes (${parts.notes.length} line${parts.notes.length === 1 ? '' : 's'}):`);
    for (const note of parts.notes) out.push(`- ${note.title} L${note.line}: ${note.text}`);
  }
  out.push(`Tool calls left: ${parts.toolCallsLeft} of ${parts.toolBudget}.`);
  return out.join('\n');
}

/** Link markers `[#3 Morrow Bay]` as the compact style writes them: `[Morrow Bay]` (links are clicked by label). */
export function compactLinks(text: string): string {
  return text.replace(/\[#\d+ ([^\]]*)\]/g, '[$1]');
}

/**
 * The compact observation (`observation: "compact"`), for agents whose context holds the whole episode: the
 * header only when given (the question, on reset), the feedback, and the whole page as `# Title` and its
 * other lines with links written `[label]` (the article type is left out: the infobox's rows say what it is). No line numbers, window frame, notes or budget line: the
 * compact tools need none of them, and the context already shows every earlier turn, so each turn adds only
 * what is new.
 */
export function formatCompactObservation(parts: ObservationParts): string {
  const out: string[] = [];
  if (parts.header) out.push(parts.header);
  out.push(...parts.feedback);
  const page = parts.page;
  if (page) {
    const view = page.view;
    out.push(`# ${view.title}`);
    view.lines.forEach((line, i) => {
      if (!(i === 0 && line.region === 'title')) out.push(compactLinks(line.text));
    });
  }
  return out.join('\n');
}
