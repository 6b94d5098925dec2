import type Database from 'better-sqlite3';
import { normalizeTitle, type InfoboxField } from './article';
import { Lru } from './lru';
import { DISAMBIGUATION_TYPE, type TaskGraph } from '../tasks/task-graph';

/**
 * Where a store being built keeps what task generation reads of each article, in a work database attached
 * as `work` (deleted when the store is done): the title, the type, the infobox and the link targets in page
 * order (`articleLinks`, unresolved) — no prose — under the article's row id.
 */
export const SKELETON_SCHEMA =
  'CREATE TABLE work.skeleton (id INTEGER PRIMARY KEY, title TEXT NOT NULL, type TEXT NOT NULL, infobox TEXT NOT NULL, targets TEXT NOT NULL);' +
  // An article's resolved links (int32 ids), written the first time a race's BFS expands it: resolving a
  // link list takes a query per link, and a BFS reaches the same hubs from every start.
  'CREATE TABLE work.links (id INTEGER PRIMARY KEY, targets BLOB NOT NULL)';

/** Articles read back at once, link lists and resolved titles kept: bounded, whatever the corpus's size. */
const SKELETON_CACHE = 2048;
const LINK_CACHE = 4096;
const RESOLVE_CACHE = 32_768;

interface SkeletonRow {
  title: string;
  type: string;
  infobox: string;
  targets: string;
}

interface Skeleton {
  readonly title: string;
  readonly type: string;
  readonly infobox: readonly InfoboxField[];
  readonly targets: string;
}

/**
 * The articles of a store being built, as task generation reads them: each an indexed query (ids are
 * `articles.id − 1`, the load order), titles resolved by `SqliteCorpus`'s rules (normalised, two levels of
 * redirects, then case-insensitively), and nothing held beyond bounded caches. So a 300,000-article
 * store's tasks come from the same generator as a corpus in memory, without the corpus in memory.
 */
export class StoreTaskGraph implements TaskGraph {
  readonly phrases = undefined;
  private readonly skeletons = new Lru<number, Skeleton>(SKELETON_CACHE);
  private readonly linkIds = new Lru<number, readonly number[]>(LINK_CACHE);
  private readonly resolved = new Lru<string, number>(RESOLVE_CACHE);
  private readonly statements: {
    skeleton: Database.Statement<unknown[], SkeletonRow>;
    links: Database.Statement<unknown[], Buffer>;
    saveLinks: Database.Statement<unknown[]>;
    subjects: Database.Statement<unknown[], number>;
    article: Database.Statement<unknown[], number>;
    redirect: Database.Statement<unknown[], string>;
    articleByLower: Database.Statement<unknown[], string>;
    redirectByLower: Database.Statement<unknown[], string>;
  };

  constructor(
    db: Database.Database,
    readonly name: string,
    readonly size: number,
  ) {
    this.statements = {
      skeleton: db.prepare('SELECT title, type, infobox, targets FROM work.skeleton WHERE id = ?'),
      links: db.prepare<unknown[], Buffer>('SELECT targets FROM work.links WHERE id = ?').pluck(),
      saveLinks: db.prepare('INSERT INTO work.links (id, targets) VALUES (?, ?)'),
      subjects: db.prepare<unknown[], number>('SELECT id - 1 FROM main.articles WHERE type != ? ORDER BY id').pluck(),
      article: db.prepare<unknown[], number>('SELECT id FROM main.articles WHERE title = ?').pluck(),
      redirect: db.prepare<unknown[], string>('SELECT target FROM main.redirects WHERE title = ?').pluck(),
      articleByLower: db
        .prepare<unknown[], string>('SELECT title FROM main.articles WHERE lower = ? ORDER BY id LIMIT 1')
        .pluck(),
      redirectByLower: db
        .prepare<unknown[], string>('SELECT title FROM main.redirects WHERE lower = ? ORDER BY rowid LIMIT 1')
        .pluck(),
    };
  }

  subjects(): number[] {
    return this.statements.subjects.all(DISAMBIGUATION_TYPE);
  }

  private skeleton(id: number): Skeleton {
    let skeleton = this.skeletons.get(id);
    if (!skeleton) {
      const row = this.statements.skeleton.get(id + 1) as SkeletonRow;
      skeleton = {
        title: row.title,
        type: row.type,
        infobox: JSON.parse(row.infobox) as InfoboxField[],
        targets: row.targets,
      };
      this.skeletons.set(id, skeleton);
    }
    return skeleton;
  }

  title(id: number): string {
    return this.skeleton(id).title;
  }

  type(id: number): string {
    return this.skeleton(id).type;
  }

  infobox(id: number): readonly InfoboxField[] {
    return this.skeleton(id).infobox;
  }

  resolve(title: string): number | undefined {
    let id = this.resolved.get(title);
    if (id === undefined) {
      id = this.lookUp(title) ?? -1;
      this.resolved.set(title, id);
    }
    return id < 0 ? undefined : id;
  }

  private lookUp(title: string): number | undefined {
    const { article, redirect, articleByLower, redirectByLower } = this.statements;
    let current = normalizeTitle(title);
    if (!current) return undefined;
    if (article.get(current) === undefined && redirect.get(current) === undefined) {
      const lower = current.toLowerCase();
      const folded = articleByLower.get(lower) ?? redirectByLower.get(lower);
      if (folded === undefined) return undefined;
      current = folded;
    }
    for (let hops = 0; hops < 3; hops++) {
      const id = article.get(current);
      if (id !== undefined) return id - 1;
      const next = redirect.get(current);
      if (next === undefined) return undefined;
      current = next;
    }
    return undefined;
  }

  links(id: number): readonly number[] {
    let links = this.linkIds.get(id);
    if (links) return links;
    const saved = this.statements.links.get(id + 1);
    if (saved) {
      const read: number[] = [];
      for (let offset = 0; offset < saved.length; offset += 4) read.push(saved.readInt32LE(offset));
      links = read;
    } else {
      const seen = new Set<number>();
      for (const target of JSON.parse(this.skeleton(id).targets) as string[]) {
        const to = this.resolve(target);
        if (to !== undefined && to !== id) seen.add(to);
      }
      links = [...seen];
      const blob = Buffer.alloc(links.length * 4);
      links.forEach((target, index) => blob.writeInt32LE(target, index * 4));
      this.statements.saveLinks.run(id + 1, blob);
    }
    this.linkIds.set(id, links);
    return links;
  }
}
