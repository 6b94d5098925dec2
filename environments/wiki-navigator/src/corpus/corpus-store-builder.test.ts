import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCorpusStore } from './corpus-store-builder';
import { writeJsonlCorpus } from './jsonl-corpus';
import { generateSyntheticArticles } from './synthetic-encyclopedia';

describe('building a corpus store', () => {
  let dir: string;
  let jsonl: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wiki-store-build-'));
    jsonl = join(dir, 'corpus.jsonl');
    writeJsonlCorpus(jsonl, generateSyntheticArticles({ seed: 2, articles: 300 }), []);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes no rollback journal: the file is renamed into place whole, or removed', async () => {
    const store = join(dir, 'journal.sqlite');
    const seen: string[] = [];
    await buildCorpusStore(jsonl, store, {
      // Mid-transaction here: SQLite's default ("delete") journal exists then, and SQLite ignored
      // `journal_mode = OFF` in better-sqlite3's safe mode (11 MB of journal writes at 60,000 articles).
      onProgress: (phase) => {
        for (const journal of [`${store}.building-journal`, `${store}.building-work-journal`])
          if (existsSync(journal)) seen.push(`${phase}: ${journal}`);
        seen.push(phase);
      },
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((entry) => entry.includes('journal'))).toEqual([]);
  });

  it('stops when aborted during task generation, removes its partial files and keeps the old store', async () => {
    const store = join(dir, 'aborted.sqlite');
    writeFileSync(store, 'the previous store');
    const controller = new AbortController();
    let tasks = 0;
    const building = buildCorpusStore(jsonl, store, {
      signal: controller.signal,
      // Aborted from within the synchronous generation: only a turn of the event loop lets it be seen.
      onProgress: (phase, done) => {
        if (phase !== 'tasks') return;
        tasks = done;
        setImmediate(() => controller.abort());
      },
    });
    await expect(building).rejects.toThrow(`${store}: the build was interrupted; ${store} is left as it was`);
    expect(tasks).toBeGreaterThan(0);
    expect(existsSync(`${store}.building`) || existsSync(`${store}.building-work`)).toBe(false);
    expect(readFileSync(store, 'utf8')).toBe('the previous store');
  });
});
