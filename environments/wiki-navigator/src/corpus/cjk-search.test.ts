import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WikiNavigatorEnv } from '../wiki-navigator-env';
import { withCjkBigrams, withCjkIndexTerms } from './cjk-bigrams';
import { buildCorpusStore } from './corpus-store-builder';
import { readJsonlCorpus } from './jsonl-corpus';
import { openCorpusStore, releaseCorpusStore } from './sqlite-corpus';

// Chinese, Japanese and Korean write no space between words: a search for a word inside a sentence found
// nothing, in memory (minisearch) and on a store (FTS5), since the whole clause was one indexed word.
describe('search on Chinese, Japanese and Korean text (character pairs)', () => {
  let dir: string;
  let jsonl: string;
  let store: string;
  const lines = [
    { title: '北京', infobox: { 国家: '[[中国]]' }, lead: '北京是中华人民共和国的首都，也是政治中心。' },
    { title: '中国', lead: '中国位于东亚。首都是[[北京]]。人口众多。' },
    { title: '東京', lead: '東京は日本の首都である。人口は約1400万人。' },
    { title: '서울', lead: '서울은 대한민국의 수도이다.' },
    { title: 'Morrow Bay', lead: 'Morrow Bay is a town on the coast of [[中国]].' },
    { title: '北京市', lead: '北京市は中国の首都。' },
    { title: '富士山', lead: '富士山は日本一高い山。' },
  ];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cjk-search-'));
    jsonl = join(dir, 'corpus.jsonl');
    store = join(dir, 'corpus.sqlite');
    writeFileSync(jsonl, lines.map((line) => JSON.stringify(line)).join('\n'));
    await buildCorpusStore(jsonl, store);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes runs of CJK characters as character pairs and leaves other text as it is', () => {
    expect(withCjkBigrams('東京は日本')).toBe(' 東京 京は は日 日本 ');
    expect(withCjkBigrams('iPhone手机 and 中')).toBe('iPhone 手机  and  中 ');
    expect(withCjkBigrams('Morrow Bay, Café 1843')).toBe('Morrow Bay, Café 1843');
  });

  it('finds a word inside a sentence, in memory and on a store alike', () => {
    const memory = readJsonlCorpus(jsonl);
    const disk = openCorpusStore(store);
    try {
      for (const corpus of [memory, disk]) {
        const titles = (query: string): string[] => corpus.search(query, 10).map((hit) => hit.title);
        expect(titles('首都').sort()).toEqual(['中国', '北京', '北京市', '東京']);
        expect(titles('政治中心')).toEqual(['北京']);
        expect(titles('人口')).toEqual(expect.arrayContaining(['中国', '東京']));
        expect(titles('대한민국')).toEqual(['서울']);
        expect(titles('coast')).toEqual(['Morrow Bay']); // other text as before
      }
    } finally {
      releaseCorpusStore(disk);
    }
  });

  // A one-character query found nothing where the character sits inside a run (`京` in `北京市`, indexed as
  // `北京 京市`): users search single characters.
  it('finds a one-character query wherever the character occurs, in memory and on a store alike', () => {
    const memory = readJsonlCorpus(jsonl);
    const disk = openCorpusStore(store);
    try {
      for (const corpus of [memory, disk]) {
        const titles = (query: string): string[] => corpus.search(query, 10).map((hit) => hit.title);
        expect(titles('京').sort()).toEqual(['中国', '北京', '北京市', '東京']); // inside a run and ending one
        expect(titles('山')).toEqual(['富士山']); // title and text
        expect(titles('士')).toEqual(['富士山']);
        expect(titles('서')).toEqual(['서울']);
        expect(titles('京 coast').sort()).toEqual(['Morrow Bay', '中国', '北京', '北京市', '東京']);
        expect(titles('北京').sort()).toEqual(['中国', '北京', '北京市']); // a pair is not widened to its characters
      }
    } finally {
      releaseCorpusStore(disk);
    }
  });

  it('writes the last character of each run too where text is indexed', () => {
    expect(withCjkIndexTerms('北京市 and 中', 'pairs-and-last')).toBe(' 北京 京市 市  and  中 ');
    expect(withCjkIndexTerms('北京市', 'pairs')).toBe(' 北京 京市 ');
    expect(withCjkIndexTerms('北京市', 'runs')).toBe('北京市');
  });

  it('SEARCH in an episode lists the article, its snippet ending at the full stop 。', async () => {
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(tasks, JSON.stringify({ question: '首都?', answer: '北京', titles: ['中国'], split: 'train' }));
    for (const corpus of [jsonl, store]) {
      const env = new WikiNavigatorEnv({ corpus, tasks });
      try {
        await env.reset({ seed: 1 });
        const searched = await env.step('SEARCH(政治中心)');
        expect(searched.info.feedback).toBe('SEARCH "政治中心": 1 results.');
        expect(searched.observation).toContain('[#1 北京]: 北京是中华人民共和国的首都，也是政治中心。');
        expect((await env.step('CLICK(1)')).info.page).toBe('北京');
        expect((await env.step('SEARCH(京)')).info.feedback).toBe('SEARCH "京": 4 results.');
      } finally {
        await env.close();
      }
    }
  });

  it('searches a store of character pairs alone (`cjk-bigrams`, built before) by pairs, as it was indexed', () => {
    const pairs = join(dir, 'pairs.sqlite');
    copyFileSync(store, pairs);
    const db = new Database(pairs);
    db.exec(
      "UPDATE meta SET value = 'cjk-bigrams' WHERE key = 'search-terms'; DROP TABLE search;" +
        "CREATE VIRTUAL TABLE search USING fts5(title, text, content='', tokenize='unicode61 remove_diacritics 2');",
    );
    const insert = db.prepare('INSERT INTO search (rowid, title, text) VALUES (?, ?, ?)');
    for (const row of db.prepare('SELECT id, title, body FROM articles').all() as Array<{
      id: number;
      title: string;
      body: string;
    }>)
      insert.run(row.id, withCjkBigrams(row.title), withCjkBigrams((JSON.parse(row.body) as { lead: string }).lead));
    db.close();
    const disk = openCorpusStore(pairs);
    try {
      expect(
        disk
          .search('首都', 10)
          .map((hit) => hit.title)
          .sort(),
      ).toEqual(['中国', '北京', '北京市', '東京']);
      expect(disk.search('政治中心', 10).map((hit) => hit.title)).toEqual(['北京']);
      expect(disk.search('coast', 10).map((hit) => hit.title)).toEqual(['Morrow Bay']);
    } finally {
      releaseCorpusStore(disk);
    }
  });

  it('searches a store built before character pairs as it was indexed (a whole run is one word)', () => {
    // A store of before: no `search-terms` key, CJK text indexed as FTS5's unicode61 splits it.
    const old = join(dir, 'old.sqlite');
    copyFileSync(store, old);
    const db = new Database(old);
    db.exec(
      "DELETE FROM meta WHERE key = 'search-terms'; DROP TABLE search;" +
        "CREATE VIRTUAL TABLE search USING fts5(title, text, content='', tokenize='unicode61 remove_diacritics 2');",
    );
    const insert = db.prepare('INSERT INTO search (rowid, title, text) VALUES (?, ?, ?)');
    for (const row of db.prepare('SELECT id, title, body FROM articles').all() as Array<{
      id: number;
      title: string;
      body: string;
    }>)
      insert.run(row.id, row.title, (JSON.parse(row.body) as { lead: string }).lead);
    db.close();
    const disk = openCorpusStore(old);
    try {
      expect(disk.search('東京は日本の首都である', 10).map((hit) => hit.title)).toEqual(['東京']);
      expect(disk.search('coast', 10).map((hit) => hit.title)).toEqual(['Morrow Bay']);
    } finally {
      releaseCorpusStore(disk);
    }
  });
});
