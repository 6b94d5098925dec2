import Database from 'better-sqlite3';
import { createReadStream, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { InvalidOptionsError } from '@turngym/core';
import { TaskBank } from '../tasks/task-bank';
import { normalizeTitle, parseLinks, stripLinks, type Article, type Redirect } from './article';
import { Corpus } from './corpus';
import { parseJsonlEntry } from './jsonl-corpus';
import { STORE_VERSION } from './sqlite-corpus';

export interface CorpusStoreStats {
  articles: number;
  redirects: number;
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

/**
 * What task generation reads of an article — title, type, infobox and its links in page order — without
 * the prose, so that the tasks of a Wikipedia-sized corpus are generated in a fraction of its size.
 */
function skeletonOf(article: Article): Article {
  const links = [article.lead, ...article.sections.map((section) => section.text)]
    .flatMap((text) => parseLinks(text))
    .map((link) => `[[${link.target}]]`)
    .join(' ');
  return { title: article.title, type: article.type, infobox: article.infobox, lead: links, sections: [] };
}

/**
 * Builds an on-disk corpus store (SQLite) from a JSONL corpus, streaming: articles (JSON bodies, one row
 * each), redirects, a contentless FTS5 index (title and text, as the in-memory index has them), and every
 * task the corpus yields (generated from the articles' skeletons — title, type, infobox, links — with the
 * JSONL corpus's name, so the store poses exactly the tasks `corpus: "<corpus.jsonl>"` does). Written to a
 * temporary file and renamed, so a store on disk is always complete.
 */
export async function buildCorpusStore(jsonlPath: string, storePath: string): Promise<CorpusStoreStats> {
  const started = performance.now();
  const source = resolve(jsonlPath);
  const partial = `${storePath}.building`;
  rmSync(partial, { force: true });
  const db = new Database(partial);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -131072'); // 128 MB while building
    db.exec(SCHEMA);
    const insertArticle = db.prepare('INSERT OR IGNORE INTO articles (title, lower, type, body) VALUES (?, ?, ?, ?)');
    const insertSearch = db.prepare('INSERT INTO search (rowid, title, text) VALUES (?, ?, ?)');
    const skeletons: Article[] = [];
    const redirects: Redirect[] = [];
    const problems: string[] = [];
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
        if (result.changes === 0) continue; // a duplicate title: the first wins, as in `Corpus`
        insertSearch.run(result.lastInsertRowid, title, searchText(normalized));
        skeletons.push(skeletonOf(normalized));
      }
    });
    let batch: Article[] = [];
    let lineNumber = 0;
    const lines = createInterface({ input: createReadStream(source), crlfDelay: Infinity });
    for await (const line of lines) {
      lineNumber += 1;
      const entry = parseJsonlEntry(line, `${source}:${lineNumber}`, problems);
      if (problems.length > 20) break;
      if (!entry) continue;
      if ('redirect' in entry) redirects.push(entry);
      else batch.push(entry);
      if (batch.length >= 5000) {
        insertBatch(batch);
        batch = [];
      }
    }
    if (problems.length > 0) throw new InvalidOptionsError(`the JSONL corpus ${source}`, problems.slice(0, 20));
    insertBatch(batch);
    const insertRedirect = db.prepare(
      'INSERT OR REPLACE INTO redirects (title, lower, target) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM articles WHERE title = ?)',
    );
    db.transaction(() => {
      for (const redirect of redirects) {
        const from = normalizeTitle(redirect.title);
        const to = normalizeTitle(redirect.redirect);
        if (from && to) insertRedirect.run(from, from.toLowerCase(), to, from);
      }
    })();
    db.exec(
      'CREATE INDEX articles_lower ON articles (lower); CREATE INDEX redirects_lower ON redirects (lower);' +
        "INSERT INTO search (search) VALUES ('optimize');",
    );
    const indexed = performance.now();

    // The same corpus as `readJsonlCorpus(jsonlPath)` as far as tasks are concerned (titles, types,
    // infoboxes, links, redirects, name), so the same tasks with the same ids.
    const skeleton = new Corpus(skeletons, redirects, { name: source });
    skeletons.length = 0;
    const tasks = new TaskBank(skeleton).all();
    const insertTask = db.prepare('INSERT INTO tasks (id, kind, split, hops, body) VALUES (?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (const task of tasks) insertTask.run(task.id, task.kind, task.split, task.hops, JSON.stringify(task));
    })();
    db.exec('CREATE INDEX tasks_filter ON tasks (split, kind, hops)');
    const articles = skeleton.size;
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    insertMeta.run('version', STORE_VERSION);
    insertMeta.run('articles', String(articles));
    insertMeta.run('source', source);
    db.exec('ANALYZE');
    db.close();
    renameSync(partial, storePath);
    const finished = performance.now();
    return {
      articles,
      redirects: redirects.length,
      tasks: tasks.length,
      indexSeconds: (indexed - started) / 1000,
      taskSeconds: (finished - indexed) / 1000,
      seconds: (finished - started) / 1000,
    };
  } catch (error) {
    if (db.open) db.close();
    rmSync(partial, { force: true });
    throw error;
  }
}
