import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { once } from 'node:events';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { decodeHTMLStrict } from 'entities';
import { parser as saxParser } from 'sax';
import unbzip2Stream from 'unbzip2-stream';
import {
  decodePercentEscapes,
  escapeText,
  type Article,
  type ArticleSection,
  type InfoboxField,
  type Redirect,
} from './article';
import { formatJsonlLine } from './jsonl-corpus';
import { boundWikitext } from './wikitext-budget';

export interface MediaWikiConversionOptions {
  /** Namespaces to keep (MediaWiki's `<ns>`): default `[0]`, the articles. */
  readonly namespaces?: readonly number[];
  /** Stop after this many articles (redirects do not count). */
  readonly maxArticles?: number;
  /** `.bz2` files: the system's `bzip2` (`process`), unbzip2-stream (`js`), or the first that works (`auto`). */
  readonly bzip2?: Bzip2Decoder;
  /** What error messages call the dump (its path); `convertMediaWikiFile` passes the input path. */
  readonly source?: string;
  /**
   * Stops `convertMediaWikiFile` (the CLI's Ctrl-C): it rejects, and removes its partial output as any failed
   * conversion does, instead of leaving gigabytes of `<output>.converting` behind a killed process.
   */
  readonly signal?: AbortSignal;
}

export interface MediaWikiConversionStats {
  articles: number;
  redirects: number;
  /** Pages outside the namespaces, or whose latest revision has no text (blanked, or hidden by the wiki). */
  skipped: number;
  /**
   * Set when the wiki's titles are case-sensitive (`<case>case-sensitive</case>`, Wiktionary's setting): the
   * corpus upper-cases a title's first letter, so `apple` and `Apple` become one title there.
   */
  caseSensitive?: true;
  /**
   * Pages converted with part of their wikitext left out, so that no page takes more than seconds (templates after
   * the 5,000th or nested over 40 deep, lines of thousands of characters with no sentence end: `boundWikitext`).
   */
  degraded?: number;
  /**
   * Pages not converted because of their wikitext alone: over `MAX_PAGE_CHARACTERS` (no wiki saves such a page), or
   * wikitext wtf_wikipedia fails on. Not counted in `skipped`; the dump converts on.
   */
  failed?: number;
  /** The first `MAX_NOTES` degraded or failed pages, each as `"<title>": <what happened>`. */
  notes?: string[];
}

/**
 * The most characters a page's wikitext may hold: MediaWiki refuses to save a page over 2 MiB (`$wgMaxArticleSize`),
 * so a longer one is a damaged or hostile dump. Its text is not kept past this as it streams in.
 */
export const MAX_PAGE_CHARACTERS = 2 * 1024 * 1024;
/** How many degraded or failed pages the stats name. */
const MAX_NOTES = 10;

const JSONL_INPUT =
  'a JSONL corpus, not a MediaWiki XML export: build a store from it with turngym-wiki-convert --store <corpus.jsonl> <store.sqlite>';

/** Sections that hold citations and navigation, not content. */
const SKIPPED_SECTIONS = new Set([
  'references',
  'external links',
  'further reading',
  'notes',
  'bibliography',
  'sources',
  'citations',
  'footnotes',
]);
/** Infobox fields that are layout, not facts (whole parameter names). */
const SKIPPED_FIELDS = new Set([
  'name',
  'alt',
  'module',
  'embed',
  'url',
  'child',
  'subbox',
  'onlysourced',
  'suppressfields',
  'fetchwikidata',
  'noicon',
]);
/**
 * Words of a parameter name that make it layout wherever they occur: the pictures, maps, their sizes and captions
 * (`image_skyline`, `image_flag`, `flag_size`, `pushpin_map`, `mapsize`, `signature_alt`, `logo_caption`), the
 * coordinates, the website and a field's footnotes (`population_footnotes`, citations only). Real infoboxes have
 * dozens of these (`{{Infobox settlement}}` alone: `image_skyline`, `image_flag`, `image_seal`, `image_map`, …);
 * kept, each became a question ("What is the image skyline of Paris?" answered "Paris.jpg").
 */
const LAYOUT_WORDS = new Set([
  'image',
  'images',
  'img',
  'imagesize',
  'caption',
  'logo',
  'flag',
  'seal',
  'shield',
  'emblem',
  'map',
  'mapsize',
  'pushpin',
  'signature',
  'coordinates',
  'coord',
  'coor',
  'footnotes',
  'website',
]);

/** Whether an infobox parameter is layout (see `SKIPPED_FIELDS`, `LAYOUT_WORDS`). */
function isLayoutField(key: string): boolean {
  const name = key.toLowerCase().trim();
  if (SKIPPED_FIELDS.has(name)) return true;
  return name.split(/[\s_\d-]+/).some((word) => LAYOUT_WORDS.has(word));
}

/** A value that is a picture's file name (`Paris.jpg`, `File:Paris skyline.png`), whatever its field is called. */
function isFileName(value: string): boolean {
  return /^(?:(?:file|image):)?[^[\]{}|\n]+\.(?:jpe?g|png|svg|gif|tiff?|webp|bmp)$/i.test(value.trim());
}

interface WtfLink {
  /** `internal` (an article of this wiki), `interwiki` (another wiki: `[[wikt:word]]`, `[[fr:Paris]]`), `external`. */
  type(): string;
  /** The other wiki's prefix, for an interwiki link. */
  wiki(): string | undefined;
  page(): string | undefined;
  text(): string | undefined;
}
interface WtfText {
  text(): string;
  links(): WtfLink[];
}
interface WtfDocument {
  isDisambiguation(): boolean;
  isRedirect(): boolean;
  redirectTo(): { page?: string; wiki?: string } | null;
  infoboxes(): Array<{ type(): string; keyValue(): Record<string, string>; get(key: string): unknown }>;
  sections(): Array<{
    title(): string;
    paragraphs(): Array<{ sentences(): WtfText[] }>;
    lists(): Array<{ lines(): WtfText[] }>;
  }>;
}

// wtf_wikipedia is an ES module package with a CommonJS build; TypeScript's node16 resolution only sees the
// ESM typings, so the CommonJS build is required directly with the slice of its API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const wtf = require('wtf_wikipedia') as (wikitext: string, options?: { title?: string }) => WtfDocument;

/**
 * Interwiki prefixes of two or three letters that are not languages (wtf_wikipedia's list): every other such
 * prefix, and the few longer language codes (`bat-smg`, `simple`), names a Wikipedia in another language.
 */
// prettier-ignore
const PROJECT_PREFIXES = new Set([
  'aew', 'blw', 'dcc', 'doi', 'dpd', 'git', 'guc', 'hdl', 'mw', 'rev', 'rfc', 'rt', 'svn', 'voy', 'wg', 'wmf', 'wqy', 'zum',
]);

function isLanguagePrefix(prefix: string): boolean {
  const lower = prefix.toLowerCase();
  return (/^[a-z]{2,3}(-[a-z]+)*$/.test(lower) || lower === 'simple') && !PROJECT_PREFIXES.has(lower);
}

/**
 * wtf_wikipedia rewrites every ideographic full stop `。` as `. ` before it parses (for its sentence splitter), so
 * Chinese and Japanese pages, and titles such as `モーニング娘。`, lost the character. It is held as a
 * noncharacter (U+FDD0, which no text may carry: one in the input is U+FFFD) while wtf parses, and `decoded`
 * puts it back.
 */
const HELD_FULL_STOP = '\ufdd0';

function holdFullStops(wikitext: string): string {
  return wikitext.replaceAll(HELD_FULL_STOP, '\ufffd').replaceAll('\u3002', HELD_FULL_STOP);
}

/**
 * Wikitext's text with HTML character references decoded (`&lt;`, `&eacute;`, `&#233;`, `&#x1F600;`): the
 * wiki shows the characters, and wtf_wikipedia decodes only a few (`&nbsp;`, `&ndash;`, `&amp;`). Only
 * references ended by `;`, as MediaWiki reads them: `R&D` and `a&paragraph` are text.
 */
function decoded(text: string): string {
  return decodeHTMLStrict(text).replaceAll(HELD_FULL_STOP, '\u3002');
}

/**
 * Puts `[[page|label]]` back around each link label, in order (wtf gives plain text plus a link list). Only a
 * link to this wiki stays a link: an interwiki link (`[[wikt:explorer|explorer]]`, `[[:fr:Lyon|Lyon]]`) is its
 * label as plain text, and an interlanguage link (`[[fr:Paris]]`), which the wiki shows beside the page and not
 * in the text, is dropped. `[[:Category:X]]` (a link to a category, not a categorisation) links `Category:X`.
 */
function withLinks(item: WtfText): string {
  let text = decoded(item.text());
  let out = '';
  // Plain text since the last link, escaped as a whole when a link follows (`escapeText`): `[[x]]` shown by a
  // `<nowiki>` is text, not a link.
  let plain = '';
  for (const link of item.links()) {
    const raw = link.page();
    if (!raw) continue;
    const colon = raw.startsWith(':');
    const page = decoded(colon ? raw.slice(1) : raw);
    const label = decoded(link.text() || page);
    const at = text.indexOf(label);
    if (at < 0) continue;
    plain += text.slice(0, at);
    text = text.slice(at + label.length);
    const prefix = /^([^:]+):/.exec(page)?.[1];
    if (link.type() === 'interwiki') {
      const language = !colon && isLanguagePrefix(link.wiki() ?? '');
      if (!language) plain += label;
    } else if (link.type() !== 'internal' || (colon && prefix !== undefined && isLanguagePrefix(prefix))) {
      plain += label;
    } else {
      out += escapeText(plain) + (label === page ? `[[${page}]]` : `[[${page}|${escapeLabel(label)}]]`);
      plain = '';
    }
  }
  return (out + escapeText(plain + text)).replace(/\s+/g, ' ').trim();
}

/** A link's label as the corpus writes it: a bracket, which would end the link, as its escape (`&#91;`, `&#93;`). */
function escapeLabel(label: string): string {
  if (!/[[\]]|&#/.test(label)) return label;
  return label
    .replace(/&(?=#(?:91|93|38);)/g, '&#38;')
    .replace(/\[/g, '&#91;')
    .replace(/\]/g, '&#93;');
}

function fieldName(key: string): string {
  const spaced = key.replace(/_/g, ' ').trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * The target of a redirect page's wikitext, `''` for a redirect that leads nowhere in this wiki (to a section of
 * itself, `[[#History]]`, or to another wiki), undefined for an article. English `#REDIRECT` (any case, and what
 * follows it up to its link: `#REDIRECTION [[X]]`); then the localised words wtf_wikipedia knows (`#WEITERLEITUNG`,
 * `#перенаправление`, `#DOORVERWIJZING`): a dump's `<redirect>` element says so too, but exports without it (and
 * older dumps) would otherwise turn each localised redirect into an empty article.
 */
function redirectTarget(text: string): string | undefined {
  if (!/^\s*#/.test(text)) return undefined;
  // The link that follows the word, not the page's first link: `#REDIRECT [[#History]]` then
  // `[[Category:Redirects]]` was a redirect to the category.
  const english = /^\s*#redirect[^[\]]{0,40}\[\[([^\]|]*)/i.exec(text);
  if (english) return (english[1] as string).split('#')[0];
  // The redirect word and its link open the page: its first few hundred characters say whether it is one.
  const document = wtf(text.slice(0, 512));
  if (!document.isRedirect()) return undefined;
  const to = document.redirectTo();
  return to?.wiki ? '' : (to?.page ?? '');
}

/** A link's target (up to its `|` or its end) and the rest: `[[target|label]]`, `[[target]]`. */
const LINK_TARGET = /\[\[([^[\]|{}<>\n]*)(\|[^[\]]*)?\]\]/g;

/**
 * Link targets as the wiki reads them, before wtf_wikipedia does, which split them at every `#`:
 * - a character reference or a percent-escape in a target is its character (`[[Caf&#233;]]` and `[[Caf%C3%A9]]`
 *   link Café; wtf linked "Caf&" and showed "Caf%C3%A9"), unless the character is link syntax (`&#124;`), which
 *   makes no title on the wiki either;
 * - a link to a section with no label of its own (`[[#History]]`, `[[Paris#History]]`, `[[C#]]`) shows its text
 *   as written (`#History`, `Paris#History`, `C#`): wtf left a link to the page's own section out of the text
 *   altogether ("See [[#History]]." read "See .") and showed the others without their `#` part ("Paris", "C").
 *   It gets that text as an explicit label, which wtf keeps.
 */
function readLinkTargets(wikitext: string): string {
  return wikitext.replace(LINK_TARGET, (link, raw: string, rest: string | undefined) => {
    let target = raw;
    if (target.includes('&') || target.includes('%')) {
      const decodedTarget = decodePercentEscapes(decoded(target));
      if (!/[[\]|{}<>\n]/.test(decodedTarget)) target = decodedTarget;
    }
    // The pipe trick: `[[Paris, Texas|]]` shows "Paris" (wtf showed the whole target, and with a letter after it,
    // `[[x|]]y`, wrote "[[x||x|y]]").
    if (rest === '|') {
      const label = pipeTrickLabel(target);
      if (label) return `[[${target}|${label}]]`;
    }
    // The `#` of a character reference left as written (`&#124;`) starts no section.
    if (rest === undefined && /(?<!&)#/.test(target)) {
      const shown = target.trim().replace(/^:\s*/, '');
      if (shown) return `[[${target}|${shown}]]`;
    }
    return target === raw ? link : `[[${target}${rest ?? ''}]]`;
  });
}

/**
 * The label MediaWiki's pipe trick gives `[[target|]]`: the target without its namespace or interwiki prefix
 * (`Wikipedia:`, `Talk:`), then without a final parenthesis (`Pipe (computing)` → "Pipe", also `（…）`), or, when
 * it has none, without what follows its first comma (`Paris, Texas` → "Paris").
 */
function pipeTrickLabel(target: string): string {
  const title = target.trim().replace(/^:?[^:]*:/, '');
  const withoutParenthesis = title.replace(/\s*(?:\([^()]*\)|（[^（）]*）)$/, '');
  const label = withoutParenthesis !== title ? withoutParenthesis : title.replace(/\s*[,，、].*$/, '');
  return label.trim();
}

/** Characters that are wikitext syntax, as the character references that show them as text. */
const SYNTAX_CHARACTERS: Record<string, string> = {
  '[': '&#91;',
  ']': '&#93;',
  '{': '&#123;',
  '}': '&#125;',
  '|': '&#124;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
  '=': '&#61;',
  '*': '&#42;',
  '#': '&#35;',
  ':': '&#58;',
  '~': '&#126;',
  _: '&#95;',
};

/**
 * `<nowiki>…</nowiki>` as the wiki shows it: its text, not parsed. wtf_wikipedia dropped the tags and parsed the
 * inside, so `<nowiki>{{t}}</nowiki>` read "undefined" and `<nowiki>[</nowiki>sic<nowiki>]</nowiki>` "[ sic ]".
 * The syntax characters inside become character references, which wtf leaves alone and `decoded` turns back.
 * A `[[` left in the text is written `&#91;[` (`escapeText`), so `<nowiki>[[x]]</nowiki>` reads "[[x]]", not a link.
 */
function escapeNowiki(wikitext: string): string {
  if (!/<nowiki\s*>/i.test(wikitext)) return wikitext;
  return wikitext.replace(/<nowiki\s*>([\s\S]*?)<\/nowiki\s*>/gi, (_, inside: string) =>
    inside.replace(/[[\]{}|'<>=*#:~_]/g, (character) => SYNTAX_CHARACTERS[character] as string),
  );
}

/** `{{coord|…}}`'s parts: degrees, minutes, seconds as written, then the hemisphere. */
function coordinateText(parts: readonly string[], hemisphere: string): string {
  const marks = ['°', '′', '″'];
  return `${parts.map((part, i) => `${part}${marks[i]}`).join('')}${hemisphere}`;
}

/**
 * `{{coord|…}}` as the wiki shows it (`{{coord|48|51|N|2|21|E}}` is "48°51′N 2°21′E", `{{coord|-33.9|151.2}}`
 * "33.9°S 151.2°E"; one shown only beside the title, `display=title`, is nothing). wtf_wikipedia wrote every
 * coordinate as "lat°N, lon°W" with signed numbers: Paris (2.35°E) was "2.35°W", Sydney "-33.87°N, 151.2°W". A
 * template this cannot read (nested templates, missing numbers) is left to wtf.
 */
function renderCoordinates(wikitext: string): string {
  if (!/\{\{\s*coord\s*\|/i.test(wikitext)) return wikitext;
  return wikitext.replace(/\{\{\s*coord\s*\|([^{}]*)\}\}/gi, (template, body: string) => {
    const parameters = body.split('|').map((parameter) => parameter.trim());
    const display = parameters.find((parameter) => /^display\s*=/i.test(parameter));
    const positional = parameters.filter((parameter) => !parameter.includes('='));
    if (display && !/inline/i.test(display) && /title/i.test(display)) return '';
    const number = /^-?\d+(?:\.\d+)?$/;
    const ns = positional.findIndex((parameter) => /^[NS]$/i.test(parameter));
    const ew = positional.findIndex((parameter) => /^[EW]$/i.test(parameter));
    if (ns >= 1 && ns <= 3 && ew > ns + 1 && ew <= ns + 4) {
      const latitude = positional.slice(0, ns);
      const longitude = positional.slice(ns + 1, ew);
      if (![...latitude, ...longitude].every((part) => number.test(part))) return template;
      return `${coordinateText(latitude, (positional[ns] as string).toUpperCase())} ${coordinateText(longitude, (positional[ew] as string).toUpperCase())}`;
    }
    const [latitude, longitude] = positional;
    if (latitude === undefined || longitude === undefined || !number.test(latitude) || !number.test(longitude))
      return template;
    const signed = (value: string, positive: string, negative: string): string =>
      value.startsWith('-') ? `${value.slice(1)}°${negative}` : `${value}°${positive}`;
    return `${signed(latitude, 'N', 'S')} ${signed(longitude, 'E', 'W')}`;
  });
}

/**
 * Links inside a template's parameters, held as tokens while wtf_wikipedia parses and put back afterwards. wtf
 * renders most inline templates as their text without the links in them: `{{marriage|[[Jane Doe]]|1990}}` (how
 * almost every infobox writes a spouse), `{{hlist|[[Writer]]|[[Painter]]}}`, `{{nowrap|[[Paris]] region}}` and
 * `{{lang|fr|[[Lyon]]}}` read "Jane Doe (m. 1990)", "Writer · Painter" … with no link, so a real dump lost a large
 * share of its link graph and of its link fields (no bridge question crossed a spouse). A link directly in an
 * infobox's parameter is left to wtf, which keeps it; so is one whose target has a namespace-like prefix (`File:`,
 * `Category:`, an interwiki `fr:`). A token is noncharacters only (U+FDD1, the index in U+FDE0–U+FDE9, U+FDD2),
 * which no template reads as text to change; a template that drops its parameters (a citation, a navbox) drops
 * the token with them.
 */
class NestedLinks {
  private readonly links: Array<{ target: string; label: string }> = [];

  /** The wikitext with each link inside a template (other than directly in an infobox) as a token. */
  hold(wikitext: string): string {
    if (!wikitext.includes('{{')) return wikitext;
    let out = '';
    const templates: string[] = [];
    let i = 0;
    while (i < wikitext.length) {
      if (wikitext.startsWith('{{', i)) {
        const name = /^\{\{\s*([^|{}\n]*)/.exec(wikitext.slice(i, i + 200))?.[1] ?? '';
        templates.push(name.trim().toLowerCase());
        out += '{{';
        i += 2;
      } else if (wikitext.startsWith('}}', i) && templates.length > 0) {
        templates.pop();
        out += '}}';
        i += 2;
      } else if (wikitext.startsWith('[[', i) && templates.length > 0 && !templates.at(-1)?.startsWith('infobox')) {
        const link = /^\[\[([^[\]|{}<>\n]*)(?:\|([^[\]{}]*))?\]\]/.exec(wikitext.slice(i, i + 1000));
        const target = link?.[1]?.trim();
        if (!link || !target || /^:?[^:]*:/.test(target)) {
          out += '[[';
          i += 2;
          continue;
        }
        const label = (link[2] ?? '').replace(/'{2,}/g, '').trim();
        out += `\ufdd1${[...String(this.links.length)].map((digit) => String.fromCharCode(0xfde0 + Number(digit))).join('')}\ufdd2`;
        this.links.push({ target, label: label || target });
        i += link[0].length;
      } else {
        out += wikitext[i];
        i += 1;
      }
    }
    return out;
  }

  /** Text with each token back as its link (`[[target|label]]`), or as its label (`asText`: headings). */
  restore(text: string, asText = false): string {
    if (this.links.length === 0 || !text.includes('\ufdd1')) return text;
    return text.replace(/\ufdd1([\ufde0-\ufde9]+)\ufdd2/g, (_, digits: string) => {
      const index = Number([...digits].map((digit) => digit.charCodeAt(0) - 0xfde0).join(''));
      const link = this.links[index];
      if (!link) return '';
      const target = decoded(link.target);
      const label = decoded(link.label);
      if (asText) return label;
      return label === target ? `[[${target}]]` : `[[${target}|${label}]]`;
    });
  }
}

/** One page's wikitext as an article (wtf_wikipedia parses templates, infobox, sections, lists, links). */
export function wikitextToArticle(title: string, wikitext: string): Article {
  return convertWikitext(title, wikitext).article;
}

/** `wikitextToArticle`, and what was left out of the page to bound the time it takes (`boundWikitext`). */
function convertWikitext(title: string, wikitext: string): { article: Article; leftOut: readonly string[] } {
  const bounded = boundWikitext(wikitext);
  const nested = new NestedLinks();
  const document = wtf(holdFullStops(nested.hold(renderCoordinates(escapeNowiki(readLinkTargets(bounded.wikitext))))), {
    title,
  });
  const infoboxes = document.infoboxes();
  const infobox: InfoboxField[] = [];
  let type = 'article';
  const first = infoboxes[0];
  if (first) {
    type = (first.type() || 'article').toLowerCase().trim() || 'article';
    const values = first.keyValue();
    for (const key of Object.keys(values)) {
      if (isLayoutField(key)) continue;
      const sentence = first.get(key) as WtfText | undefined;
      const value = nested.restore(
        sentence && typeof sentence.text === 'function'
          ? withLinks(sentence)
          : escapeText(decoded(String(values[key] ?? ''))),
      );
      if (value && !isFileName(value)) infobox.push({ field: fieldName(key), value });
    }
  }
  let lead = '';
  const sections: ArticleSection[] = [];
  for (const section of document.sections()) {
    const paragraphs = section.paragraphs().map((paragraph) =>
      paragraph
        .sentences()
        .map((sentence) => nested.restore(withLinks(sentence)))
        .filter(Boolean)
        .join(' '),
    );
    const lists = section.lists().map((list) =>
      list
        .lines()
        .map((line) => `* ${nested.restore(withLinks(line))}`)
        .join('\n'),
    );
    const text = [...paragraphs, ...lists].filter((block) => block.trim().length > 0).join('\n\n');
    const heading = nested.restore(decoded(section.title()), true).trim();
    if (!heading) {
      lead = lead ? `${lead}\n\n${text}` : text;
    } else if (!SKIPPED_SECTIONS.has(heading.toLowerCase()) && text) {
      sections.push({ title: heading, text });
    }
  }
  // A disambiguation page (`{{disambiguation}}`, `{{hndis}}`, …) is a list of links, not a subject: typed so
  // that task generation leaves it out, as Wikipedia's own tools do.
  if (document.isDisambiguation()) type = 'disambiguation';
  return { article: { title, type, infobox, lead, sections }, leftOut: bounded.leftOut };
}

/** One `<revision>` as read so far: what decides whether it is the page's latest, and its wikitext. */
interface RevisionRead {
  /** MediaWiki's revision id (`<id>` inside `<revision>`), NaN when absent. */
  id: number;
  /** `<timestamp>` in ms since the epoch, NaN when absent or unparsable. */
  timestamp: number;
  /** Position among the page's revisions, for the last tie-break. */
  order: number;
  text: string;
  /** `<text deleted="deleted" />`: the wiki hid this revision's text (RevisionDelete); the dump has none. */
  textDeleted: boolean;
  /** False while reading a `<text>` this revision cannot win with (an older timestamp): its text is not kept. */
  keepText: boolean;
  /** Its text ran past `MAX_PAGE_CHARACTERS`: the rest was not kept, and the page is not converted. */
  oversized: boolean;
}

interface PageBuffer {
  title: string;
  /** `<ns>`, undefined when the page has none (exports older than MediaWiki 1.16). */
  ns: number | undefined;
  redirect: string | undefined;
  /** The latest revision seen so far; a page holds at most this one and the one being read. */
  latest: RevisionRead | undefined;
  revisions: number;
}

/**
 * Whether revision `a` is later than `b`. A history dump (`pages-meta-history`) lists each page's revisions
 * oldest first, but an export or a merged dump need not, so the order is decided, not assumed: by
 * `<timestamp>`; when timestamps tie or one is missing, by revision id (MediaWiki hands ids out in save
 * order); when that ties too, the one later in the document wins.
 */
function isLaterRevision(a: RevisionRead, b: RevisionRead): boolean {
  if (!Number.isNaN(a.timestamp) && !Number.isNaN(b.timestamp) && a.timestamp !== b.timestamp)
    return a.timestamp > b.timestamp;
  if (!Number.isNaN(a.id) && !Number.isNaN(b.id) && a.id !== b.id) return a.id > b.id;
  return a.order > b.order;
}

/**
 * Streams a MediaWiki XML export (`Special:Export`, a `pages-articles` dump or a `pages-meta-history` dump)
 * into the JSONL corpus format: sax reads the XML page by page (constant memory), wtf_wikipedia turns each
 * page's wikitext into title, infobox, lead, sections and links; redirects become `{"title", "redirect"}`
 * lines. A page with several revisions is converted from its latest one only (see `isLaterRevision`);
 * older revisions' text is dropped as soon as a later one is read. When the latest revision's text is
 * empty (the page was blanked) or deleted (`<text deleted="deleted" />`), the page is skipped: an older
 * revision is what the page no longer says, or what the wiki chose to hide.
 */
export async function convertMediaWikiDump(
  input: Readable,
  output: Writable,
  options: MediaWikiConversionOptions = {},
): Promise<MediaWikiConversionStats> {
  const namespaces = new Set(options.namespaces ?? [0]);
  const stats: MediaWikiConversionStats = { articles: 0, redirects: 0, skipped: 0 };
  const pending: string[] = [];
  let page: PageBuffer | undefined;
  let revision: RevisionRead | undefined;
  // Open elements inside the page: `<id>`, `<timestamp>` and `<text>` count only directly under `<revision>`
  // (a contributor has an `<id>`, an upload a `<timestamp>`, an extra content slot a `<text>`).
  const open: string[] = [];
  let field: 'title' | 'ns' | 'id' | 'timestamp' | 'text' | undefined;
  let fieldText = '';
  let done = false;
  const source = options.source ?? 'the dump';
  const failure = (reason: string): Error => new Error(`${source}: ${reason}`);
  let root: string | undefined;
  let pages = 0;
  let characters = 0;
  // From `<siteinfo>`: the title case rule, and namespace names (lower case) by number, for pages with no `<ns>`.
  const siteNamespaces = new Map<string, number>();
  let siteField: { name: 'case' | 'namespace'; key: number; text: string } | undefined;

  const parser = saxParser(true, { trim: false });
  parser.onopentag = (tag) => {
    const parent = open[open.length - 1];
    if (root === undefined) {
      // Text before the first tag (a JSONL corpus, a text file that holds a tag): the file is not XML at all.
      if (parseError) throw parseError;
      root = tag.name;
      // An HTML error page, a feed or any other XML would otherwise be "converted" to an empty corpus.
      if (root !== 'mediawiki')
        throw failure(`not a MediaWiki XML export: its root element is <${root}>, not <mediawiki>`);
    }
    if (tag.name === 'page') {
      page = { title: '', ns: undefined, redirect: undefined, latest: undefined, revisions: 0 };
      pages += 1;
      open.length = 0;
    } else if (!page) {
      // Outside pages, `<case>` and `<namespace>` occur only in `<siteinfo>`.
      if (tag.name === 'case' || tag.name === 'namespace')
        siteField = { name: tag.name, key: Number(tag.attributes.key), text: '' };
      return;
    } else if (parent === 'page' && (tag.name === 'title' || tag.name === 'ns')) {
      field = tag.name;
    } else if (parent === 'page' && tag.name === 'redirect') {
      page.redirect = tag.attributes.title;
    } else if (parent === 'page' && tag.name === 'revision') {
      revision = {
        id: NaN,
        timestamp: NaN,
        order: page.revisions++,
        text: '',
        textDeleted: false,
        keepText: true,
        oversized: false,
      };
    } else if (parent === 'revision' && revision && (tag.name === 'id' || tag.name === 'timestamp')) {
      field = tag.name;
    } else if (parent === 'revision' && revision && tag.name === 'text') {
      field = 'text';
      revision.textDeleted = tag.attributes.deleted !== undefined;
      // Timestamps come before the text in MediaWiki's schema, so an older revision's text need not be read.
      const latest = page.latest;
      revision.keepText = !(
        latest &&
        !Number.isNaN(revision.timestamp) &&
        !Number.isNaN(latest.timestamp) &&
        revision.timestamp < latest.timestamp
      );
    }
    if (page) open.push(tag.name);
    fieldText = '';
  };
  const onText = (text: string): void => {
    if (!page && siteField) siteField.text += text;
    if (!page || !field) return;
    if (field === 'text') {
      if (revision?.keepText && !revision.oversized) {
        revision.text += text;
        if (revision.text.length > MAX_PAGE_CHARACTERS) {
          revision.oversized = true;
          revision.text = revision.text.slice(0, MAX_PAGE_CHARACTERS);
        }
      }
    } else {
      fieldText += text;
    }
  };
  parser.ontext = onText;
  parser.oncdata = onText;
  parser.onclosetag = (name) => {
    if (!page && siteField?.name === name) {
      const text = siteField.text.trim();
      if (name === 'case' && text === 'case-sensitive') stats.caseSensitive = true;
      if (name === 'namespace' && text && Number.isInteger(siteField.key))
        siteNamespaces.set(text.toLowerCase(), siteField.key);
      siteField = undefined;
    }
    if (page) open.pop();
    if (field && name === field) {
      if (field === 'title' && page) page.title += fieldText;
      else if (field === 'ns' && page) page.ns = Number(fieldText.trim() || 0);
      else if (field === 'id' && revision) revision.id = Number(fieldText.trim() || NaN);
      else if (field === 'timestamp' && revision) revision.timestamp = Date.parse(fieldText.trim());
      field = undefined;
      fieldText = '';
    }
    if (name === 'revision' && page && revision) {
      if (!page.latest || isLaterRevision(revision, page.latest)) page.latest = revision;
      revision = undefined;
      return;
    }
    if (name !== 'page' || !page || done) return;
    const current = page;
    page = undefined;
    open.length = 0;
    // Without `<ns>` the title's prefix says the namespace (`Talk:Paris`), as the wiki's namespace list names it.
    const prefix = /^([^:]+):/.exec(current.title.trim())?.[1];
    const ns =
      current.ns ?? (prefix ? siteNamespaces.get(prefix.replace(/_/g, ' ').trim().toLowerCase()) : undefined) ?? 0;
    if (!namespaces.has(ns) || !current.title.trim()) {
      stats.skipped += 1;
      return;
    }
    const text = current.latest && !current.latest.textDeleted ? current.latest.text : '';
    const target = current.redirect ?? redirectTarget(text);
    if (target !== undefined && !target.trim()) {
      stats.skipped += 1;
      return;
    }
    if (target) {
      const redirect: Redirect = { title: current.title.trim(), redirect: target.trim() };
      pending.push(formatJsonlLine(redirect));
      stats.redirects += 1;
      return;
    }
    if (!text.trim()) {
      stats.skipped += 1;
      return;
    }
    const title = current.title.trim();
    const note = (what: string): void => {
      stats.notes ??= [];
      if (stats.notes.length < MAX_NOTES) stats.notes.push(`${JSON.stringify(title)}: ${what}`);
    };
    if (current.latest?.oversized) {
      stats.failed = (stats.failed ?? 0) + 1;
      note(`not converted: its wikitext is over ${MAX_PAGE_CHARACTERS} characters, more than a wiki page may hold`);
      return;
    }
    let converted: ReturnType<typeof convertWikitext>;
    try {
      converted = convertWikitext(title, text);
    } catch (error) {
      stats.failed = (stats.failed ?? 0) + 1;
      note(`not converted: wtf_wikipedia failed on its wikitext (${(error as Error).message})`);
      return;
    }
    if (converted.leftOut.length > 0) {
      stats.degraded = (stats.degraded ?? 0) + 1;
      note(`converted without ${converted.leftOut.join(', ')}`);
    }
    pending.push(formatJsonlLine(converted.article));
    stats.articles += 1;
    if (options.maxArticles !== undefined && stats.articles >= options.maxArticles) done = true;
  };
  let parseError: Error | undefined;
  let atEnd = false;
  parser.onerror = (error) => {
    // sax reads on after an error and reports what follows from it: the first error is where the file is wrong.
    // Its `line` counts from 0; `column` is the character just read, counted from 1.
    // An error at the end of the input is a file that stops inside its XML: a download or copy cut short.
    const where = page ? ` inside the <page> of "${page.title.trim()}" (page ${pages})` : '';
    parseError ??= failure(
      `MediaWiki XML is malformed at line ${parser.line + 1}, column ${Math.max(1, parser.column)}: ${error.message.split('\n')[0]}` +
        (atEnd
          ? ` (the file ends${where} before its XML does: is it cut short, a download or copy that stopped?)`
          : ''),
    );
  };

  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      const line = pending.shift() as string;
      if (!output.write(`${line}\n`)) await once(output, 'drain');
    }
  };

  input.setEncoding('utf8');
  for await (const chunk of input) {
    // A JSONL corpus given where a dump is expected (`turngym-wiki-convert corpus.jsonl store.sqlite`).
    if (characters === 0 && /^\s*\{/.test(chunk as string)) throw failure(JSONL_INPUT);
    characters += (chunk as string).length;
    parser.write(chunk as string);
    if (parseError) throw parseError;
    await flush();
    if (done) break;
  }
  if (!done) {
    atEnd = true;
    parser.close();
    if (parseError) throw parseError;
    if (root === undefined)
      throw failure(
        `not a MediaWiki XML export: ${characters === 0 ? 'the file is empty' : 'it holds no XML element'}`,
      );
    if (pages === 0) throw failure('a MediaWiki XML export with no <page>: there is nothing to convert');
  }
  await flush();
  return stats;
}

/** How `.bz2` dumps are decompressed: `auto` (default) is the system's `bzip2` when on the PATH, else `js`. */
export type Bzip2Decoder = 'auto' | 'process' | 'js';

let bzip2OnPath: boolean | undefined;
function hasBzip2(): boolean {
  bzip2OnPath ??= spawnSync('bzip2', ['--help'], { stdio: 'ignore' }).status === 0;
  return bzip2OnPath;
}

/** A file system error as `<path>: <reason>` (`dumps/x.xml: no such file or directory`), for the CLI to print. */
function fileError(path: string, error: Error): Error {
  const reason = error.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '[^']*'$/, '');
  return new Error(`${path}: ${reason}`);
}

/**
 * A dump file as a stream of XML, in bounded memory: `.gz` through zlib; `.bz2` (Wikipedia's format) through
 * the system's `bzip2 -dc` in a child process (about 10× faster than JavaScript, and on another core) or
 * unbzip2-stream in process (no binary needed); anything else as is. Every failure (the file cannot be read,
 * the decompressor rejects it) ends the stream with one error that names the file, the first one: the
 * consumer sees it, and no stage's error goes unhandled.
 */
export function openDumpFile(path: string, bzip2: Bzip2Decoder = 'auto'): { input: Readable; close(): void } {
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  const input = new PassThrough({ highWaterMark: 1 << 20 });
  const fail = (error: Error): void => {
    if (!input.destroyed) input.destroy(error);
  };
  raw.on('error', (error) => fail(fileError(path, error)));
  if (path.endsWith('.bz2') && (bzip2 === 'process' || (bzip2 === 'auto' && hasBzip2()))) {
    // The file is read here and fed to bzip2, so that a file that cannot be read is reported as such.
    const child = spawn('bzip2', ['-dc'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    // bzip2 stops reading when the data is corrupt: its exit status says so, not the broken pipe.
    child.stdin.on('error', () => undefined);
    raw.pipe(child.stdin);
    // Ended only once bzip2 has exited, so that a corrupt file is an error, not a truncated dump.
    child.stdout.pipe(input, { end: false });
    child.on('error', (error) => fail(new Error(`${path}: could not run bzip2 (${error.message})`)));
    child.on('close', (code, signal) => {
      if (code === 0) input.end();
      else if (!signal)
        // bzip2 explains at length ("Possible reason follows", bzip2recover): its first line says what is wrong.
        fail(
          new Error(
            `${path}: not a valid bzip2 file (${stderr.trim().split('\n')[0]?.replace(/;$/, '') || `bzip2 exited with ${code}`})`,
          ),
        );
    });
    return {
      input,
      close: () => {
        raw.destroy();
        child.kill();
      },
    };
  }
  if (path.endsWith('.gz') || path.endsWith('.bz2')) {
    // unbzip2-stream is a classic `through` stream: the PassThrough gives it async iteration and backpressure.
    const gzip = path.endsWith('.gz');
    const decoder: Writable & Readable = gzip ? createGunzip() : unbzip2Stream();
    decoder.on('error', (error: Error) =>
      fail(
        new Error(
          `${path}: not a valid ${gzip ? 'gzip' : 'bzip2'} file (${
            // unbzip2-stream reads past the end of a cut file and fails inside itself (a TypeError).
            error instanceof TypeError ? 'the compressed data ends early or is damaged' : error.message
          })`,
        ),
      ),
    );
    raw.pipe(decoder).pipe(input);
    return { input, close: () => raw.destroy() };
  }
  raw.pipe(input);
  return { input, close: () => raw.destroy() };
}

/** Whether two paths name one file (the same path, or a link to it); false when either does not exist. */
function sameFile(a: string, b: string): boolean {
  if (resolvePath(a) === resolvePath(b)) return true;
  try {
    const first = statSync(a);
    const second = statSync(b);
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false;
  }
}

/**
 * File to file; `.gz` and `.bz2` input is decompressed on the fly. The JSONL is written next to the output
 * (`<output>.converting`) and renamed over it only when the whole dump converted to at least one article, so
 * an output on disk is always complete, and a failed or empty conversion leaves the previous one as it was.
 */
export async function convertMediaWikiFile(
  inputPath: string,
  outputPath: string,
  options: MediaWikiConversionOptions = {},
): Promise<MediaWikiConversionStats> {
  const partial = `${outputPath}.converting`;
  // The corpus is renamed over the output once converted: were the output the dump, the dump would be gone.
  if (sameFile(inputPath, outputPath))
    throw new Error(
      inputPath.endsWith('.jsonl')
        ? `${inputPath}: ${JSONL_INPUT}`
        : `${outputPath}: the corpus would be written over the dump it is converted from; name another output file`,
    );
  const interrupted = (): Error =>
    new Error(`${inputPath}: the conversion was interrupted; ${outputPath} is left as it was`);
  if (options.signal?.aborted) throw interrupted();
  const { input, close } = openDumpFile(inputPath, options.bzip2);
  const output = createWriteStream(partial);
  let outputError: Error | undefined;
  output.on('error', (error) => {
    outputError ??= fileError(outputPath, error);
    input.destroy(outputError);
  });
  const abort = (): void => {
    input.destroy(interrupted());
  };
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    const stats = await convertMediaWikiDump(input, output, { source: inputPath, ...options });
    output.end();
    await finished(output);
    if (stats.articles === 0) {
      const kept = [...(options.namespaces ?? [0])].join(', ');
      throw new Error(
        `${inputPath}: no article in namespace ${kept} (${stats.redirects} redirects, ${stats.skipped} pages skipped); ${outputPath} is left as it was`,
      );
    }
    renameSync(partial, outputPath);
    return stats;
  } catch (error) {
    const cause = outputError ?? error;
    // Ended, not destroyed: a write in flight completes and the file is closed before it is removed.
    output.end();
    await finished(output).catch(() => undefined);
    rmSync(partial, { force: true });
    throw cause;
  } finally {
    options.signal?.removeEventListener('abort', abort);
    close();
  }
}
