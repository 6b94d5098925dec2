import Database from 'better-sqlite3';
import { resolve as resolvePath } from 'node:path';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { InvalidOptionsError } from '@turngym/core';
import { articleLinks, normalizeTitle, type Article } from './article';
import { leadSnippet } from './corpus';
import { Lru } from './lru';
import { withCjkBigrams, type CjkTerms } from './cjk-bigrams';
import { COMMON_WORD_ARTICLES, ftsQuery, queryWords, StoreSearch } from './store-search';
import type { CorpusDescription, SearchHit, WikiCorpus } from './wiki-corpus';
import type { TaskFilter, TaskSelection, TaskSource } from '../tasks/task-bank';
import type { TaskCount } from '../tasks/task-stats';
import type { WikiTask } from '../tasks/wiki-task';

/** Format version of a store; a store of another version is rebuilt, not misread. */
export const STORE_VERSION = '1';
/**
 * How a store's search index holds Chinese, Japanese and Korean (meta `search-terms`): `cjk-bigrams-2`, as
 * character pairs and each run's last character (a one-character query is searched as a prefix). A store built
 * before is searched as it was indexed: `cjk-bigrams` as pairs alone (a one-character query finds only a run of
 * one character), and one with no such key with a whole run as one word.
 */
export const SEARCH_TERMS = 'cjk-bigrams-2';
const CJK_TERMS: ReadonlyMap<string, CjkTerms> = new Map<string, CjkTerms>([
  ['cjk-bigrams', 'pairs'],
  [SEARCH_TERMS, 'pairs-and-last'],
]);

/** Articles and link lists kept per process (bounded: memory must not grow with the corpus). */
const ARTICLE_CACHE = 2048;
const LINK_CACHE = 8192;

interface ArticleRow {
  title: string;
  type: string;
  body: string;
}

/**
 * A corpus read from an on-disk store (SQLite, built by `buildCorpusStore`): articles, redirects, an FTS5
 * index and the tasks generated at build time. Nothing is loaded up front — a lookup is an indexed query and
 * a search an FTS5 query — so opening a store of 300,000 articles takes milliseconds and an env's memory does
 * not grow with the corpus (two bounded caches per process). Lookups follow `Corpus`'s rules (normalised
 * title, two levels of redirects, then case-insensitively); search is FTS5's BM25 with titles weighing 3×,
 * the same weights as the in-memory index, so rankings are close but not identical to minisearch's BM25+.
 */
export class SqliteCorpus implements WikiCorpus {
  readonly description: CorpusDescription;
  readonly size: number;
  readonly taskSource: TaskSource;
  private readonly db: Database.Database;
  private readonly articles = new Lru<string, Article>(ARTICLE_CACHE);
  private readonly links = new Lru<string, readonly string[]>(LINK_CACHE);
  private readonly statements: {
    article: Database.Statement<unknown[], ArticleRow>;
    articleById: Database.Statement<unknown[], ArticleRow>;
    exists: Database.Statement<unknown[], number>;
    redirect: Database.Statement<unknown[], string>;
    articleByLower: Database.Statement<unknown[], string>;
    redirectByLower: Database.Statement<unknown[], string>;
    similar: Database.Statement<unknown[], { id: number; score: number }>;
  };
  private readonly ranker: StoreSearch;
  /** How the index holds CJK text (queries are split the same way). */
  private readonly cjkTerms: CjkTerms;

  constructor(readonly path: string) {
    const refuse = (reason: string): InvalidOptionsError =>
      new InvalidOptionsError('turngym/wiki-navigator', [
        `options.corpus: ${path} is not a corpus store: ${reason}; build one with turngym-wiki-convert --store <corpus.jsonl> <store.sqlite>`,
      ]);
    // SQLite reads a cut file (a copy or download stopped short) until a query reaches a missing page, so such
    // a store would open and then fail with SQLITE_CORRUPT in the middle of an episode: checked here, at once.
    const damage = sqliteFileDamage(path);
    if (damage) throw refuse(damage);
    let meta: Map<string, string>;
    try {
      this.db = new Database(path, { readonly: true, fileMustExist: true });
    } catch (error) {
      throw refuse((error as Error).message);
    }
    try {
      meta = new Map(
        this.db
          .prepare<unknown[], { key: string; value: string }>('SELECT key, value FROM meta')
          .all()
          .map((row) => [row.key, row.value]),
      );
    } catch (error) {
      this.db.close();
      const message = (error as Error).message;
      throw refuse(
        /no such table/.test(message) ? `an SQLite database without a store's tables (${message})` : message,
      );
    }
    if (meta.get('version') !== STORE_VERSION) {
      this.db.close();
      throw new InvalidOptionsError('turngym/wiki-navigator', [
        `options.corpus: ${path} is a corpus store of version ${meta.get('version') ?? 'unknown'}, not ${STORE_VERSION}; rebuild it with turngym-wiki-convert --store`,
      ]);
    }
    this.size = Number(meta.get('articles'));
    this.description = { name: path };
    this.statements = {
      article: this.db.prepare('SELECT title, type, body FROM articles WHERE title = ?'),
      articleById: this.db.prepare('SELECT title, type, body FROM articles WHERE id = ?'),
      exists: this.db.prepare<unknown[], number>('SELECT 1 FROM articles WHERE title = ?').pluck(),
      redirect: this.db.prepare<unknown[], string>('SELECT target FROM redirects WHERE title = ?').pluck(),
      articleByLower: this.db
        .prepare<unknown[], string>('SELECT title FROM articles WHERE lower = ? ORDER BY id LIMIT 1')
        .pluck(),
      redirectByLower: this.db
        .prepare<unknown[], string>('SELECT title FROM redirects WHERE lower = ? ORDER BY rowid LIMIT 1')
        .pluck(),
      similar: this.db.prepare(
        'SELECT rowid AS id, -bm25(search, 3.0, 1.0) AS score FROM search WHERE search MATCH ? ORDER BY bm25(search, 3.0, 1.0) LIMIT ?',
      ),
    };
    this.cjkTerms = CJK_TERMS.get(meta.get('search-terms') ?? '') ?? 'runs';
    this.ranker = new StoreSearch(this.db, this.size, COMMON_WORD_ARTICLES, this.cjkTerms);
    this.taskSource = new StoredTasks(this.db);
  }

  private isArticle(title: string): boolean {
    return this.articles.get(title) !== undefined || this.statements.exists.get(title) !== undefined;
  }

  resolve(title: string): string | undefined {
    const normalized = normalizeTitle(title);
    if (!normalized) return undefined;
    const found = this.resolveNormalized(normalized);
    if (found !== undefined) return found;
    // A store built before titles were read in NFC holds a decomposed title (`Cafe\u0301`, as a macOS-made corpus
    // writes it) as it came: found in that form too, not only after a rebuild.
    const decomposed = normalized.normalize('NFD');
    return decomposed === normalized ? undefined : this.resolveNormalized(decomposed);
  }

  private resolveNormalized(title: string): string | undefined {
    let current = title;
    if (!this.isArticle(current) && this.statements.redirect.get(current) === undefined) {
      const lower = current.toLowerCase();
      const folded = this.statements.articleByLower.get(lower) ?? this.statements.redirectByLower.get(lower);
      if (folded === undefined) return undefined;
      current = folded;
    }
    for (let hops = 0; hops < 3; hops++) {
      if (this.isArticle(current)) return current;
      const next = this.statements.redirect.get(current);
      if (next === undefined) return undefined;
      current = next;
    }
    return undefined;
  }

  get(title: string): Article | undefined {
    const resolved = this.resolve(title);
    if (resolved === undefined) return undefined;
    return this.articles.get(resolved) ?? this.read(this.statements.article.get(resolved));
  }

  has(title: string): boolean {
    return this.resolve(title) !== undefined;
  }

  private read(row: ArticleRow | undefined): Article | undefined {
    if (!row) return undefined;
    const body = JSON.parse(row.body) as Pick<Article, 'infobox' | 'lead' | 'sections'>;
    const article: Article = { title: row.title, type: row.type, ...body };
    this.articles.set(row.title, article);
    return article;
  }

  linksOf(title: string): readonly string[] {
    const resolved = this.resolve(title);
    if (resolved === undefined) return [];
    const cached = this.links.get(resolved);
    if (cached) return cached;
    const seen = new Set<string>();
    for (const target of articleLinks(this.get(resolved) as Article)) {
      const to = this.resolve(target);
      if (to !== undefined && to !== resolved) seen.add(to);
    }
    const links = [...seen];
    this.links.set(resolved, links);
    return links;
  }

  /**
   * BM25 over titles (3×) and text, articles holding every word of the query first, at a cost bounded by the
   * query's rare words (`StoreSearch`); a query that is an article's title (or a redirect to it) puts that
   * article first, as Wikipedia's search does. FTS5's BM25 alone ranks a one-word title below longer titles
   * holding that word in about 1 of 15 cases, where minisearch's BM25+ ranks it first.
   */
  search(query: string, limit = 10): SearchHit[] {
    // No word to search by (punctuation alone): no hits, and no exact title either.
    if (queryWords(query).length === 0) return [];
    const ranked = this.ranker.search(query, limit + 1);
    const hits = ranked.map((hit) => {
      const article = this.read(this.statements.articleById.get(hit.id)) as Article;
      return { title: article.title, snippet: leadSnippet(article), score: hit.score };
    });
    const exact = this.resolve(query);
    if (exact === undefined || hits[0]?.title === exact) return hits.slice(0, limit);
    const article = this.get(exact) as Article;
    const own = hits.find((hit) => hit.title === exact);
    const first = { title: exact, snippet: leadSnippet(article), score: own?.score ?? hits[0]?.score ?? 0 };
    return [first, ...hits.filter((hit) => hit.title !== exact)].slice(0, limit);
  }

  /** Titles sharing a word or a word's start with `title`, best BM25 on titles first (no fuzzy matching). */
  similarTitles(title: string, limit = 5): string[] {
    const words = ftsQuery(this.cjkTerms === 'runs' ? title : withCjkBigrams(title), true);
    if (!words) return [];
    return this.statements.similar
      .all(`{title} : (${words})`, limit)
      .map((hit) => (this.read(this.statements.articleById.get(hit.id)) as Article).title);
  }

  /** Whether its database handle is open (`close()`, or the last env of a replaced store, closes it). */
  get open(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** The tasks saved in a store: one query per draw, an array of row ids per filter (not the tasks). */
class StoredTasks implements TaskSource {
  private readonly selections = new Map<string, Int32Array>();
  private readonly byRow: Database.Statement<unknown[], string>;
  private readonly byId: Database.Statement<unknown[], string>;

  constructor(private readonly db: Database.Database) {
    this.byRow = db.prepare<unknown[], string>('SELECT body FROM tasks WHERE rowid = ?').pluck();
    this.byId = db.prepare<unknown[], string>('SELECT body FROM tasks WHERE id = ?').pluck();
  }

  private rows(filter: TaskFilter): Int32Array {
    const key = JSON.stringify(filter);
    let rows = this.selections.get(key);
    if (!rows) {
      const kinds = filter.kinds.map(() => '?').join(', ');
      const ids = this.db
        .prepare<unknown[], number>(
          `SELECT rowid FROM tasks WHERE split = ? AND kind IN (${kinds}) AND hops BETWEEN ? AND ? ORDER BY rowid`,
        )
        .pluck()
        .all(filter.split, ...filter.kinds, filter.minHops, filter.maxHops);
      rows = Int32Array.from(ids);
      this.selections.set(key, rows);
    }
    return rows;
  }

  select(filter: TaskFilter): TaskSelection {
    const rows = this.rows(filter);
    return {
      size: rows.length,
      at: (index) => JSON.parse(this.byRow.get(rows[index]) as string) as WikiTask,
    };
  }

  tasks(filter: TaskFilter): WikiTask[] {
    const selection = this.select(filter);
    return Array.from({ length: selection.size }, (_, index) => selection.at(index));
  }

  get(id: string): WikiTask | undefined {
    const body = this.byId.get(id);
    return body === undefined ? undefined : (JSON.parse(body) as WikiTask);
  }

  counts(): readonly TaskCount[] {
    return this.db
      .prepare<unknown[], TaskCount>(
        'SELECT kind, split, hops, count(*) AS count FROM tasks GROUP BY kind, split, hops',
      )
      .all();
  }

  all(): readonly WikiTask[] {
    return this.db
      .prepare<unknown[], string>('SELECT body FROM tasks ORDER BY rowid')
      .pluck()
      .all()
      .map((body) => JSON.parse(body) as WikiTask);
  }
}

/**
 * Why the file at `path` is not a whole SQLite database (empty, another format, shorter than its header says),
 * or undefined. The header's page count is trusted only when SQLite marked it valid (its "version-valid-for"
 * number equals the change counter), as SQLite itself does.
 */
function sqliteFileDamage(path: string): string | undefined {
  let header: Buffer;
  let size: number;
  try {
    size = statSync(path).size;
    header = Buffer.alloc(100);
    const fd = openSync(path, 'r');
    try {
      readSync(fd, header, 0, 100, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return (error as Error).message;
  }
  if (size === 0) return 'the file is empty';
  if (size < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return 'not an SQLite database';
  const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16);
  const pages = header.readUInt32BE(28);
  if (header.readUInt32BE(92) === header.readUInt32BE(24) && size < pages * pageSize)
    return `the file is cut short (${size} bytes of the ${pages * pageSize} its header says: an interrupted copy or download?)`;
  return undefined;
}

interface OpenStore {
  corpus: SqliteCorpus;
  /** The path, size and modification time it was opened at. */
  key: string;
  /** Envs using it, plus one for each `openCorpusStore` call (never released). */
  users: number;
}

/** Open stores by key, and the key of the version last opened of each path. */
const opened = new Map<string, OpenStore>();
const latest = new Map<string, string>();
const byCorpus = new WeakMap<SqliteCorpus, OpenStore>();

/** Whether a corpus option names a store (by its extension). */
export function isCorpusStore(path: string): boolean {
  return /\.(sqlite|sqlite3|db)$/i.test(path);
}

/** Closes a version no one uses that is not its path's newest: its handle kept a replaced file's disk space. */
function closeIfStale(store: OpenStore): void {
  if (store.users > 0 || latest.get(store.corpus.path) === store.key) return;
  store.corpus.close();
  if (opened.get(store.key) === store) opened.delete(store.key);
}

/**
 * The store at `path`, opened once per (path, size, modification time) per process and counted as used until
 * `releaseCorpusStore` (every env of a process shares it). A store rebuilt in place is a new version: the old
 * one's handle is closed once its last user releases it, so a long-lived env server serving a store rebuilt
 * every day neither gathers handles nor keeps each replaced file's disk space.
 */
export function retainCorpusStore(path: string): SqliteCorpus {
  const absolute = resolvePath(path);
  let stat;
  try {
    stat = statSync(absolute);
  } catch {
    throw new InvalidOptionsError('turngym/wiki-navigator', [
      `options.corpus: no corpus store at ${absolute} (build one with turngym-wiki-convert --store <corpus.jsonl> <store.sqlite>)`,
    ]);
  }
  const key = `${absolute}\u0000${stat.size}\u0000${stat.mtimeMs}`;
  let store = opened.get(key);
  // Closed by its owner (`corpus.close()`): opened again, not handed out closed.
  if (!store || !store.corpus.open) {
    store = { corpus: new SqliteCorpus(absolute), key, users: 0 };
    opened.set(key, store);
    byCorpus.set(store.corpus, store);
  }
  store.users += 1;
  const previous = latest.get(absolute);
  latest.set(absolute, key);
  if (previous !== undefined && previous !== key) {
    const old = opened.get(previous);
    if (old) closeIfStale(old);
  }
  return store.corpus;
}

/** Ends one use of a store `retainCorpusStore` gave; the last use of a replaced version closes it. */
export function releaseCorpusStore(corpus: SqliteCorpus): void {
  const store = byCorpus.get(corpus);
  if (!store || store.users === 0) return;
  store.users -= 1;
  closeIfStale(store);
}

/** One more use of a store already retained (a fork shares its parent's version, whatever the file is now). */
export function shareCorpusStore(corpus: SqliteCorpus): void {
  const store = byCorpus.get(corpus);
  if (store) store.users += 1;
}

/**
 * Opens a store once per (path, size, modification time) per process: every env of a process shares it. The
 * handle stays open for the process's life; envs use `retainCorpusStore` and `releaseCorpusStore`.
 */
export function openCorpusStore(path: string): SqliteCorpus {
  return retainCorpusStore(path);
}
