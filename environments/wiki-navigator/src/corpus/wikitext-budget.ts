/**
 * Bounds on the work wtf_wikipedia does for one page. Left alone, its time grows with the square of a page's
 * size in three places, so that one hostile or merely odd page stalled a whole dump conversion:
 * - its sentence splitter (`/(\S.+?[.!?]"?)(?=\s|$)/`) scans from every character of a line to the line's next
 *   sentence end: a paragraph of 190,000 characters with no `. ` took 154 s, one of 26,000 5 s (headings and table
 *   rows likewise);
 * - its template parser rewrites the page once per template: 20,000 templates took 8 s;
 * - it nests one call per template level: 1,000 nested templates took 5.5 s, 2,000 overflowed the stack and
 *   failed the whole conversion.
 * `boundWikitext` runs before wtf, in time linear in the page, and leaves a page that is under every bound as it
 * is, character for character:
 * - a paragraph line's long run without a sentence end is broken by a newline at a space outside any template,
 *   link, tag and bold or italic run, every `SENTENCE_RUN` characters: wtf reads a single newline inside a
 *   paragraph as a space, as the wiki does, so the text is unchanged (nothing is lost);
 * - what is left over the bounds is left out, and the page says so (`degraded`): templates after the
 *   `MAX_TEMPLATES`th, templates nested deeper than `MAX_TEMPLATE_DEPTH`, and lines that still hold a run of over
 *   `MAX_RUN` characters with no sentence end (a heading, a table row, a run inside a template or a link).
 * The bounds are counts, not a clock: the same dump converts to the same corpus on any machine.
 */

/** Templates a page may hold (all levels): real articles hold a few hundred, the largest about 2,000. */
export const MAX_TEMPLATES = 5000;
/** Templates × characters a page's templates may cost wtf_wikipedia (see `templateBudget`). */
export const MAX_TEMPLATE_WORK = 1_000_000_000;
/** How deep templates may nest: real pages nest a handful deep (MediaWiki itself stops expanding at 40). */
export const MAX_TEMPLATE_DEPTH = 40;
/** A paragraph line's run without a sentence end is broken after this many characters. */
export const SENTENCE_RUN = 1000;
/** A line that still holds a longer run without a sentence end is left out. */
export const MAX_RUN = 2000;

export interface BoundedWikitext {
  readonly wikitext: string;
  /** What was left out, in words (`"3 templates after the 5000th"`); empty when the page is whole. */
  readonly leftOut: readonly string[];
}

/**
 * The end (exclusive) of the template that opens at `start` (`{{`), or -1 when it is never closed. Braces are
 * counted in pairs, as wtf_wikipedia counts them.
 */
function templateEnd(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    if (text.startsWith('{{', i)) {
      depth += 1;
      i += 2;
    } else if (text.startsWith('}}', i)) {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else {
      i += 1;
    }
  }
  return -1;
}

/**
 * How many templates a page of `length` characters may hold: wtf_wikipedia rewrites the text around each template
 * once, so its time grows with templates × characters (3,000 templates in 78,000 characters took a second). At most
 * `MAX_TEMPLATES`, fewer on long pages: 5,000 up to 200,000 characters, 1,000 on a page of a million.
 */
export function templateBudget(length: number): number {
  return Math.min(MAX_TEMPLATES, Math.floor(MAX_TEMPLATE_WORK / Math.max(1, length)));
}

/** Templates past the page's `templateBudget` and below `MAX_TEMPLATE_DEPTH` removed, with how many of each. */
function boundTemplates(text: string): { text: string; late: number; deep: number; budget: number } {
  const budget = templateBudget(text.length);
  let late = 0;
  let deep = 0;
  let count = 0;
  let depth = 0;
  let out = '';
  let copied = 0;
  const braces = /\{\{|\}\}/g;
  for (let match = braces.exec(text); match; match = braces.exec(text)) {
    if (match[0] === '}}') {
      if (depth > 0) depth -= 1;
      continue;
    }
    count += 1;
    if (count <= budget && depth < MAX_TEMPLATE_DEPTH) {
      depth += 1;
      continue;
    }
    const end = templateEnd(text, match.index);
    // Never closed: the rest of the page is no template the wiki would expand, and wtf shows it as text.
    if (end < 0) break;
    if (count > budget) late += 1;
    else deep += 1;
    out += text.slice(copied, match.index);
    copied = end;
    braces.lastIndex = end;
  }
  if (copied === 0) return { text, late, deep, budget };
  return { text: out + text.slice(copied), late, deep, budget };
}

/** Whether a line is a paragraph's (not a list item, heading, table row, preformatted text or a tag's line). */
function isParagraphLine(text: string, start: number): boolean {
  return !/[*#:;|!=\s<]/.test(text[start] ?? '') && !text.startsWith('{|', start);
}

/**
 * Long runs without a sentence end broken at safe spaces, and lines that keep a run over `MAX_RUN` left out.
 * One pass over the page; its state (templates, links, tags, tables) carries over lines.
 */
function boundRuns(text: string): { text: string; lines: number } {
  // Fast path: no line long enough to hold a run worth breaking.
  let longest = 0;
  for (let start = 0; start <= text.length;) {
    const end = text.indexOf('\n', start);
    const stop = end < 0 ? text.length : end;
    longest = Math.max(longest, stop - start);
    start = stop + 1;
  }
  if (longest <= SENTENCE_RUN) return { text, lines: 0 };
  let templates = 0;
  let links = 0;
  let tables = 0;
  let inTag = false;
  let inComment = false;
  let inRef = false;
  const lines: string[] = [];
  let dropped = 0;
  let begin = 0;
  let paragraph = isParagraphLine(text, 0);
  let runStart = 0;
  let longRun = false;
  let quotes = 0;
  // A line is left out only when it is whole on its own: one that opens or closes a template, a link, a
  // reference or a comment of another line is kept, since leaving it out would unbalance the rest of the page.
  const outside = (): boolean => templates === 0 && links === 0 && !inRef && !inComment;
  let opensOutside = true;
  const endLine = (end: number): void => {
    if (longRun && opensOutside && outside()) dropped += 1;
    else lines.push(text.slice(begin, end));
    begin = end + 1;
    runStart = end + 1;
    longRun = false;
    opensOutside = outside();
  };
  for (let i = 0; i < text.length; i++) {
    const character = text[i] as string;
    if (character === '\n') {
      endLine(i);
      quotes = 0;
      if (text.startsWith('{|', i + 1)) tables += 1;
      else if (text.startsWith('|}', i + 1) && tables > 0) tables -= 1;
      paragraph = tables === 0 && outside() && isParagraphLine(text, i + 1);
      continue;
    }
    if (i === 0 && text.startsWith('{|')) tables = 1;
    if (inComment) {
      if (text.startsWith('-->', i)) inComment = false;
    } else if (character === '{' && text[i + 1] === '{') {
      templates += 1;
      i += 1;
    } else if (character === '}' && text[i + 1] === '}' && templates > 0) {
      templates -= 1;
      i += 1;
    } else if (character === '[' && text[i + 1] === '[') {
      links += 1;
      i += 1;
    } else if (character === ']' && text[i + 1] === ']' && links > 0) {
      links -= 1;
      i += 1;
    } else if (character === '<') {
      if (text.startsWith('<!--', i)) inComment = true;
      else {
        inTag = true;
        const tag = text.slice(i, i + 300);
        if (/^<ref[\s>]/i.test(tag) && !/^<ref[^>]*\/>/i.test(tag)) inRef = true;
        else if (/^<\/ref\s*>/i.test(tag)) inRef = false;
      }
    } else if (character === '>') {
      inTag = false;
    } else if (character === "'" && text[i + 1] === "'") {
      while (text[i + 1] === "'") i += 1;
      quotes += 1;
    } else if ((character === '.' || character === '!' || character === '?') && /^\s?$/.test(text[i + 1] ?? '')) {
      runStart = i + 1;
    } else if (i - runStart > SENTENCE_RUN && (character === ' ' || character === '\t')) {
      if (paragraph && templates === 0 && links === 0 && !inTag && !inRef && !inComment && quotes % 2 === 0) {
        // The space becomes the newline: wtf reads a newline inside a paragraph as a space.
        endLine(i);
        continue;
      }
    }
    if (i - runStart > MAX_RUN && !inComment) longRun = true;
  }
  endLine(text.length);
  return { text: lines.join('\n'), lines: dropped };
}

/** The page's wikitext within the bounds above, and what was left out to keep it there. */
export function boundWikitext(wikitext: string): BoundedWikitext {
  const templates = wikitext.includes('{{')
    ? boundTemplates(wikitext)
    : { text: wikitext, late: 0, deep: 0, budget: MAX_TEMPLATES };
  const runs = boundRuns(templates.text);
  const leftOut: string[] = [];
  if (templates.late > 0) leftOut.push(`${templates.late} templates after the ${templates.budget}th`);
  if (templates.deep > 0) leftOut.push(`${templates.deep} templates nested over ${MAX_TEMPLATE_DEPTH} deep`);
  if (runs.lines > 0)
    leftOut.push(`${runs.lines} lines with over ${MAX_RUN} characters and no sentence end outside markup`);
  return { wikitext: runs.text, leftOut };
}
