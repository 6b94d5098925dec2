import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parser as saxParser } from 'sax';
import type { Article, ArticleSection, InfoboxField, Redirect } from './article';
import { formatJsonlLine } from './jsonl-corpus';

export interface MediaWikiConversionOptions {
  /** Namespaces to keep (MediaWiki's `<ns>`): default `[0]`, the articles. */
  readonly namespaces?: readonly number[];
  /** Stop after this many articles (redirects do not count). */
  readonly maxArticles?: number;
}

export interface MediaWikiConversionStats {
  articles: number;
  redirects: number;
  /** Pages outside the namespaces, or with no text. */
  skipped: number;
}

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
/** Infobox fields that are layout, not facts. */
const SKIPPED_FIELDS = new Set([
  'name',
  'image',
  'image_size',
  'imagesize',
  'caption',
  'alt',
  'signature',
  'logo',
  'image_caption',
  'module',
  'embed',
]);

interface WtfLink {
  page(): string | undefined;
  text(): string | undefined;
}
interface WtfText {
  text(): string;
  links(): WtfLink[];
}
interface WtfDocument {
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

/** Puts `[[page|label]]` back around each link label, in order (wtf gives plain text plus a link list). */
function withLinks(item: WtfText): string {
  let text = item.text();
  let out = '';
  for (const link of item.links()) {
    const page = link.page();
    if (!page) continue;
    const label = link.text() || page;
    const at = text.indexOf(label);
    if (at < 0) continue;
    out += text.slice(0, at) + (label === page ? `[[${page}]]` : `[[${page}|${label}]]`);
    text = text.slice(at + label.length);
  }
  return (out + text).replace(/\s+/g, ' ').trim();
}

function fieldName(key: string): string {
  const spaced = key.replace(/_/g, ' ').trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** One page's wikitext as an article (wtf_wikipedia parses templates, infobox, sections, lists, links). */
export function wikitextToArticle(title: string, wikitext: string): Article {
  const document = wtf(wikitext, { title });
  const infoboxes = document.infoboxes();
  const infobox: InfoboxField[] = [];
  let type = 'article';
  const first = infoboxes[0];
  if (first) {
    type = (first.type() || 'article').toLowerCase().trim() || 'article';
    const values = first.keyValue();
    for (const key of Object.keys(values)) {
      if (SKIPPED_FIELDS.has(key.toLowerCase())) continue;
      const sentence = first.get(key) as WtfText | undefined;
      const value = sentence && typeof sentence.text === 'function' ? withLinks(sentence) : String(values[key] ?? '');
      if (value) infobox.push({ field: fieldName(key), value });
    }
  }
  let lead = '';
  const sections: ArticleSection[] = [];
  for (const section of document.sections()) {
    const paragraphs = section.paragraphs().map((paragraph) =>
      paragraph
        .sentences()
        .map((sentence) => withLinks(sentence))
        .filter(Boolean)
        .join(' '),
    );
    const lists = section.lists().map((list) =>
      list
        .lines()
        .map((line) => `* ${withLinks(line)}`)
        .join('\n'),
    );
    const text = [...paragraphs, ...lists].filter((block) => block.trim().length > 0).join('\n\n');
    const heading = section.title().trim();
    if (!heading) {
      lead = lead ? `${lead}\n\n${text}` : text;
    } else if (!SKIPPED_SECTIONS.has(heading.toLowerCase()) && text) {
      sections.push({ title: heading, text });
    }
  }
  return { title, type, infobox, lead, sections };
}

interface PageBuffer {
  title: string;
  ns: number;
  redirect: string | undefined;
  text: string;
}

/**
 * Streams a MediaWiki XML export (`Special:Export` or a `pages-articles` dump) into the JSONL corpus format:
 * sax reads the XML page by page (constant memory), wtf_wikipedia turns each page's wikitext into title,
 * infobox, lead, sections and links; redirects become `{"title", "redirect"}` lines.
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
  let field: 'title' | 'ns' | 'text' | undefined;
  let done = false;

  const parser = saxParser(true, { trim: false });
  parser.onopentag = (tag) => {
    if (tag.name === 'page') page = { title: '', ns: 0, redirect: undefined, text: '' };
    else if (page && (tag.name === 'title' || tag.name === 'ns' || tag.name === 'text')) field = tag.name;
    else if (page && tag.name === 'redirect') page.redirect = tag.attributes.title;
  };
  const onText = (text: string): void => {
    if (!page || !field) return;
    if (field === 'ns') page.ns = Number(text.trim() || 0);
    else page[field] += text;
  };
  parser.ontext = onText;
  parser.oncdata = onText;
  parser.onclosetag = (name) => {
    if (name === 'title' || name === 'ns' || name === 'text') field = undefined;
    if (name !== 'page' || !page || done) return;
    const current = page;
    page = undefined;
    if (!namespaces.has(current.ns) || !current.title.trim()) {
      stats.skipped += 1;
      return;
    }
    const redirectTarget =
      current.redirect ??
      (/^\s*#redirect/i.test(current.text) ? (/\[\[([^\]|#]+)/.exec(current.text)?.[1] ?? undefined) : undefined);
    if (redirectTarget) {
      const redirect: Redirect = { title: current.title.trim(), redirect: redirectTarget.trim() };
      pending.push(formatJsonlLine(redirect));
      stats.redirects += 1;
      return;
    }
    if (!current.text.trim()) {
      stats.skipped += 1;
      return;
    }
    pending.push(formatJsonlLine(wikitextToArticle(current.title.trim(), current.text)));
    stats.articles += 1;
    if (options.maxArticles !== undefined && stats.articles >= options.maxArticles) done = true;
  };
  let parseError: Error | undefined;
  parser.onerror = (error) => {
    parseError = error;
  };

  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      const line = pending.shift() as string;
      if (!output.write(`${line}\n`)) await once(output, 'drain');
    }
  };

  input.setEncoding('utf8');
  for await (const chunk of input) {
    parser.write(chunk as string);
    if (parseError) throw new Error(`MediaWiki XML is malformed: ${parseError.message}`);
    await flush();
    if (done) break;
  }
  if (!done) parser.close();
  if (parseError) throw new Error(`MediaWiki XML is malformed: ${(parseError as Error).message}`);
  await flush();
  return stats;
}

/** File to file; `.gz` input is decompressed on the fly. */
export async function convertMediaWikiFile(
  inputPath: string,
  outputPath: string,
  options: MediaWikiConversionOptions = {},
): Promise<MediaWikiConversionStats> {
  const raw = createReadStream(inputPath);
  const input = inputPath.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const output = createWriteStream(outputPath);
  try {
    return await convertMediaWikiDump(input, output, options);
  } finally {
    raw.destroy();
    output.end();
    await once(output, 'close');
  }
}
