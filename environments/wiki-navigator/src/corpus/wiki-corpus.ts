import type { Article } from './article';
import type { FieldPhrases } from './field-phrases';

export interface SearchHit {
  readonly title: string;
  /** The first sentence of the lead, links as plain text. */
  readonly snippet: string;
  readonly score: number;
}

export interface CorpusDescription {
  /** Where it came from, e.g. `synthetic(seed=1, articles=2000)` or a file path. */
  readonly name: string;
  /** Question phrasing for infobox fields (optional; see `phraseFor`). */
  readonly phrases?: FieldPhrases;
}

/**
 * What an env, its server and its task checks read from a corpus: title lookup, articles, the link graph and
 * BM25 search. Two implementations: `Corpus` holds every article in memory (the synthetic world, JSONL files);
 * `SqliteCorpus` reads an on-disk store one article at a time, so a Wikipedia-sized corpus costs no memory.
 * Both are immutable, so one instance is shared by every env, server and pool in a process.
 */
export interface WikiCorpus {
  readonly description: CorpusDescription;
  /** Articles (redirects not counted). */
  readonly size: number;
  /** The canonical title `title` leads to (normalised, through redirects, then case-insensitively). */
  resolve(title: string): string | undefined;
  get(title: string): Article | undefined;
  has(title: string): boolean;
  /** Targets of the article's links that exist (resolved), in page order, each once. */
  linksOf(title: string): readonly string[];
  /** BM25-ranked articles for a query (title matches weigh 3×), best first. */
  search(query: string, limit?: number): SearchHit[];
  /** Titles that look like `title`, for "did you mean" feedback. */
  similarTitles(title: string, limit?: number): string[];
}
