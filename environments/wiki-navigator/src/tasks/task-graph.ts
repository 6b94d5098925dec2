import type { Article, InfoboxField } from '../corpus/article';
import type { Corpus } from '../corpus/corpus';
import type { FieldPhrases } from '../corpus/field-phrases';

/** Pages that are not about one subject: MediaWiki's disambiguation pages (the converter types them so). */
export const DISAMBIGUATION_TYPE = 'disambiguation';

/**
 * What task generation reads of a corpus, by article id (0 … size − 1, in load order). One generator serves a
 * corpus in memory (`CorpusTaskGraph`) and an on-disk store being built (`StoreTaskGraph`, one indexed query
 * per article read), so both pose the same tasks and a store's generation never holds the corpus.
 */
export interface TaskGraph {
  /** The corpus's name and article count: they seed the draws. */
  readonly name: string;
  readonly size: number;
  readonly phrases: FieldPhrases | undefined;
  /** Articles a task may start from or end on (not disambiguation pages), in load order. */
  subjects(): number[];
  title(id: number): string;
  type(id: number): string;
  infobox(id: number): readonly InfoboxField[];
  /** The article `title` leads to (the corpus's `resolve`), or undefined. */
  resolve(title: string): number | undefined;
  /** The corpus's `linksOf`: targets that exist, resolved, in page order, each once, not the article itself. */
  links(id: number): readonly number[];
}

/** A corpus in memory as a task graph: ids are positions in `corpus.articles()`. */
export class CorpusTaskGraph implements TaskGraph {
  readonly name: string;
  readonly size: number;
  readonly phrases: FieldPhrases | undefined;
  private readonly articles: readonly Article[];
  private readonly ids = new Map<string, number>();
  private readonly linkIds: Array<readonly number[] | undefined> = [];

  constructor(private readonly corpus: Corpus) {
    this.name = corpus.description.name;
    this.size = corpus.size;
    this.phrases = corpus.description.phrases;
    this.articles = corpus.articles();
    this.articles.forEach((article, id) => this.ids.set(article.title, id));
  }

  subjects(): number[] {
    const out: number[] = [];
    for (let id = 0; id < this.articles.length; id++) if (this.type(id) !== DISAMBIGUATION_TYPE) out.push(id);
    return out;
  }

  private article(id: number): Article {
    return this.articles[id] as Article;
  }

  title(id: number): string {
    return this.article(id).title;
  }

  type(id: number): string {
    return this.article(id).type;
  }

  infobox(id: number): readonly InfoboxField[] {
    return this.article(id).infobox;
  }

  resolve(title: string): number | undefined {
    const resolved = this.corpus.resolve(title);
    return resolved === undefined ? undefined : this.ids.get(resolved);
  }

  links(id: number): readonly number[] {
    let links = this.linkIds[id];
    if (!links) {
      links = this.corpus.linksOf(this.title(id)).map((title) => this.ids.get(title) as number);
      this.linkIds[id] = links;
    }
    return links;
  }
}
