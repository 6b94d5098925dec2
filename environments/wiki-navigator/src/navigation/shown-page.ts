import type { ExtractedPage, PageLine, PageLink } from '../page/extract-page';
import type { ObservationStyle } from '../wiki-navigator-options';

export interface ShownPageOptions {
  readonly observation: ObservationStyle;
  /** Search results kept (the first ones, in BM25 order). */
  readonly maxResults: number;
}

/** A results line starts with its result's link: `[#3 Morrow Bay]: Morrow Bay is a city in …`. */
const RESULT_START = /^\[#\d+ [^\]]*\]/;
const MARKER = /\[#(\d+) /g;
/** A whole marker: link texts hold no `]` (the extraction writes brackets in them as parentheses). */
const LABELLED_MARKER = /\[#(\d+) ([^\]]*)\]/g;

/**
 * The page as the env shows it, derived from what the extraction function read (which stays the same in
 * both modes and both styles, so the browser/direct equivalence is untouched):
 * - search results beyond `maxResults` are dropped (a result may span several lines);
 * - `compact`: an article keeps its title and infobox rows — every fact and link field the generated
 *   questions read — or its title and lead when it has no infobox; a result keeps only its title link.
 * Links that no kept line shows are dropped and the rest renumbered in order of appearance, so a compact
 * page offers exactly the links it shows. Returns the page itself when nothing is dropped.
 */
export function shownPage(view: ExtractedPage, options: ShownPageOptions): ExtractedPage {
  const compact = options.observation === 'compact';
  let lines: readonly PageLine[] = view.lines;
  if (view.kind === 'search') {
    let results = 0;
    const kept: PageLine[] = [];
    for (const line of lines) {
      if (line.region !== 'results') {
        kept.push(line);
        continue;
      }
      const start = RESULT_START.exec(line.text);
      if (start) results += 1;
      // Lines before the first result are the page's notice ("No article matches …").
      if (results === 0) kept.push(line);
      else if (results <= options.maxResults && (start || !compact))
        kept.push(compact && start ? { ...line, text: start[0] } : line);
    }
    lines = kept;
  } else if (compact && view.kind === 'article') {
    const hasInfobox = lines.some((line) => line.region === 'infobox');
    const keep = hasInfobox ? 'infobox' : 'lead';
    lines = lines.filter((line) => line.region === 'title' || line.region === keep);
  }
  if (lines.length === view.lines.length && lines.every((line, i) => line === view.lines[i])) return view;
  return { ...renumberLinks(lines, view.links), kind: view.kind, type: view.type, title: view.title };
}

/**
 * Keeps the links the lines show, numbered 1, 2, … in order of first appearance (as the extraction does), each
 * with the labels the kept lines show for it.
 */
function renumberLinks(
  lines: readonly PageLine[],
  links: readonly PageLink[],
): { lines: PageLine[]; links: PageLink[] } {
  const numbers = new Map<number, number>();
  const kept: Array<PageLink & { labels: string[] }> = [];
  for (const line of lines) {
    for (const match of line.text.matchAll(LABELLED_MARKER)) {
      const old = Number(match[1]);
      const label = match[2] as string;
      const link = links[old - 1];
      if (!link) continue;
      const number = numbers.get(old);
      if (number === undefined) {
        kept.push({ ...link, label, labels: [label] });
        numbers.set(old, kept.length);
      } else {
        const labels = (kept[number - 1] as { labels: string[] }).labels;
        if (!labels.includes(label)) labels.push(label);
      }
    }
  }
  return {
    lines: lines.map((line) => {
      const text = line.text.replace(MARKER, (marker, old: string) => {
        const number = numbers.get(Number(old));
        return number === undefined ? marker : `[#${number} `;
      });
      return text === line.text ? line : { ...line, text };
    }),
    links: kept,
  };
}
