import Database from 'better-sqlite3';
import { createReadStream, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setImmediate as turn } from 'node:timers/promises';
import { InvalidOptionsError } from '@turngym/core';
import { generateQuestions, generateRaces } from '../tasks/task-generator';
import { articleLinks, linkTarget, normalizeTitle, stripLinks, type Article } from './article';
import { withCjkIndexTerms } from './cjk-bigrams';
import { dumpKind, parseJsonlEntry } from './jsonl-corpus';
import { SEARCH_TERMS, STORE_VERSION } from './sqlite-corpus';
import { SKELETON_SCHEMA, StoreTaskGraph } from './store-task-graph';

export interface CorpusStoreStats {
  articles: number;
  redirects: number;
  /** Articles left out because an earlier one has the same title once normalised (`apple` and `Apple`). */
  duplicates: number;
  tasks: number;
  /** Seconds spent: reading and indexing the articles, generating the tasks, in all. */
  indexSeconds: number;
  taskSeconds: number;
  seconds: number;
}

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE articles (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, lower TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE redirects (title TEXT PRIMARY KEY, lower TEXT NOT NULL, target TEXT NOT NULL);
CREATE VIRTUAL TABLE search USING fts5(title, text, content='', tokenize='unicode61 remove_diacritics 2');
CREATE TABLE tasks (id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, split TEXT NOT NULL, hops INTEGER NOT NULL, body TEXT NOT NULL);
`;

/** What search indexes of an article: the text `Corpus`'s in-memory index reads, links as plain text. */
function searchText(article: Article): string {
  return [
    ...article.infobox.map((field) => `${field.field} ${stripLinks(field.value)}`),
    stripLinks(article.lead),
    ...article.sections.map((section) => `${section.title} ${stripLinks(section.text)}`),
  ].join('\n');
}

/** Tasks written per transaction while they are generated. */
const TASK_BATCH = 10_000;
/**
 * Tasks generated between two turns of the event loop. Task generation is synchronous: without these turns a
 * Ctrl-C's handler ran only once every task was written (5 s at 20,000 articles), so an interrupted build
 * left its `.building` files (60 MB there) until the next build of the same store.
 */
const TASKS_PER_TURN = 500;

export interface BuildCorpusStoreOptions {
  /** Stops the build at its next turn of the event loop: its partial files are removed and it rejects. */
  signal?: AbortSignal;
  /** Called at each turn of the event loop: the phase, and how many articles or tasks are written so far. */
  onProgress?: (phase: 'articles' | 'tasks', done: number) => void;
}

/**
 * Builds an on-disk corpus store (SQLite) from a JSONL corpus, streaming: articles (JSON bodies, one row
 * each), redirects, a contentless FTS5 index (title and text, as the in-memory index has them), and every
 * task the corpus yields, with the JSONL corpus's name, so the store poses exactly the tasks
 * `corpus: "<corpus.jsonl>"` does. Memory does not grow with the corpus's text: articles go to disk in
 * batches, and the tasks are generated from a work database of article skeletons (title, type, infobox,
 * link targets; `StoreTaskGraph`) and written as they come, so a 300,000-article corpus holds only arrays of
 * article ids. Written to a temporary file and renamed, so a store on disk is always complete.
 */
export async function buildCorpusStore(
  jsonlPath: string,
  storePath: string,
  options: BuildCorpusStoreOptions = {},
): Promise<CorpusStoreStats> {
  const started = performance.now();
  const source = resolve(jsonlPath);
  const { signal, onProgress } = options;
  const interrupted = (): Error => new Error(`${storePath}: the build was interrupted; ${storePath} is left as it was`);
  if (signal?.aborted) throw interrupted();
  // A dump given where its JSONL is expected (`--store dump.xml store.sqlite`): one line, not twenty "not JSON".
  let dump: string | undefined;
  try {
    dump = dumpKind(source);
  } catch (error) {
    throw new InvalidOptionsError(`the JSONL corpus ${source}`, [
      `it cannot be read (${(error as Error).message.replace(/^[A-Z]+: /, '').replace(/, (open|stat) '[^']*'$/, '')})`,
    ]);
  }
  if (dump)
    throw new InvalidOptionsError(`the JSONL corpus ${source}`, [
      `it is ${dump}: convert a dump with turngym-wiki-convert <dump> <store.sqlite>`,
    ]);
  const partial = `${storePath}.building`;
  const work = `${storePath}.building-work`;
  rmSync(partial, { force: true });
  rmSync(work, { force: true });
  const db = new Database(partial);
  // The file is renamed into place whole, or removed: a rollback journal protects nothing here, and was 4 MB or
  // more of writes at 20,000 articles. better-sqlite3's safe mode ignores `journal_mode = OFF` (it stays
  // "delete"), so it is lifted for the build's own connection only; a store is always read in safe mode.
  db.unsafeMode(true);
  const input = createReadStream(source);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -131072'); // 128 MB while building
    db.exec(SCHEMA);
    db.prepare('ATTACH DATABASE ? AS work').run(work);
    db.pragma('work.journal_mode = OFF');
    db.pragma('work.synchronous = OFF');
    db.pragma('work.cache_size = -16384');
    db.exec(
      `${SKELETON_SCHEMA}; CREATE TABLE work.redirects (title TEXT NOT NULL, lower TEXT NOT NULL, target TEXT NOT NULL);` +
        'CREATE TABLE work.questions (question TEXT PRIMARY KEY) WITHOUT ROWID',
    );
    const insertArticle = db.prepare(
      'INSERT OR IGNORE INTO main.articles (title, lower, type, body) VALUES (?, ?, ?, ?)',
    );
    const insertSearch = db.prepare('INSERT INTO main.search (rowid, title, text) VALUES (?, ?, ?)');
    const insertSkeleton = db.prepare(
      'INSERT INTO work.skeleton (id, title, type, infobox, targets) VALUES (?, ?, ?, ?, ?)',
    );
    const stageRedirect = db.prepare('INSERT INTO work.redirects (title, lower, target) VALUES (?, ?, ?)');
    const problems: string[] = [];
    let redirects = 0;
    let duplicates = 0;
    const insertBatch = db.transaction((batch: Article[]) => {
      for (const article of batch) {
        const title = normalizeTitle(article.title);
        if (!title) continue;
        const normalized = title === article.title ? article : { ...article, title };
        const body = JSON.stringify({
          infobox: normalized.infobox,
          lead: normalized.lead,
          sections: normalized.sections,
        });
        const result = insertArticle.run(title, title.toLowerCase(), normalized.type, body);
        if (result.changes === 0) {
          duplicates += 1; // the first wins, as in `Corpus`
          continue;
        }
        insertSearch.run(
          result.lastInsertRowid,
          withCjkIndexTerms(title, 'pairs-and-last'),
          withCjkIndexTerms(searchText(normalized), 'pairs-and-last'),
        );
        insertSkeleton.run(
          result.lastInsertRowid,
          title,
          normalized.type,
          JSON.stringify(normalized.infobox),
          JSON.stringify(articleLinks(normalized)),
        );
      }
    });
    let batch: Article[] = [];
    let lineNumber = 0;
    // Aborted, the input is closed, so a read that waits (a pipe) ends the loop, checked below.
    const lines = createInterface({ input, crlfDelay: Infinity, ...(signal ? { signal } : {}) });
    db.exec('BEGIN');
    for await (const line of lines) {
      lineNumber += 1;
      const entry = parseJsonlEntry(line, `${source}:${lineNumber}`, problems);
      if (problems.length > 20) break;
      if (!entry) continue;
      if ('redirect' in entry) {
        redirects += 1;
        const from = normalizeTitle(entry.title);
        const to = linkTarget(entry.redirect);
        if (from && to) stageRedirect.run(from, from.toLowerCase(), to);
      } else batch.push(entry);
      if (batch.length >= 5000) {
        insertBatch(batch);
        batch = [];
        onProgress?.('articles', lineNumber);
        if (signal?.aborted) break;
      }
    }
    if (signal?.aborted) throw interrupted();
    db.exec('COMMIT');
    if (problems.length > 0) throw new InvalidOptionsError(`the JSONL corpus ${source}`, problems.slice(0, 20));
    insertBatch(batch);
    // A redirect from an article's own title is dropped; of two from one title, the later wins (as in `Corpus`).
    db.exec(
      'INSERT OR REPLACE INTO main.redirects (title, lower, target) SELECT title, lower, target FROM work.redirects AS staged' +
        ' WHERE NOT EXISTS (SELECT 1 FROM main.articles WHERE title = staged.title) ORDER BY staged.rowid;' +
        'CREATE INDEX main.articles_lower ON articles (lower); CREATE INDEX main.redirects_lower ON redirects (lower);' +
        "INSERT INTO main.search (search) VALUES ('optimize');",
    );
    const indexed = performance.now();
    // Task generation reads articles in draw order, not file order: a large page cache buys little here.
    db.pragma('cache_size = -16384');

    // The same corpus as `readJsonlCorpus(jsonlPath)` as far as tasks are concerned (titles, types,
    // infoboxes, links, redirects, name), so the same tasks with the same ids.
    const articles = db.prepare<unknown[], number>('SELECT COUNT(*) FROM main.articles').pluck().get() as number;
    // A store of no article poses no task, and would replace a good one.
    if (articles === 0)
      throw new InvalidOptionsError(`the JSONL corpus ${source}`, [
        `it holds no article, so ${storePath} is left as it was`,
      ]);
    const graph = new StoreTaskGraph(db, source, articles);
    const remember = db.prepare('INSERT OR IGNORE INTO work.questions (question) VALUES (?)');
    const insertTask = db.prepare('INSERT INTO main.tasks (id, kind, split, hops, body) VALUES (?, ?, ?, ?, ?)');
    let tasks = 0;
    db.exec('BEGIN');
    for (const generated of [
      generateQuestions(graph, (question) => remember.run(question).changes > 0),
      generateRaces(graph),
    ]) {
      for (const task of generated) {
        insertTask.run(task.id, task.kind, task.split, task.hops, JSON.stringify(task));
        tasks += 1;
        if (tasks % TASK_BATCH === 0) db.exec('COMMIT; BEGIN');
        if (tasks % TASKS_PER_TURN === 0) {
          onProgress?.('tasks', tasks);
          await turn();
          if (signal?.aborted) throw interrupted();
        }
      }
    }
    db.exec('COMMIT');
    db.exec('DETACH DATABASE work');
    rmSync(work, { force: true });
    db.exec('CREATE INDEX tasks_filter ON tasks (split, kind, hops)');
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    insertMeta.run('version', STORE_VERSION);
    insertMeta.run('articles', String(articles));
    insertMeta.run('source', source);
    // Chinese, Japanese and Korean are indexed as character pairs and each run's last character; a store built
    // before (another value, or no key) is searched as it was indexed.
    insertMeta.run('search-terms', SEARCH_TERMS);
    db.exec('ANALYZE');
    db.close();
    renameSync(partial, storePath);
    const finished = performance.now();
    return {
      articles,
      redirects,
      duplicates,
      tasks,
      indexSeconds: (indexed - started) / 1000,
      taskSeconds: (finished - indexed) / 1000,
      seconds: (finished - started) / 1000,
    };
  } catch (error) {
    input.destroy();
    if (db.open) db.close();
    rmSync(partial, { force: true });
    rmSync(work, { force: true });
    // readline rejects an aborted read with its own AbortError: one message for an interruption, wherever it came.
    throw signal?.aborted ? interrupted() : error;
  }
}
