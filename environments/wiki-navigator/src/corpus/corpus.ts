import MiniSearch from 'minisearch';
import { isOneCjkCharacter, withCjkBigrams, withCjkIndexTerms } from './cjk-bigrams';
import { articleLinks, linkTarget, normalizeTitle, stripLinks, type Article, type Redirect } from './article';
import type { CorpusDescription, SearchHit, WikiCorpus } from './wiki-corpus';

export type { CorpusDescription, SearchHit } from './wiki-corpus';

interface SearchDocument {
  id: number;
  title: string;
  text: string;
}

/**
 * An immutable set of articles: title lookup (MediaWiki's rules, redirects, then case-insensitive), the link
 * graph, and BM25 search. Immutable so that one instance can be shared by every env, server and pool in a
 * process, and so that a page is a pure function of (corpus, path): forks need no browser replay.
 */
export class Corpus implements WikiCorpus {
  readonly description: CorpusDescription;
  private readonly byTitle = new Map<string, Article>();
  private readonly redirects = new Map<string, string>();
  private readonly byLowerTitle = new Map<string, string>();
  private readonly linkCache = new Map<string, readonly string[]>();
  private readonly ordered: Article[];
  private index: MiniSearch<SearchDocument> | undefined;

  constructor(
    articles: readonly Article[],
    redirects: readonly Redirect[] = [],
    description: CorpusDescription = { name: 'corpus' },
  ) {
    this.description = description;
    this.ordered = [];
    for (const article of articles) {
      const title = normalizeTitle(article.title);
      if (!title || this.byTitle.has(title)) continue; // first wins, as in a dump with duplicates
      const normalized = title === article.title ? article : { ...article, title };
      this.byTitle.set(title, normalized);
      this.ordered.push(normalized);
      const lower = title.toLowerCase();
      if (!this.byLowerTitle.has(lower)) this.byLowerTitle.set(lower, title);
    }
    for (const redirect of redirects) {
      const from = normalizeTitle(redirect.title);
      const to = linkTarget(redirect.redirect);
      if (!from || !to || this.byTitle.has(from)) continue;
      this.redirects.set(from, to);
      const lower = from.toLowerCase();
      if (!this.byLowerTitle.has(lower)) this.byLowerTitle.set(lower, from);
    }
  }

  get size(): number {
    return this.ordered.length;
  }

  /** Every article, in load order. */
  articles(): readonly Article[] {
    return this.ordered;
  }

  /**
   * The canonical title `title` leads to: exact (after normalisation), through redirects (two levels, as
   * MediaWiki follows one and dumps sometimes chain), then case-insensitively. Undefined if none.
   */
  resolve(title: string): string | undefined {
    let current = normalizeTitle(title);
    if (!current) return undefined;
    if (!this.byTitle.has(current) && !this.redirects.has(current)) {
      const folded = this.byLowerTitle.get(current.toLowerCase());
      if (!folded) return undefined;
      current = folded;
    }
    for (let hops = 0; hops < 3; hops++) {
      if (this.byTitle.has(current)) return current;
      const next = this.redirects.get(current);
      if (!next) return undefined;
      current = next;
    }
    return undefined;
  }

  get(title: string): Article | undefined {
    const resolved = this.resolve(title);
    return resolved === undefined ? undefined : this.byTitle.get(resolved);
  }

  has(title: string): boolean {
    return this.resolve(title) !== undefined;
  }

  /** Targets of the article's links that exist (resolved), in page order, each once. */
  linksOf(title: string): readonly string[] {
    const resolved = this.resolve(title);
    if (resolved === undefined) return [];
    const cached = this.linkCache.get(resolved);
    if (cached) return cached;
    const seen = new Set<string>();
    for (const target of articleLinks(this.byTitle.get(resolved) as Article)) {
      const to = this.resolve(target);
      if (to !== undefined && to !== resolved) seen.add(to);
    }
    const links = [...seen];
    this.linkCache.set(resolved, links);
    return links;
  }

  /** BM25+ ranked articles for a query (minisearch; title matches weigh 3×), best first. */
  search(query: string, limit = 10): SearchHit[] {
    const index = this.searchIndex();
    return index
      .search(query.normalize('NFC'), {
        boost: { title: 3 },
        combineWith: 'OR',
        // A one-character CJK word matches the pairs it starts (`京` → `京市`) and the run-final `京`, each as an
        // occurrence of that character: minisearch weighs a prefix match of one more character by
        // `prefix · 2 / 2.3`, so this weight makes it 1, as an exact match. Other words are not prefixes.
        prefix: isOneCjkCharacter,
        weights: { fuzzy: 0.45, prefix: 2.3 / 2 },
      })
      .slice(0, limit)
      .map((hit) => {
        const article = this.ordered[hit.id as number] as Article;
        return { title: article.title, snippet: leadSnippet(article), score: hit.score };
      });
  }

  /** Titles that look like `title` (fuzzy and prefix matches on titles), for "did you mean" feedback. */
  similarTitles(title: string, limit = 5): string[] {
    const text = title.normalize('NFC').trim();
    if (!text) return [];
    return this.searchIndex()
      .search(text, { fields: ['title'], fuzzy: 0.25, prefix: true, combineWith: 'OR' })
      .slice(0, limit)
      .map((hit) => (this.ordered[hit.id as number] as Article).title);
  }

  /**
   * Built on first use: a corpus that is only browsed never pays for indexing. Text is indexed in NFC, as
   * queries are searched: minisearch keeps a combining accent in its word, so `café` written with one
   * (`cafe\u0301`) and written precomposed were different words that never matched. Chinese, Japanese and
   * Korean are indexed as character pairs and each run's last character, and searched as character pairs, a
   * one-character word as a prefix (`cjk-bigrams.ts`).
   */
  private searchIndex(): MiniSearch<SearchDocument> {
    if (this.index) return this.index;
    const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
    const index = new MiniSearch<SearchDocument>({
      fields: ['title', 'text'],
      storeFields: [],
      idField: 'id',
      tokenize: (text) => tokenize(withCjkIndexTerms(text, 'pairs-and-last')),
      // A query is pairs only: its last character alone would match every article holding that character.
      searchOptions: { tokenize: (text) => tokenize(withCjkBigrams(text)) },
    });
    index.addAll(
      this.ordered.map((article, id) => ({
        id,
        title: article.title,
        text: [
          ...article.infobox.map((field) => `${field.field} ${stripLinks(field.value)}`),
          stripLinks(article.lead),
          ...article.sections.map((section) => `${section.title} ${stripLinks(section.text)}`),
        ]
          .join('\n')
          .normalize('NFC'),
      })),
    );
    this.index = index;
    return index;
  }
}

/** The first sentence of the lead (at most 160 characters), links as text. */
export function leadSnippet(article: Article): string {
  const lead = stripLinks(article.lead).replace(/\s+/g, ' ').trim();
  const end = lead.search(/[.!?](\s|$)|[\u3002\uff01\uff1f]/);
  const sentence = end >= 0 ? lead.slice(0, end + 1) : lead;
  return sentence.length > 160 ? `${sentence.slice(0, 157).trimEnd()}…` : sentence;
}
