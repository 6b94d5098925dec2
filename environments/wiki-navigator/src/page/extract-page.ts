/**
 * THE extraction function: DOM → the page as numbered lines with link markers. Both modes run this one
 * function, in the browser (`page.evaluate`) and over linkedom's document in direct mode, so identical
 * observations across modes are a test of the two DOMs, not of two implementations.
 *
 * It must stay self-contained: it is shipped to the browser as source text, so it may use no import, no
 * closure over module scope, and no DOM API beyond the basics both DOMs implement (`querySelector`,
 * `childNodes`, `nodeType`, `tagName`, `getAttribute`, `textContent`). Layout-dependent APIs (`innerText`)
 * are avoided: linkedom has no layout.
 */

/** Where on the page a line or link sits (drives the `CLICK(infobox)` fingerprint and the anchor). */
export type PageRegion = 'title' | 'infobox' | 'lead' | 'heading' | 'body' | 'results' | 'notice';

export interface PageLine {
  /** The text, links written as `[#k label]`. */
  readonly text: string;
  readonly region: PageRegion;
  /** Slug of the section the line belongs to (`lead`, `infobox`, `early-life`, `results`, …). */
  readonly section: string;
}

export interface PageLink {
  /** The article title the link points to (from its `/wiki/` href). */
  readonly target: string;
  /** The link text where it first appears. */
  readonly label: string;
  /**
   * Every text the page shows for this link, in order, once each (`label` first): a target linked twice
   * (`[#4 Juno Shore]`, later `[#4 his wife]`) is clickable by either.
   */
  readonly labels: readonly string[];
  /** Region of its first appearance. */
  readonly region: PageRegion;
}

export interface ExtractedPage {
  /** `article`, `search` (results page), `missing` (404) or `unknown` (not a corpus page). */
  readonly kind: string;
  /** The article type (`person`, `place`, …), or the kind for non-article pages. */
  readonly type: string;
  readonly title: string;
  readonly lines: readonly PageLine[];
  /** Link `k` of the markers is `links[k - 1]`; one number per distinct target, in order of appearance. */
  readonly links: readonly PageLink[];
}

/** The minimal DOM surface both Chromium and linkedom provide. */
export interface DomNode {
  readonly nodeType: number;
  readonly textContent: string | null;
  readonly childNodes: ArrayLike<DomNode>;
  readonly tagName?: string;
  getAttribute?(name: string): string | null;
}

export interface DomDocument {
  querySelector(selector: string): DomNode | null;
}

export function extractPage(doc: DomDocument): ExtractedPage {
  const MAX_LINE = 160;
  const lines: PageLine[] = [];
  const links: PageLink[] = [];
  const numbers = new Map<string, number>();
  const clean = (text: string): string => text.replace(/\s+/g, ' ').trim();
  const tagOf = (node: DomNode): string => (node.tagName ? node.tagName.toLowerCase() : '');
  const attribute = (node: DomNode, name: string): string => (node.getAttribute ? node.getAttribute(name) || '' : '');
  // Letters and digits of any script: `[^a-z0-9]` made every Chinese, Russian or Arabic heading `section` (one
  // anchor for all of a page's sections) and dropped accented letters (`Économie` was `conomie`).
  const slug = (text: string): string =>
    clean(text)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '') || 'section';

  /** Text of an inline subtree, `/wiki/` links as `[#k label]`. */
  const inline = (node: DomNode, region: PageRegion): string => {
    let out = '';
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as DomNode;
      if (child.nodeType === 3) {
        out += child.textContent || '';
      } else if (child.nodeType === 1) {
        const tag = tagOf(child);
        if (tag === 'script' || tag === 'style') continue;
        if (tag === 'br') {
          out += ' ';
          continue;
        }
        const href = tag === 'a' ? attribute(child, 'href') : '';
        if (href.indexOf('/wiki/') === 0) {
          const label = clean(child.textContent || '')
            .replace(/\[/g, '(')
            .replace(/\]/g, ')');
          let target = href.slice('/wiki/'.length).split('#')[0]!.split('?')[0]!;
          try {
            target = decodeURIComponent(target);
          } catch {
            // a malformed escape: keep the raw text
          }
          target = clean(target.replace(/_/g, ' '));
          if (!label || !target) {
            out += label;
            continue;
          }
          let number = numbers.get(target);
          if (number === undefined) {
            links.push({ target, label, labels: [label], region });
            number = links.length;
            numbers.set(target, number);
          } else {
            const labels = (links[number - 1] as PageLink).labels as string[];
            if (labels.indexOf(label) < 0) labels.push(label);
          }
          out += `[#${number} ${label}]`;
        } else {
          out += inline(child, region);
        }
      }
    }
    return out;
  };

  /**
   * Sentences (split outside link markers), long ones wrapped at spaces outside markers. Chinese and Japanese
   * end a sentence with `。`, `！` or `？` and no space, and put no space between words: split there, and a line
   * with no space to wrap at within `MAX_LINE` is cut at `MAX_LINE` characters (outside markers, never inside a
   * surrogate pair). Such a paragraph was one line of thousands of characters, a whole window's worth.
   */
  const split = (text: string): string[] => {
    const sentences: string[] = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (char === '[') depth += 1;
      else if (char === ']') depth = Math.max(0, depth - 1);
      else if (
        depth === 0 &&
        (char === '.' || char === '!' || char === '?') &&
        text[i + 1] === ' ' &&
        /[A-Z0-9"'([]/.test(text[i + 2] || '')
      ) {
        sentences.push(text.slice(start, i + 1));
        start = i + 2;
      } else if (depth === 0 && (char === '\u3002' || char === '\uff01' || char === '\uff1f')) {
        // A closing quote or bracket after the full stop belongs to the sentence it closes: 「…。」
        while (/[\u300d\u300f\u3011\u3009\u300b\uff09\u201d\u2019"')]/.test(text[i + 1] || '')) i += 1;
        if (i + 1 < text.length) {
          sentences.push(text.slice(start, i + 1));
          start = i + 1;
        }
      }
    }
    sentences.push(text.slice(start));
    const out: string[] = [];
    for (let s = 0; s < sentences.length; s++) {
      let rest = clean(sentences[s] as string);
      while (rest.length > MAX_LINE) {
        let cut = -1;
        let hard = -1;
        let level = 0;
        for (let i = 0; i < rest.length; i++) {
          const char = rest[i] as string;
          // A cut before character i: outside markers, not between the halves of a surrogate pair.
          if (level === 0 && i > 0 && (i <= MAX_LINE || hard < 0) && !/[\udc00-\udfff]/.test(char)) hard = i;
          if (char === '[') level += 1;
          else if (char === ']') level = Math.max(0, level - 1);
          else if (char === ' ' && level === 0) {
            if (i <= MAX_LINE || cut < 0) cut = i;
            if (i > MAX_LINE) break;
          }
          if (i > MAX_LINE && hard > 0) break;
        }
        if (cut > 0 && cut <= MAX_LINE) {
          out.push(rest.slice(0, cut));
          rest = rest.slice(cut + 1);
        } else if (hard > 0 && hard < rest.length) {
          out.push(rest.slice(0, hard).trim());
          rest = rest.slice(hard).trim();
        } else break;
      }
      if (rest) out.push(rest);
    }
    return out;
  };

  let section = 'lead';
  const push = (text: string, region: PageRegion, inSection: string = section): void => {
    const line = clean(text);
    if (line) lines.push({ text: line, region, section: inSection });
  };

  const walk = (node: DomNode, region: PageRegion): void => {
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as DomNode;
      if (child.nodeType !== 1) continue;
      const tag = tagOf(child);
      if (tag === 'h1') {
        push(inline(child, 'title'), 'title', 'lead');
      } else if (tag === 'h2' || tag === 'h3') {
        section = slug(child.textContent || '');
        push(`== ${clean(inline(child, 'heading'))} ==`, 'heading');
      } else if (tag === 'table') {
        const rows: DomNode[] = [];
        const collect = (parent: DomNode): void => {
          const cells = parent.childNodes;
          for (let j = 0; j < cells.length; j++) {
            const cell = cells[j] as DomNode;
            if (cell.nodeType !== 1) continue;
            if (tagOf(cell) === 'tr') rows.push(cell);
            else if (tagOf(cell) === 'tbody' || tagOf(cell) === 'thead') collect(cell);
          }
        };
        collect(child);
        for (const row of rows) {
          const parts: string[] = [];
          const cells = row.childNodes;
          for (let j = 0; j < cells.length; j++) {
            const cell = cells[j] as DomNode;
            if (cell.nodeType === 1 && (tagOf(cell) === 'th' || tagOf(cell) === 'td'))
              parts.push(clean(inline(cell, 'infobox')));
          }
          push(parts.join(': '), 'infobox', 'infobox');
        }
      } else if (tag === 'p') {
        const texts = split(inline(child, region));
        for (let j = 0; j < texts.length; j++) push(texts[j] as string, region);
      } else if (tag === 'ul' || tag === 'ol') {
        const results = attribute(child, 'class').split(' ').indexOf('results') >= 0;
        const items = child.childNodes;
        for (let j = 0; j < items.length; j++) {
          const item = items[j] as DomNode;
          if (item.nodeType !== 1 || tagOf(item) !== 'li') continue;
          const texts = split(inline(item, results ? 'results' : region));
          for (let k = 0; k < texts.length; k++)
            push(
              `${k === 0 && !results ? '• ' : ''}${texts[k]}`,
              results ? 'results' : region,
              results ? 'results' : section,
            );
        }
      } else if (tag === 'section') {
        const isLead = attribute(child, 'class').split(' ').indexOf('lead') >= 0;
        if (isLead) section = 'lead';
        walk(child, isLead ? 'lead' : region === 'notice' ? 'notice' : 'body');
      } else if (tag === 'div' || tag === 'main' || tag === 'article') {
        walk(child, region);
      }
    }
  };

  const main = doc.querySelector('#content');
  const kind = main ? attribute(main, 'data-kind') || 'unknown' : 'unknown';
  const type = main ? attribute(main, 'data-type') || kind : kind;
  const heading = doc.querySelector('h1');
  const title = heading ? clean(heading.textContent || '') : '';
  if (main) walk(main, kind === 'article' ? 'body' : kind === 'search' ? 'results' : 'notice');
  return { kind, type, title, lines, links };
}
