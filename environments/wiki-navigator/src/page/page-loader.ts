import { Agent, request } from 'node:http';
import { EnvFaultError } from '@turngym/core';
import type { BrowserPool } from '../browser/browser-pool';
import { extractPage, type ExtractedPage } from './extract-page';
import { parseLightHtml } from './light-dom';

/** Loads a corpus-server path (`/wiki/Title`, `/search?q=…`) and returns the extracted page. */
export interface PageLoader {
  readonly mode: 'browser' | 'direct';
  load(path: string): Promise<ExtractedPage>;
}

/**
 * The extraction function as an expression the browser evaluates against its own `document`; the page is then
 * hidden (`display: none`). Nothing reads a tab's layout (BACK replays Node's history, and extraction reads
 * the DOM alone), but Chromium went on to lay out and paint the whole document after DOMContentLoaded and the
 * tab's next navigation waited for it: after a 40,000-item list or a 30,000-row table (1–1.6 MB), the next
 * page load took 1–2 s instead of under 0.1 s. The DOM stays as parsed, so a same-document evaluation still
 * reads the page.
 */
export const EXTRACT_IN_PAGE = `(() => { const page = (${extractPage.toString()})(document); const root = document.documentElement; if (root) root.style.display = 'none'; return page; })()`;

const keepAlive = new Agent({ keepAlive: true, maxSockets: 16 });

function fetchText(url: string, timeoutMs: number, agent: Agent | false = keepAlive): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A small LRU map (insertion order of a Map is the recency order). */
export class PageCache {
  private readonly entries = new Map<string, ExtractedPage>();
  hits = 0;
  misses = 0;

  constructor(readonly capacity: number) {}

  get(key: string): ExtractedPage | undefined {
    const page = this.entries.get(key);
    if (page === undefined) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    this.entries.delete(key);
    this.entries.set(key, page);
    return page;
  }

  set(key: string, page: ExtractedPage): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, page);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Direct mode: the page's HTML parsed into a light DOM (`light-dom.ts`: linkedom's tree without its DOM), and
 * the same extraction function run over that document.
 * No browser, no layout, no scripts. The HTML comes from the corpus server in-process when `serve` is given
 * (the env's case: the same bytes as a GET, without a socket hop that cost more than parsing), else by the
 * HTTP request the browser would make.
 *
 * A page is a pure function of (corpus, path), so extracted pages may be memoised in a `PageCache` shared by
 * every env of a corpus (`pageCache` option; browser mode always navigates).
 */
export class DirectPageLoader implements PageLoader {
  readonly mode = 'direct';

  constructor(
    private readonly origin: () => string,
    private readonly timeoutMs = 15_000,
    private readonly cache?: PageCache,
    private readonly serve?: (path: string) => string,
  ) {}

  async load(path: string): Promise<ExtractedPage> {
    const cached = this.cache?.get(path);
    if (cached) return cached;
    const page = this.serve ? this.extract(this.serve(path)) : await this.fetchAndExtract(path);
    this.cache?.set(path, page);
    return page;
  }

  private extract(html: string): ExtractedPage {
    return extractPage(parseLightHtml(html));
  }

  private async fetchAndExtract(path: string): Promise<ExtractedPage> {
    const url = `${this.origin()}${path}`;
    let html: string;
    try {
      html = await fetchText(url, this.timeoutMs);
    } catch (error) {
      // One retry, as in browser mode: a dropped keep-alive socket is the usual cause. A trainer's synchronous
      // generation can block the event loop past the server's keep-alive timeout, so every pooled socket may be
      // stale at once: the retry opens a connection of its own.
      try {
        html = await fetchText(url, this.timeoutMs, false);
      } catch {
        throw new EnvFaultError(`direct page load of ${path} failed: ${(error as Error).message}`, { cause: error });
      }
    }
    return this.extract(html);
  }
}

/**
 * Browser mode: a real navigation in a pooled Chromium tab; the extraction function runs in the new document
 * at DOMContentLoaded (the moment `page.goto(url, { waitUntil: 'domcontentloaded' })` returned before) and
 * reports back through a binding (`BrowserTab`), so a load is one CDP command and one event.
 */
export class BrowserPageLoader implements PageLoader {
  readonly mode = 'browser';

  constructor(
    private readonly pool: BrowserPool,
    private readonly origin: () => string,
  ) {}

  load(path: string): Promise<ExtractedPage> {
    const url = `${this.origin()}${path}`;
    return this.pool.withTab(async (tab) => (await tab.load(url, EXTRACT_IN_PAGE)) as ExtractedPage);
  }
}
