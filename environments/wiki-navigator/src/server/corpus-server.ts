import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvFaultError, runUnowned } from '@turngym/core';
import { normalizeTitle, type Article } from '../corpus/article';
import { firstCodePoints } from '../corpus/well-formed-text';
import type { WikiCorpus } from '../corpus/wiki-corpus';
import { renderArticleHtml, renderMissingHtml, renderSearchHtml } from './article-html';

/** Search results shown on a results page. */
export const SEARCH_RESULTS = 10;
/** Rendered article pages kept per server (about 3 KB each). */
const RENDERED_PAGES = 4096;
/** Longest query the server runs (longer ones are cut: BM25 over thousands of terms helps nobody). */
export const MAX_QUERY_LENGTH = 200;

/**
 * The local encyclopedia: a real HTTP server on 127.0.0.1 and an ephemeral port, so the browser navigates
 * real URLs and the direct mode fetches the very same bytes.
 *
 * Routes: `GET /wiki/<Title>` (an article, following redirects; 404 with a "missing" page otherwise),
 * `GET /search?q=<query>` (BM25 results), `GET /health`.
 */
export class CorpusServer {
  private server: Server | undefined;
  private address: AddressInfo | undefined;
  /** Rendered article pages by canonical title (a page is a pure function of the corpus), LRU-bounded. */
  private readonly rendered = new Map<string, string>();

  constructor(readonly corpus: WikiCorpus) {}

  get port(): number {
    if (!this.address) throw new Error('CorpusServer: not started');
    return this.address.port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get listening(): boolean {
    return this.server?.listening === true;
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = createServer((request, response) => this.handle(request, response));
    // A forgotten env must not keep the process alive: the listening socket is unref'd, and idle keep-alive
    // connections are dropped after a few seconds.
    server.keepAliveTimeout = 5_000;
    // Chromium's keep-alive connections too: they held a finished process open for those seconds. A request
    // in flight keeps the loop alive through its client's timer (the page task's, or the direct fetch's).
    server.on('connection', (socket) => socket.unref());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.unref();
    this.server = server;
    this.address = server.address() as AddressInfo;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // keep-alive sockets (ours and Chromium's) would hold close() open
    });
  }

  private render(article: Article): string {
    const html = renderArticleHtml(article, (title) => this.corpus.has(title));
    this.rendered.set(article.title, html);
    if (this.rendered.size > RENDERED_PAGES) this.rendered.delete(this.rendered.keys().next().value as string);
    return html;
  }

  /**
   * The page at a path (`/wiki/Title`, `/search?q=…`, anything else a 404 page), exactly what a GET of it
   * returns. Direct mode reads pages here, in-process: the HTTP round trip cost more than the rendering and
   * parsing together, and the HTML is the same bytes either way.
   */
  page(path: string): { status: number; html: string } {
    const url = new URL(path, 'http://127.0.0.1');
    if (url.pathname.startsWith('/wiki/')) {
      let requested: string;
      try {
        requested = normalizeTitle(decodeURIComponent(url.pathname.slice('/wiki/'.length)));
      } catch {
        requested = url.pathname.slice('/wiki/'.length);
      }
      const article = this.corpus.get(requested);
      if (article) return { status: 200, html: this.rendered.get(article.title) ?? this.render(article) };
      return { status: 404, html: renderMissingHtml(requested) };
    }
    if (url.pathname === '/search') {
      const query = firstCodePoints(url.searchParams.get('q') ?? '', MAX_QUERY_LENGTH);
      return {
        status: 200,
        html: renderSearchHtml(query, query.trim() ? this.corpus.search(query, SEARCH_RESULTS) : []),
      };
    }
    return { status: 404, html: renderMissingHtml(url.pathname) };
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname === '/health') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const { status, html } = this.page(request.url ?? '/');
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  }
}

interface SharedEntry {
  server: CorpusServer;
  references: number;
  starting: Promise<CorpusServer>;
}

const shared = new Map<WikiCorpus, SharedEntry>();

/** A reference to a shared server; `release()` once (idempotent), the last one stops the server. */
export interface CorpusServerLease {
  readonly server: CorpusServer;
  release(): Promise<void>;
}

/**
 * One server per corpus per process, reference-counted: every env (and every fork) of a pool that reads the
 * same corpus shares it, and the last `release()` stops it, so closing the last env leaves no socket open.
 */
export async function acquireCorpusServer(corpus: WikiCorpus): Promise<CorpusServerLease> {
  let entry = shared.get(corpus);
  if (!entry) {
    const server = new CorpusServer(corpus);
    // Shared by every env (and so every session of an env server) on this corpus: its listening socket and request
    // handlers are no session's code, whichever env's page load started it (a fault in a handler closed that session).
    entry = { server, references: 0, starting: runUnowned(() => server.start()) };
    shared.set(corpus, entry);
  }
  entry.references += 1;
  const current = entry;
  try {
    await current.starting;
  } catch (error) {
    current.references -= 1;
    if (shared.get(corpus) === current) shared.delete(corpus);
    throw new EnvFaultError(`could not start the corpus server: ${(error as Error).message}`, { cause: error });
  }
  let released = false;
  return {
    server: current.server,
    async release() {
      if (released) return;
      released = true;
      current.references -= 1;
      if (current.references === 0 && shared.get(corpus) === current) {
        shared.delete(corpus);
        await runUnowned(() => current.server.stop());
      }
    },
  };
}

/** How many shared corpus servers are running (tests check that closing every env stops them). */
export function runningCorpusServers(): number {
  return shared.size;
}
