/**
 * The article model every corpus loads into, and the one-line JSONL format it is stored in.
 *
 * Text fields (lead, section text, infobox values) use MediaWiki's link markup: `[[Target]]` or
 * `[[Target|label]]`. A section's text is paragraphs separated by blank lines; a line starting with `* ` is a
 * list item. Text that would read as a link is written with `[` as `&#91;` (`&#91;[x]]` shows "[[x]]", as
 * `<nowiki>[[x]]</nowiki>` does on the wiki); `&#93;` is `]` and `&#38;` is `&` (`&#38;#91;` shows "&#91;").
 * No other character reference is read. Nothing else is interpreted, so any source (the synthetic generator, a
 * MediaWiki dump, a hand-written file) only has to produce plain text with links.
 */

export interface InfoboxField {
  readonly field: string;
  /** Plain text with `[[links]]`. */
  readonly value: string;
}

export interface ArticleSection {
  readonly title: string;
  /** Paragraphs separated by blank lines; `* ` starts a list item. */
  readonly text: string;
}

export interface Article {
  readonly title: string;
  /** What the article is about: `person`, `place`, `organisation`, `work`, … (`article` when unknown). */
  readonly type: string;
  readonly infobox: readonly InfoboxField[];
  /** The lead, before the first section. */
  readonly lead: string;
  readonly sections: readonly ArticleSection[];
}

/** A title that leads to another article (MediaWiki's `#REDIRECT`). */
export interface Redirect {
  readonly title: string;
  readonly redirect: string;
}

export interface LinkMarkup {
  readonly target: string;
  readonly label: string;
}

const LINK = /\[\[([^\]|[]+?)(?:\|([^\][]*?))?\]\]/g;

/**
 * The page a link's or a redirect's target names: `[[Paris#History]]` links Paris (a `#` starts a section of the
 * page, as on the wiki, where no title holds one), `[[#History]]` a section of the page itself (no page: ''). A
 * redirect to a section (`{"title": "Sec", "redirect": "Paris#History"}`, `#REDIRECT [[Paris#History]]`) leads to
 * the page.
 */
export function linkTarget(raw: string): string {
  const hash = raw.indexOf('#');
  return normalizeTitle(hash < 0 ? raw : raw.slice(0, hash));
}

/**
 * Percent-escapes decoded, as MediaWiki's parser decodes them in a link's target (`[[Caf%C3%A9]]` links Café and
 * shows "Café", `[[Paris%23History]]` links a section of Paris): a link copied from a URL. A run of escapes that is
 * not UTF-8 (`%E9`) and a `%` that starts none (`[[100%]]`) stay as written.
 */
export function decodePercentEscapes(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

const ESCAPED = /&#(91|93|38);/g;
const ESCAPED_CHARACTER: Readonly<Record<string, string>> = { '91': '[', '93': ']', '38': '&' };

/** Text as the reader sees it: the escapes `&#91;`, `&#93;` and `&#38;` as `[`, `]` and `&` (one pass). */
export function unescapeText(text: string): string {
  return text.includes('&#') ? text.replace(ESCAPED, (_, code: string) => ESCAPED_CHARACTER[code] as string) : text;
}

/**
 * Plain text (no links) written so that it reads back as itself: a `[` before another `[` as `&#91;` (no link
 * starts in it), and an `&` that would start an escape as `&#38;`. Text with neither is unchanged.
 */
export function escapeText(text: string): string {
  if (!text.includes('[[') && !text.includes('&#')) return text;
  return text.replace(/&(?=#(?:91|93|38);)/g, '&#38;').replace(/\[(?=\[)/g, '&#91;');
}

/** Every `[[Target|label]]` in a text, in order. */
export function parseLinks(text: string): LinkMarkup[] {
  const out: LinkMarkup[] = [];
  for (const match of text.matchAll(LINK)) {
    const raw = decodePercentEscapes(match[1] as string);
    const target = linkTarget(raw);
    if (target) out.push({ target, label: unescapeText(match[2] ?? raw).trim() || target });
  }
  return out;
}

/** Splits a text into plain runs and links, in order (for rendering), escapes read (`unescapeText`). */
export function splitLinks(text: string): Array<string | LinkMarkup> {
  const parts: Array<string | LinkMarkup> = [];
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const index = match.index ?? 0;
    if (index > last) parts.push(unescapeText(text.slice(last, index)));
    const raw = decodePercentEscapes(match[1] as string);
    const target = linkTarget(raw);
    const label = unescapeText(match[2] ?? raw).trim() || target;
    parts.push(target ? { target, label } : label);
    last = index + match[0].length;
  }
  if (last < text.length) parts.push(unescapeText(text.slice(last)));
  return parts;
}

/** The text with links replaced by their labels. */
export function stripLinks(text: string): string {
  return splitLinks(text)
    .map((part) => (typeof part === 'string' ? part : part.label))
    .join('');
}

/**
 * MediaWiki's title rules, the parts that matter offline: underscores are spaces, runs of spaces collapse,
 * and the first letter is upper case (`[[paris]]` links to `Paris`). A leading colon is link syntax, not part of
 * the title (`[[:Category:Cities]]` links to `Category:Cities`). A letter whose upper case is several
 * letters stays as it is, as MediaWiki keeps it (`ß`, not `SS`). A title is well-formed Unicode, as
 * MediaWiki's are, so that every title has a URL (`articlePath`), and in NFC, as MediaWiki normalises every
 * input: `Café` typed with a combining accent (`Cafe\u0301`, what macOS file names and some tokenizers give)
 * is the same title as the precomposed one, not a red link. Bidirectional marks and overrides (U+200E, U+200F,
 * U+202A–U+202E) are dropped, as MediaWiki drops them: they come along when a right-to-left title is copied.
 */
export function normalizeTitle(title: string): string {
  const text = title
    .toWellFormed()
    .normalize('NFC')
    .replace(/[\u200e\u200f\u202a-\u202e]/g, '')
    .replace(/_/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^:\s*/, '');
  if (text.length === 0) return '';
  const first = String.fromCodePoint(text.codePointAt(0) as number);
  const upper = first.toUpperCase();
  return ([...upper].length === 1 ? upper : first) + text.slice(first.length);
}

/**
 * The URL path of an article on the corpus server (`/wiki/Morrow_Bay`). The titles `.` and `..` (a JSONL
 * corpus may hold them) would be dot segments, which every URL parser, Node's and Chromium's, removes
 * (`/wiki/..` is `/`), and `%2E` is read as a dot too: they get a trailing `_`, a space, which the server and
 * the link reader trim away like any title's.
 */
export function articlePath(title: string): string {
  const segment = encodeURIComponent(normalizeTitle(title).replace(/ /g, '_'));
  return `/wiki/${segment === '.' || segment === '..' ? `${segment}_` : segment}`;
}

/** Every link target of an article in page order (infobox, lead, sections), each once. */
export function articleLinks(article: Article): string[] {
  const seen = new Set<string>();
  const texts = [
    ...article.infobox.map((field) => field.value),
    article.lead,
    ...article.sections.map((section) => section.text),
  ];
  for (const text of texts) for (const link of parseLinks(text)) seen.add(link.target);
  return [...seen];
}
