import { articlePath, splitLinks, type Article } from '../corpus/article';
import type { SearchHit } from '../corpus/corpus';

/**
 * The HTML of the corpus server: Wikipedia's page structure (a first heading, an infobox table, lead
 * paragraphs, `<h2>` sections, lists, `<a href="/wiki/Title">` links), reduced to what the extraction
 * function reads. `#content[data-kind]` tells the extractor what kind of page it is looking at.
 */
const STYLE =
  'body{font-family:sans-serif;max-width:60em;margin:1em auto}.infobox{float:right;border:1px solid #aaa;margin:0 0 1em 1em}' +
  '.infobox th{text-align:left;padding-right:1em}a.new{color:#ba0000}';

/**
 * Text as HTML that both modes read alike. Corpus text may hold a NUL or half a surrogate pair (JSON allows
 * both); over HTTP the half becomes U+FFFD and Chromium's parser drops the NUL, while direct mode parses the
 * string in-process: so both are settled here, as the browser would, before either mode sees the page.
 */
export function escapeHtml(text: string): string {
  return text
    .toWellFormed()
    .replaceAll('\u0000', '')
    .replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} — TurnGym Wiki</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** Text with `[[links]]` as HTML; links to missing articles get MediaWiki's red-link class `new`. */
function inline(text: string, exists: (title: string) => boolean): string {
  return splitLinks(text)
    .map((part) =>
      typeof part === 'string'
        ? escapeHtml(part)
        : `<a href="${articlePath(part.target)}"${exists(part.target) ? '' : ' class="new"'} title="${escapeHtml(part.target)}">${escapeHtml(part.label)}</a>`,
    )
    .join('');
}

/** Paragraphs and `* ` lists of a section's text. */
function blocks(text: string, exists: (title: string) => boolean): string {
  const out: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const lines = paragraph.split('\n').filter((line) => line.trim().length > 0);
    let items: string[] = [];
    let prose: string[] = [];
    const flush = (): void => {
      if (prose.length > 0) out.push(`<p>${inline(prose.join(' '), exists)}</p>`);
      if (items.length > 0) out.push(`<ul>${items.map((item) => `<li>${inline(item, exists)}</li>`).join('')}</ul>`);
      prose = [];
      items = [];
    };
    for (const line of lines) {
      const item = /^\s*[*#]\s*(.*)$/.exec(line);
      if (item) {
        if (prose.length > 0) flush();
        items.push(item[1] as string);
      } else {
        if (items.length > 0) flush();
        prose.push(line.trim());
      }
    }
    flush();
  }
  return out.join('');
}

export function renderArticleHtml(article: Article, exists: (title: string) => boolean): string {
  const infobox =
    article.infobox.length === 0
      ? ''
      : `<table class="infobox"><caption>${escapeHtml(article.title)}</caption>${article.infobox
          .map((field) => `<tr><th>${escapeHtml(field.field)}</th><td>${inline(field.value, exists)}</td></tr>`)
          .join('')}</table>`;
  const sections = article.sections
    .map((section) => `<section><h2>${escapeHtml(section.title)}</h2>${blocks(section.text, exists)}</section>`)
    .join('');
  return page(
    article.title,
    `<main id="content" data-kind="article" data-type="${escapeHtml(article.type)}"><h1 id="firstHeading">${escapeHtml(article.title)}</h1>` +
      `${infobox}<section class="lead">${blocks(article.lead, exists)}</section>${sections}</main>`,
  );
}

export function renderSearchHtml(query: string, hits: readonly SearchHit[]): string {
  const items = hits
    .map(
      (hit) => `<li><a href="${articlePath(hit.title)}">${escapeHtml(hit.title)}</a>: ${escapeHtml(hit.snippet)}</li>`,
    )
    .join('');
  const body =
    hits.length === 0 ? `<p>No article matches "${escapeHtml(query)}".</p>` : `<ol class="results">${items}</ol>`;
  return page(
    `Search: ${query}`,
    `<main id="content" data-kind="search" data-type="search"><h1 id="firstHeading">Search results for "${escapeHtml(query)}"</h1>${body}</main>`,
  );
}

export function renderMissingHtml(title: string): string {
  return page(
    title,
    `<main id="content" data-kind="missing" data-type="missing"><h1 id="firstHeading">${escapeHtml(title)}</h1><p>There is no article titled "${escapeHtml(title)}".</p></main>`,
  );
}
