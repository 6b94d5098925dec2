import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WikiNavigatorEnv } from '../wiki-navigator-env';
import { buildCorpusStore } from './corpus-store-builder';
import { writeJsonlCorpus } from './jsonl-corpus';
import { openCorpusStore } from './sqlite-corpus';
import { generateSyntheticArticles } from './synthetic-encyclopedia';

// What a long-lived env server sees of a store rebuilt in place (`turngym-wiki-convert --store` renames the new
// file over the old): each version it opened kept an open handle, and with it the replaced file's disk space.
const hasProcFds = existsSync('/proc/self/fd');

(hasProcFds ? describe : describe.skip)('corpus store handles across rebuilds', () => {
  let dir: string;
  let jsonl: string;
  let store: string;
  let articles = 150;
  /** Builds the store again, one article more each time, so the file surely differs (size, not only time). */
  const rebuild = async (): Promise<void> => {
    articles += 1;
    writeJsonlCorpus(jsonl, generateSyntheticArticles({ seed: 3, articles }), []);
    await buildCorpusStore(jsonl, store);
  };
  /** The descriptors this process holds on the store's path, replaced files (" (deleted)") included. */
  const handles = (): number =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(join('/proc/self/fd', fd)).startsWith(store);
      } catch {
        return false; // closed since it was listed
      }
    }).length;
  const open = (): WikiNavigatorEnv => new WikiNavigatorEnv({ corpus: store });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-store-handles-'));
    jsonl = join(dir, 'corpus.jsonl');
    store = join(dir, 'corpus.sqlite');
    await rebuild();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('closes the old version once no env uses it: one handle however often the store is rebuilt', async () => {
    const first = open();
    const once = handles();
    expect(once).toBeGreaterThan(0);
    await first.close();
    for (let version = 0; version < 3; version++) {
      await rebuild();
      const env = open();
      expect(env.corpus.size).toBe(articles); // the new version
      await env.close();
      // Before: 2, 3, 4 — one more per rebuild, each on a deleted file.
      expect({ version, handles: handles() }).toEqual({ version, handles: once });
    }
  });

  it('keeps the old version open while an env (or its fork) still reads it', async () => {
    const before = handles();
    const old = open();
    const size = old.corpus.size;
    await rebuild();
    const twin = await old.fork();
    const fresh = open();
    expect(fresh.corpus.size).toBe(size + 1);
    await old.close();
    // The fork reads its parent's version, whatever the file is now.
    const corpus = (twin as WikiNavigatorEnv).corpus;
    expect(corpus.size).toBe(size);
    expect(corpus.search('the', 1)).toHaveLength(1); // still readable
    await twin.close();
    await fresh.close();
    expect(handles()).toBe(before);
  });

  it('lets go of the store an env refused at construction opened (options that leave no task)', async () => {
    const before = handles();
    // Single-hop questions of 4 hops: none, so the constructor throws and no env is left to close.
    expect(() => new WikiNavigatorEnv({ corpus: store, questionTypes: ['single'], minHops: 4 })).toThrow(/no train/);
    await rebuild();
    await open().close();
    expect(handles()).toBe(before);
  });

  it('opens a store again after its owner closed it, instead of handing out a closed handle', () => {
    const corpus = openCorpusStore(store);
    corpus.close();
    // Before: "The database connection is not open" from every later env on this store.
    expect(openCorpusStore(store).search('the', 1)).toHaveLength(1);
    expect(open().corpus.search('the', 1)).toHaveLength(1);
  });
});
