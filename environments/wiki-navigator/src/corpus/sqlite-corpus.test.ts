import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionsError, runEpisode } from '@turngym/core';
import { WikiExpert } from '../agents/wiki-expert';
import { describeTaskCounts, taskBankFor } from '../tasks/task-bank';
import { countTasks, formatTaskCounts, formatTaskStats, type TaskCount } from '../tasks/task-stats';
import { WikiNavigatorEnv } from '../wiki-navigator-env';
import { buildCorpusStore } from './corpus-store-builder';
import { readJsonlCorpus, writeJsonlCorpus } from './jsonl-corpus';
import { openCorpusStore, releaseCorpusStore } from './sqlite-corpus';
import { queryWords, StoreSearch } from './store-search';
import { generateSyntheticArticles } from './synthetic-encyclopedia';

// The on-disk store must be the JSONL corpus it was built from, read differently: same lookups (redirects,
// case folding), same articles and links, same tasks with the same ids, same pages in the env.
describe('the on-disk corpus store (SQLite + FTS5)', () => {
  let dir: string;
  let jsonl: string;
  let store: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-store-'));
    jsonl = join(dir, 'corpus.jsonl');
    store = join(dir, 'corpus.sqlite');
    const articles = generateSyntheticArticles({ seed: 5, articles: 400 });
    const redirects = articles.slice(0, 40).map((article) => ({
      title: `${article.title} (alias)`,
      redirect: article.title.toLowerCase(), // resolved case-insensitively, as NAVIGATE does
    }));
    redirects.push({ title: 'Chain', redirect: `${articles[0]?.title} (alias)` }); // two levels
    writeJsonlCorpus(
      jsonl,
      [...articles, { ...(articles[1] as (typeof articles)[number]), lead: 'a duplicate' }],
      redirects,
    );
    const stats = await buildCorpusStore(jsonl, store);
    // The second article's duplicate is left out, and counted: the build says what it dropped.
    expect(stats).toMatchObject({ articles: 400, redirects: 41, duplicates: 1 });
    expect(existsSync(`${store}.building-work`)).toBe(false); // the skeletons tasks were generated from
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves, reads and links exactly as the in-memory corpus does, and poses the same tasks', () => {
    const memory = readJsonlCorpus(jsonl);
    const disk = openCorpusStore(store);
    expect(disk.size).toBe(memory.size);
    const probes = memory
      .articles()
      .flatMap((article) => [
        article.title,
        article.title.toUpperCase(),
        `${article.title} (alias)`,
        article.title.replace(/ /g, '_'),
      ]);
    probes.push('Chain', 'No such article', '', 'chain');
    for (const probe of probes) expect([probe, disk.resolve(probe)]).toEqual([probe, memory.resolve(probe)]);
    for (const article of memory.articles()) {
      expect(disk.get(article.title)).toEqual(article);
      expect(disk.linksOf(article.title)).toEqual(memory.linksOf(article.title));
    }
    expect(disk.get(memory.articles()[1]?.title as string)?.lead).not.toBe('a duplicate'); // the first wins
    expect(disk.taskSource.all()).toEqual(taskBankFor(memory).all());
  });

  it('searches with BM25 (titles 3×): an article’s title finds it first', () => {
    const disk = openCorpusStore(store);
    const memory = readJsonlCorpus(jsonl);
    for (const article of memory.articles().slice(0, 50)) {
      const hits = disk.search(article.title, 10);
      expect(hits[0]?.title).toBe(article.title);
      expect(hits.length).toBeLessThanOrEqual(10);
      expect(hits.every((hit) => hit.snippet.length > 0 && hit.score > 0)).toBe(true);
    }
    expect(disk.search('', 10)).toEqual([]);
    expect(disk.search('"unbalanced AND (', 10)).toEqual(expect.any(Array)); // FTS5 syntax cannot leak through
    const title = memory.articles()[3]?.title as string;
    expect(disk.similarTitles(title.slice(0, title.length - 1), 5)).toContain(title);
  });

  it('ranks as FTS5’s BM25 did (every-word AND, then the OR query) when no word of a query is common', () => {
    // 400 articles: every word is held by fewer than COMMON_WORD_ARTICLES, so the bounded search must give
    // exactly the old two-query ranking (over the words the store holds: one it lacks no longer empties the AND).
    const db = new Database(store, { readonly: true });
    try {
      const ranked = db.prepare<{ id: number }>(
        'SELECT rowid AS id FROM search WHERE search MATCH ? ORDER BY bm25(search, 3.0, 1.0), rowid LIMIT 11',
      );
      const search = new StoreSearch(db, 400);
      const memory = readJsonlCorpus(jsonl);
      const queries = [
        ...openCorpusStore(store)
          .taskSource.all()
          .slice(0, 60)
          .map((task) => task.question),
        ...memory
          .articles()
          .slice(0, 30)
          .map((article) => `${article.title} ${article.type}`),
      ];
      for (const query of queries) {
        const expression = (operator: string): string =>
          queryWords(query)
            .filter((word) => search.articlesHolding(word) > 0)
            .map((word) => `"${word}"`)
            .join(` ${operator} `);
        const every = ranked.all(expression('AND')).map((hit) => hit.id);
        const old =
          every.length > 10
            ? every
            : [
                ...every,
                ...ranked
                  .all(expression('OR'))
                  .map((hit) => hit.id)
                  .filter((id) => !every.includes(id)),
              ];
        expect([query, search.search(query, 10).map((hit) => hit.id)]).toEqual([query, old.slice(0, 10)]);
      }
    } finally {
      db.close();
    }
  });

  it('runs the env on the store with the same observations as on the JSONL corpus', async () => {
    for (const task of ['qa', 'race'] as const) {
      const onDisk = new WikiNavigatorEnv({ corpus: store, task, split: 'test' });
      const inMemory = new WikiNavigatorEnv({ corpus: jsonl, task, split: 'test' });
      try {
        expect(onDisk.taskCount()).toBe(inMemory.taskCount());
        for (let seed = 0; seed < 12; seed++) {
          const a = await onDisk.reset({ seed });
          const b = await inMemory.reset({ seed });
          expect(a.observation).toBe(b.observation);
          const expert = new WikiExpert(onDisk);
          await expert.start({ seed, spec: onDisk.spec, observation: a.observation, info: a.info });
          let observation = a.observation;
          for (let turn = 0; turn < 10; turn++) {
            const action = await expert.act(observation, {});
            const stepA = await onDisk.step(action);
            const stepB = await inMemory.step(action);
            expect(stepA.observation).toBe(stepB.observation);
            expect(stepA.reward).toBe(stepB.reward);
            observation = stepA.observation;
            if (stepA.terminated || stepA.truncated) {
              expect(stepA.info.success).toBe(true);
              break;
            }
          }
        }
        expect(await runEpisode(onDisk, new WikiExpert(onDisk), 99)).toMatchObject({ success: true });
      } finally {
        await onDisk.close();
        await inMemory.close();
      }
    }
  });

  it('builds no store from a corpus of no article, and leaves the one it would replace as it was', async () => {
    const empty = join(dir, 'redirects-only.jsonl');
    writeJsonlCorpus(empty, [], [{ title: 'A', redirect: 'B' }]);
    await expect(buildCorpusStore(empty, store)).rejects.toThrow(/redirects-only\.jsonl: it holds no article/);
    expect(openCorpusStore(store).size).toBe(400);
    expect(existsSync(`${store}.building`)).toBe(false);
  });

  it('finds a decomposed title (Cafe + U+0301) that a store built before titles were read in NFC holds', async () => {
    const source = join(dir, 'nfd.jsonl');
    const nfdStore = join(dir, 'nfd.sqlite');
    writeJsonlCorpus(source, [
      { title: 'Hub', type: 'place', infobox: [], lead: 'See [[Caf\u00e9]].', sections: [] },
      { title: 'Caf\u00e9', type: 'place', infobox: [], lead: 'Coffee, near [[Hub]].', sections: [] },
    ]);
    await buildCorpusStore(source, nfdStore);
    // What the previous build wrote for a corpus whose title was decomposed: the title as it came.
    const db = new Database(nfdStore);
    db.prepare('UPDATE articles SET title = ?, lower = ? WHERE title = ?').run('Cafe\u0301', 'cafe\u0301', 'Caf\u00e9');
    db.close();
    const disk = openCorpusStore(nfdStore);
    try {
      expect(disk.resolve('Caf\u00e9')).toBe('Cafe\u0301');
      expect(disk.resolve('cafe\u0301')).toBe('Cafe\u0301');
      expect(disk.get('Caf\u00e9')?.lead).toBe('Coffee, near [[Hub]].');
      expect(disk.linksOf('Hub')).toEqual(['Cafe\u0301']);
      expect(disk.resolve('Cafe')).toBeUndefined();
    } finally {
      releaseCorpusStore(disk);
    }
  });

  it('names a missing store and the command that builds one', () => {
    expect(() => new WikiNavigatorEnv({ corpus: join(dir, 'missing.sqlite') })).toThrow(InvalidOptionsError);
    expect(() => new WikiNavigatorEnv({ corpus: join(dir, 'missing.sqlite') })).toThrow(
      /no corpus store at .*missing\.sqlite \(build one with turngym-wiki-convert --store/,
    );
  });

  it('names a dump given where a JSONL corpus belongs, in one line, without reading it', async () => {
    const xml = '<mediawiki><page><title>A</title><ns>0</ns><revision><text>x</text></revision></page></mediawiki>';
    writeFileSync(join(dir, 'dump.xml'), xml);
    writeFileSync(join(dir, 'dump.xml.bz2'), Buffer.from('BZh91AY&SY'));
    for (const [name, kind] of [
      ['dump.xml', 'XML'],
      ['dump.xml.bz2', 'bzip2-compressed'],
    ]) {
      const path = join(dir, name as string);
      // `corpus: "dump.xml.bz2"`: read whole (gigabytes for Wikipedia) only to report twenty lines of "not JSON".
      expect(() => new WikiNavigatorEnv({ corpus: path })).toThrow(
        `options.corpus: ${path} is ${kind} (a MediaWiki dump?), not a JSONL corpus; convert it first: turngym-wiki-convert ${path} corpus.sqlite`,
      );
      await expect(buildCorpusStore(path, join(dir, 'dump.sqlite'))).rejects.toThrow(
        `Invalid options for the JSONL corpus ${path}: it is ${kind} (a MediaWiki dump?): convert a dump with turngym-wiki-convert <dump> <store.sqlite>`,
      );
    }
    await expect(buildCorpusStore(join(dir, 'none.jsonl'), join(dir, 'none.sqlite'))).rejects.toThrow(
      `Invalid options for the JSONL corpus ${join(dir, 'none.jsonl')}: it cannot be read (no such file or directory)`,
    );
    expect(readdirSync(dir).filter((file) => /^(dump|none)\.sqlite/.test(file))).toEqual([]);
  });

  it('counts its tasks without reading them (--stats, and the error for options that leave none)', () => {
    const disk = openCorpusStore(store);
    const sorted = (counts: readonly TaskCount[]): TaskCount[] =>
      [...counts].sort((a, b) => `${a.kind}${a.split}${a.hops}`.localeCompare(`${b.kind}${b.split}${b.hops}`));
    expect(sorted(disk.taskSource.counts())).toEqual(sorted(countTasks(disk.taskSource.all())));
    expect(formatTaskCounts(disk.taskSource.counts())).toEqual(formatTaskStats(disk.taskSource.all()));
    const expected = describeTaskCounts(disk.taskSource.all());
    // On the 300,000-article store, reading all 900,000 tasks to say how many there are took gigabytes.
    const all = jest.spyOn(disk.taskSource, 'all');
    try {
      expect(() => new WikiNavigatorEnv({ corpus: store, minHops: 8, maxHops: 8 })).toThrow(
        `it has ${expected}. Use options.split`,
      );
      expect(all).not.toHaveBeenCalled();
    } finally {
      all.mockRestore();
    }
  });

  it('refuses a file that is not a whole store at construction, naming it (not SQLITE_CORRUPT mid-episode)', () => {
    const whole = readFileSync(store);
    const other = join(dir, 'other.sqlite');
    const foreign = new Database(other);
    foreign.exec('CREATE TABLE notes (text TEXT)');
    foreign.close();
    const files: Array<[string, Buffer | undefined, RegExp]> = [
      // A copy or download stopped short: SQLite would open it and fail on the first missing page it reads.
      [
        'cut.sqlite',
        whole.subarray(0, whole.length - 4096),
        /cut\.sqlite is not a corpus store: the file is cut short/,
      ],
      [
        'half.sqlite',
        whole.subarray(0, whole.length >> 1),
        /half\.sqlite is not a corpus store: the file is cut short/,
      ],
      ['empty.sqlite', Buffer.alloc(0), /empty\.sqlite is not a corpus store: the file is empty/],
      ['corpus.db', Buffer.from('{"title": "A"}\n'), /corpus\.db is not a corpus store: not an SQLite database/],
      ['other.sqlite', undefined, /other\.sqlite is not a corpus store: an SQLite database without a store's tables/],
    ];
    for (const [name, contents, message] of files) {
      if (contents) writeFileSync(join(dir, name), contents);
      const refusal = (() => {
        try {
          new WikiNavigatorEnv({ corpus: join(dir, name) });
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refusal).toBeInstanceOf(InvalidOptionsError);
      expect((refusal as Error).message).toMatch(message);
      expect((refusal as Error).message).toMatch(/build one with turngym-wiki-convert --store/);
    }
  });
});
