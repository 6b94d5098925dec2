import type Database from 'better-sqlite3';
import { isOneCjkCharacter, withCjkBigrams, type CjkTerms } from './cjk-bigrams';
import { Lru } from './lru';

/**
 * Words too common to rank by: each matches most of a corpus, and FTS5 scores every match, so a question's
 * "what is the … of the …" would make a search read most of the index. Left out unless a query has nothing else.
 */
const STOPWORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the to was were what which who whom whose when where why how with'.split(
    ' ',
  ),
);

/**
 * Articles above which a word is "common" for a store's search. FTS5's `bm25()` costs time in proportion to
 * the articles holding each word of its expression, whatever the LIMIT: it counts every holder of every
 * phrase for the IDF and scores every matching row (EXPLAIN QUERY PLAN: a scan of the virtual table and a temp
 * B-tree for the ORDER BY; `ORDER BY rank` sorts inside FTS5 but still scores all rows). On the 300,000-article
 * store an OR over "place" (120,000 articles) took 30–130 ms, counting it alone 5 ms. A word held by at most
 * this many articles costs at most ~1 ms to score; the words of the test questions fall far on either side
 * (names: 2–30 articles; field words, first names and numbers: 3,000–180,000), and 300 or 3,000 ranked the
 * same. An absolute number, not a share of the corpus: it bounds time, and a small store (every word under it)
 * ranks exactly as before.
 */
export const COMMON_WORD_ARTICLES = 1000;

/** Article counts per word, kept per process: common words repeat from query to query. */
const WORD_CACHE = 4096;

/** The common words an all-common query is ANDed over at most (the rarest first). */
const COMMON_QUERY_WORDS = 3;

/**
 * BM25's weight of one matching word in an article where it occurs once, in its text (1) or its title too:
 * FTS5's bm25 (k1 = 1.2, b = 0.75, titles 3×) of tf 1 in an average-length article is 2.2 / 2.2 = 1; a title
 * match weighs tf 3 (+1 for its text): 4 · 2.2 / 5.2 ≈ 1.7, 3 · 2.2 / 4.2 ≈ 1.6.
 */
const TEXT_MATCH = 1;
const TITLE_MATCH = 1.6;

/** The words of a free-text query, lower-cased, deduplicated, stopwords left out unless nothing else is left. */
export function queryWords(text: string): string[] {
  const all = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const content = all.filter((word) => !STOPWORDS.has(word));
  return (content.length > 0 ? content : all).slice(0, 32);
}

/**
 * A free-text query as an FTS5 expression: its words, each quoted (no operators leak through), OR-ed (or
 * AND-ed with `every`).
 */
export function ftsQuery(text: string, prefix = false, every = false): string | undefined {
  const words = queryWords(text);
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"${prefix ? '*' : ''}`).join(every ? ' AND ' : ' OR ');
}

/** An article found by a search: its row id and its score (higher is better). */
export interface RankedArticle {
  id: number;
  score: number;
}

/**
 * Ranked search over a store's FTS5 index (`search`: title, text; contentless) at a cost bounded by its rare
 * words, not by the corpus.
 *
 * A query's words are rare (held by at most `commonWordArticles` articles), common, or held by none (left out:
 * a word no article holds no longer empties the every-word AND). With a rare word, the
 * candidates are the articles holding one (FTS5's BM25 over the rare words, titles 3×: at most a few thousand
 * rows), and each common word an article holds adds its IDF × `TEXT_MATCH`, or × `TITLE_MATCH` in its title
 * (found with unranked `(rare) AND "word"` queries, which FTS5 answers by seeking, without counting the common
 * word's articles). Articles holding every word come first, as before. That is BM25 over the whole query with
 * the common words' term frequency taken as 1 and their length normalisation left out — what they weigh
 * (IDF ≤ ln(N / 1000)) is a tie-break between the rare word's holders ("Drogialbury (3)" over "Drogialbury (5)"
 * for "Drogialbury 3"). What it gives up: an article holding none of the rare words ranks nowhere, where the
 * old OR query could rank one holding several common words (a comparison naming a rare and an all-common
 * title). On 300 test questions of the 300,000-article store, asked whole, the named article came first 212
 * times against the OR query's 216 and was in the top 10 288 times against 298; on the section's 3-word
 * queries 204 and 242 against 204 and 243.
 *
 * With only common words, the query is ANDed over its `COMMON_QUERY_WORDS` rarest, then without the most
 * frequent of those, down to the two rarest, each ranked by FTS5's BM25 over its words (no OR over common
 * words, which scored 30–130 ms on the 300,000-article store); then the rarest alone, in titles by BM25, then
 * in store order. Ties go to the lower row id: deterministic.
 */
export class StoreSearch {
  private readonly holders = new Lru<string, number>(WORD_CACHE);
  private readonly statements: {
    ranked: Database.Statement<unknown[], RankedArticle>;
    rowids: Database.Statement<unknown[], number>;
    first: Database.Statement<unknown[], number>;
    rowAt: Database.Statement<unknown[], number>;
    count: Database.Statement<unknown[], number>;
  };
  private readonly cjkTerms: CjkTerms;

  /** `articleCount`: the rows of the index (the store's articles), for the common words' IDF. */
  constructor(
    db: Database.Database,
    private readonly articleCount: number,
    private readonly commonWordArticles = COMMON_WORD_ARTICLES,
    /**
     * How the index holds Chinese, Japanese and Korean (`CjkTerms`; `true` is `pairs`, `false` `runs`): with pairs,
     * queries are split so, and with `pairs-and-last` a one-character word is searched as a prefix (`"京"*`).
     */
    cjkTerms: CjkTerms | boolean = 'runs',
  ) {
    this.cjkTerms = cjkTerms === true ? 'pairs' : cjkTerms === false ? 'runs' : cjkTerms;
    this.statements = {
      ranked: db.prepare(
        'SELECT rowid AS id, -bm25(search, 3.0, 1.0) AS score FROM search WHERE search MATCH ? ORDER BY bm25(search, 3.0, 1.0), rowid LIMIT ?',
      ),
      rowids: db.prepare<unknown[], number>('SELECT rowid FROM search WHERE search MATCH ?').pluck(),
      first: db.prepare<unknown[], number>('SELECT rowid FROM search WHERE search MATCH ? LIMIT ?').pluck(),
      rowAt: db.prepare<unknown[], number>('SELECT rowid FROM search WHERE search MATCH ? LIMIT 1 OFFSET ?').pluck(),
      count: db.prepare<unknown[], number>('SELECT count(*) FROM search WHERE search MATCH ?').pluck(),
    };
  }

  /** A query word as an FTS5 phrase: quoted (no operators leak through), a one-CJK-character word a prefix. */
  private term(word: string): string {
    return this.cjkTerms === 'pairs-and-last' && isOneCjkCharacter(word) ? `"${word}"*` : `"${word}"`;
  }

  private expression(words: readonly string[], operator: 'AND' | 'OR'): string {
    return words.map((word) => this.term(word)).join(` ${operator} `);
  }

  /** Articles holding `word`: counted once per process (a common word's count reads its whole doclist). */
  articlesHolding(word: string): number {
    let count = this.holders.get(word);
    if (count === undefined) {
      count = this.statements.count.get(this.term(word)) as number;
      this.holders.set(word, count);
    }
    return count;
  }

  private isCommon(word: string): boolean {
    const known = this.holders.get(word);
    if (known !== undefined) return known > this.commonWordArticles;
    // Reading up to the threshold's row is bounded; a rare word is then counted at about the same cost.
    return this.statements.rowAt.get(this.term(word), this.commonWordArticles) !== undefined;
  }

  private idf(word: string): number {
    const holders = this.articlesHolding(word);
    return Math.max(1e-6, Math.log((this.articleCount - holders + 0.5) / (holders + 0.5))); // FTS5's bm25 IDF
  }

  /** The `limit` best articles for a free-text query, best first. */
  search(text: string, limit: number): RankedArticle[] {
    const words = queryWords(this.cjkTerms === 'runs' ? text : withCjkBigrams(text));
    const common = words.filter((word) => this.isCommon(word));
    const rare = words.filter((word) => !common.includes(word) && this.articlesHolding(word) > 0);
    if (rare.length > 0) return this.byRareWords(rare, common, limit);
    return this.byCommonWords(common, limit);
  }

  private byRareWords(rare: readonly string[], common: readonly string[], limit: number): RankedArticle[] {
    const anyRare = this.expression(rare, 'OR');
    const candidates = this.statements.ranked.all(anyRare, -1);
    const score = new Map(candidates.map((hit) => [hit.id, hit.score]));
    const held = new Map(candidates.map((hit) => [hit.id, 0]));
    for (const word of [...rare, ...common]) {
      const holders = this.statements.rowids.all(`(${anyRare}) AND ${this.term(word)}`);
      for (const id of holders) held.set(id, (held.get(id) as number) + 1);
      if (!common.includes(word)) continue;
      const idf = this.idf(word);
      const inTitle = new Set(this.statements.rowids.all(`(${anyRare}) AND {title} : ${this.term(word)}`));
      for (const id of holders)
        score.set(id, (score.get(id) as number) + idf * (inTitle.has(id) ? TITLE_MATCH : TEXT_MATCH));
    }
    const words = rare.length + common.length;
    const every = (id: number): number => (held.get(id) === words ? 1 : 0);
    return candidates
      .map((hit) => ({ id: hit.id, score: score.get(hit.id) as number }))
      .sort((a, b) => every(b.id) - every(a.id) || b.score - a.score || a.id - b.id)
      .slice(0, limit);
  }

  private byCommonWords(common: readonly string[], limit: number): RankedArticle[] {
    const rarestFirst = [...common]
      .sort((a, b) => this.articlesHolding(a) - this.articlesHolding(b) || (a < b ? -1 : 1))
      .slice(0, COMMON_QUERY_WORDS);
    const found: RankedArticle[] = [];
    const seen = new Set<number>();
    const add = (hits: readonly RankedArticle[]): void => {
      for (const hit of hits) {
        if (found.length >= limit || seen.has(hit.id)) continue;
        seen.add(hit.id);
        found.push(hit);
      }
    };
    for (let count = rarestFirst.length; count >= 2 && found.length < limit; count--)
      add(this.statements.ranked.all(this.expression(rarestFirst.slice(0, count), 'AND'), limit));
    const rarest = rarestFirst[0];
    if (rarest === undefined || found.length >= limit) return found;
    // The rarest word alone: BM25 over every holder scored "country" (60,000 articles) in 80–90 ms; over
    // those holding it in their title it takes 1–16 ms, and the others follow in store order, unscored.
    add(this.statements.ranked.all(`{title} : ${this.term(rarest)}`, limit));
    const last = found.at(-1)?.score ?? 1;
    add(this.statements.first.all(this.term(rarest), 2 * limit).map((id) => ({ id, score: last / 2 })));
    return found;
  }
}
