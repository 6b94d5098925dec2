import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Article } from './article';
import { buildCorpusStore } from './corpus-store-builder';
import { writeJsonlCorpus } from './jsonl-corpus';
import { StoreSearch } from './store-search';

function article(title: string, lead: string): Article {
  return { title, type: 'place', infobox: [], lead, sections: [] };
}

// A store small enough to build in a test, searched with a low common-word threshold (20 articles) so that
// the split between rare and common words happens as it does on a 300,000-article store at 1,000.
describe('store search with common words (StoreSearch)', () => {
  let dir: string;
  let store: string;
  let db: Database.Database;
  let search: StoreSearch;
  let titleOf: (id: number) => string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'store-search-'));
    const jsonl = join(dir, 'corpus.jsonl');
    store = join(dir, 'corpus.sqlite');
    // Three articles share a rare name and differ by a number in the title, as a real dump's "Springfield
    // (Illinois)" or the synthetic worlds' "Drogialbury (3)"; "bay" and the numbers are in every filler.
    const articles = [
      ...[1, 2, 3].map((n) => article(`Morrow Bay (${n})`, 'Morrow Bay is a town on the coast.')),
      ...Array.from({ length: 40 }, (_, n) => article(`Filler ${n}`, `A bay town, founded in year 1 2 3 by ${n}.`)),
      article('Quarry Lane', 'A lane with a quarry, near the bay.'),
    ];
    writeJsonlCorpus(jsonl, articles, []);
    await buildCorpusStore(jsonl, store);
    db = new Database(store, { readonly: true });
    search = new StoreSearch(db, articles.length, 20);
    const title = db.prepare<string>('SELECT title FROM articles WHERE id = ?').pluck();
    titleOf = (id) => title.get(id) as string;
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the articles holding a word once, and tells rare words from common ones', () => {
    expect(search.articlesHolding('morrow')).toBe(3);
    expect(search.articlesHolding('bay')).toBe(44);
    expect(search.articlesHolding('nowhere')).toBe(0);
  });

  it('breaks a tie between the holders of a rare word by the common words of the query', () => {
    // "morrow" is rare, "bay" and "2" common: dropping the common words would tie the three Morrow Bays
    // (first by row id: "(1)"); BM25 over the whole query puts the one whose title holds "2" first.
    for (const n of [1, 2, 3]) {
      const hits = search.search(`Morrow Bay ${n}`, 10).map((hit) => titleOf(hit.id));
      expect(hits).toEqual([`Morrow Bay (${n})`, ...[1, 2, 3].filter((m) => m !== n).map((m) => `Morrow Bay (${m})`)]);
      // With "founded" (in the fillers only) no article holds every word: the title's number decides alone.
      const founded = search.search(`Morrow Bay ${n} founded`, 10).map((hit) => titleOf(hit.id));
      expect(founded[0]).toBe(`Morrow Bay (${n})`);
      expect(founded).toHaveLength(3); // only the rare word's holders
    }
  });

  it('finds the article for a question whose every-word AND query finds nothing', () => {
    // No article holds both "quarry" and "morrow": each is found by its rare word, above the common words.
    const hits = search.search('Which is older: Quarry Lane or Morrow Bay (3)?', 10).map((hit) => titleOf(hit.id));
    // Quarry Lane (two rare words in its title) and Morrow Bay (3) ("morrow", and "3" in its title) first.
    expect(hits.slice(0, 2).sort()).toEqual(['Morrow Bay (3)', 'Quarry Lane']);
    expect(hits.every((title) => title === 'Quarry Lane' || title.startsWith('Morrow Bay'))).toBe(true);
  });

  it('ANDs a query of common words only, the rarest first, then ranks one word in titles, deterministically', () => {
    const first = search.search('bay town 2', 10);
    expect(first).toHaveLength(10);
    expect(search.search('bay town 2', 10)).toEqual(first);
    // Articles holding all three words (the fillers, and Morrow Bay (2) with "2" in its title) only.
    for (const hit of first) expect(titleOf(hit.id)).toMatch(/^(Filler \d+|Morrow Bay \(2\))$/);
    expect(search.search('lane', 10).map((hit) => titleOf(hit.id))).toEqual(['Quarry Lane']);
    // One common word: the articles holding it in their title first, then the others in store order.
    const bay = search.search('bay', 10).map((hit) => titleOf(hit.id));
    expect(bay.slice(0, 3).sort()).toEqual(['Morrow Bay (1)', 'Morrow Bay (2)', 'Morrow Bay (3)']);
    expect(bay.slice(3)).toEqual(Array.from({ length: 7 }, (_, n) => `Filler ${n}`));
    expect(search.search('founded', 4).map((hit) => titleOf(hit.id))).toEqual([
      'Filler 0',
      'Filler 1',
      'Filler 2',
      'Filler 3',
    ]);
  });
});
