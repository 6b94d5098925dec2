import { mixSeed, SeededRng } from '@turngym/core';
import { parseLinks, stripLinks, type Article } from '../corpus/article';
import { Corpus } from '../corpus/corpus';
import type { WikiCorpus } from '../corpus/wiki-corpus';
import { phraseFor, type FieldPhrase } from '../corpus/field-phrases';
import type { TaskKind, TaskSplit, WikiTask } from './wiki-task';

/** Which tasks an env draws from: kinds, split and a range of hops. */
export interface TaskFilter {
  readonly kinds: readonly TaskKind[];
  readonly split: TaskSplit;
  readonly minHops: number;
  readonly maxHops: number;
}

/** The tasks a filter selects, by position (a store reads one task at a time instead of all of them). */
export interface TaskSelection {
  readonly size: number;
  at(index: number): WikiTask;
}

/** Where an env's generated tasks come from: a `TaskBank` over an in-memory corpus, or a store's saved tasks. */
export interface TaskSource {
  /** Tasks of the given kinds and split, with `minHops ≤ hops ≤ maxHops`, in a fixed order. */
  tasks(filter: TaskFilter): WikiTask[];
  /** The same tasks, in the same order, without reading them all. */
  select(filter: TaskFilter): TaskSelection;
  get(id: string): WikiTask | undefined;
  /** Every task, questions then races. */
  all(): readonly WikiTask[];
}

/**
 * Pages that are not about one subject: MediaWiki's disambiguation pages (the converter types them
 * `disambiguation`). They are browsable, but no question starts from one and no race ends on one.
 */
export const DISAMBIGUATION_TYPE = 'disambiguation';

/** Nodes a race's BFS reaches at most (see `shortestPathAt`). */
const RACE_BFS_NODES = 20_000;

/** Share of subjects held out for the test split. */
const TEST_SHARE = 5; // one in five

/**
 * Which split a subject article belongs to: a hash of its title, so the split is stable across corpus
 * sizes and seeds, and a test question never asks about an article that a train question starts from.
 */
export function splitOf(title: string): TaskSplit {
  return (mixSeed('wiki-split', title) >>> 0) % TEST_SHARE === 0 ? 'test' : 'train';
}

interface LinkField {
  readonly field: string;
  readonly target: string;
}

interface ValueField {
  readonly field: string;
  readonly value: string;
  /** Every way of writing the answer (link label and target title). */
  readonly aliases: readonly string[];
  readonly number: number | undefined;
  readonly phrase: FieldPhrase;
}

const YEAR = /\b(1\d{3}|20\d{2})\b/;

function numberOf(value: string, phrase: FieldPhrase): number | undefined {
  if (!phrase.compare) return undefined;
  if (phrase.compare.prefer === 'smaller') {
    const year = YEAR.exec(value);
    return year ? Number(year[1]) : undefined;
  }
  const match = /^-?[\d,]+(\.\d+)?/.exec(value.trim());
  if (!match) return undefined;
  const number = Number(match[0].replace(/,/g, ''));
  return Number.isFinite(number) ? number : undefined;
}

/**
 * Questions with gold answers and gold paths, generated from a corpus's infoboxes, so they work for the
 * synthetic encyclopedia and for any JSONL/MediaWiki corpus with infoboxes:
 * - single: one field of one article;
 * - bridge (2–4 hops): follow link fields (`the birthplace of the author of X`), answer a field at the end;
 * - comparison (2–4 hops): compare a numeric field of two entities, each named or one link away;
 * - race: reach a target from a start by clicking links (shortest path 2–4 clicks, found by BFS).
 * Deterministic in the corpus; built once per corpus and shared.
 */
export class TaskBank implements TaskSource {
  private readonly linkFields = new Map<string, LinkField[]>();
  private readonly valueFields = new Map<string, ValueField[]>();
  private qa: WikiTask[] | undefined;
  private races: WikiTask[] | undefined;
  private readonly byId = new Map<string, WikiTask>();

  constructor(readonly corpus: Corpus) {}

  tasks(filter: TaskFilter): WikiTask[] {
    const pool = [
      ...(filter.kinds.some((kind) => kind !== 'race') ? this.questions() : []),
      ...(filter.kinds.includes('race') ? this.raceTasks() : []),
    ];
    return pool.filter(
      (task) =>
        filter.kinds.includes(task.kind) &&
        task.split === filter.split &&
        task.hops >= filter.minHops &&
        task.hops <= filter.maxHops,
    );
  }

  all(): readonly WikiTask[] {
    return [...this.questions(), ...this.raceTasks()];
  }

  select(filter: TaskFilter): TaskSelection {
    const tasks = this.tasks(filter);
    return { size: tasks.length, at: (index) => tasks[index] as WikiTask };
  }

  /** Articles a task may start from or end on (not disambiguation pages), in load order. */
  private subjects(): readonly Article[] {
    const articles = this.corpus.articles();
    return articles.some((article) => article.type === DISAMBIGUATION_TYPE)
      ? articles.filter((article) => article.type !== DISAMBIGUATION_TYPE)
      : articles;
  }

  get(id: string): WikiTask | undefined {
    if (!this.byId.has(id)) {
      if (id.startsWith('race-')) this.raceTasks();
      else this.questions();
    }
    return this.byId.get(id);
  }

  private links(article: Article): LinkField[] {
    let cached = this.linkFields.get(article.title);
    if (cached) return cached;
    cached = [];
    for (const { field, value } of article.infobox) {
      // A value that is one link (synthetic pages), or that starts with one, as real infoboxes write
      // `[[Camden Town]], London` or `[[Paris]], [[France]]`: the first link is what the field names.
      const first = parseLinks(value)[0];
      if (!first || !value.trimStart().startsWith('[[') || !stripLinks(value).trimStart().startsWith(first.label))
        continue;
      const target = this.corpus.resolve(first.target);
      if (target === undefined || target === article.title) continue;
      if (this.corpus.get(target)?.type === DISAMBIGUATION_TYPE) continue;
      cached.push({ field, target });
    }
    this.linkFields.set(article.title, cached);
    return cached;
  }

  private values(article: Article): ValueField[] {
    let cached = this.valueFields.get(article.title);
    if (cached) return cached;
    cached = [];
    const phrases = this.corpus.description.phrases;
    for (const { field, value } of article.infobox) {
      const phrase = phraseFor(field, phrases);
      const text = stripLinks(value).replace(/\s+/g, ' ').trim();
      if (phrase.ask === false || text.length === 0 || text.length > 60) continue;
      const aliases = new Set([text]);
      for (const link of parseLinks(value)) aliases.add(this.corpus.resolve(link.target) ?? link.target);
      cached.push({ field, value: text, aliases: [...aliases], number: numberOf(text, phrase), phrase });
    }
    this.valueFields.set(article.title, cached);
    return cached;
  }

  private register(tasks: WikiTask[]): void {
    for (const task of tasks) this.byId.set(task.id, task);
  }

  private questions(): WikiTask[] {
    if (this.qa) return this.qa;
    const rng = new SeededRng(mixSeed('wiki-questions', this.corpus.description.name, this.corpus.size));
    const articles = rng.shuffle(this.subjects());
    const seen = new Set<string>();
    const out: WikiTask[] = [];
    const counters: Record<string, number> = { single: 0, bridge: 0, comparison: 0 };
    const add = (task: Omit<WikiTask, 'id'>): void => {
      if (seen.has(task.question)) return;
      seen.add(task.question);
      const number = counters[task.kind] ?? 0;
      counters[task.kind] = number + 1;
      out.push({ id: `${task.kind}-${String(number).padStart(6, '0')}`, ...task });
    };
    // Comparison partners: articles holding each comparable field, by article type.
    const comparable = new Map<string, Article[]>();
    for (const article of articles) {
      for (const value of this.values(article)) {
        if (value.number === undefined) continue;
        const key = `${article.type}\u0000${value.field}`;
        const list = comparable.get(key);
        if (list) list.push(article);
        else comparable.set(key, [article]);
      }
    }
    const backlinks = new Map<string, Article[]>();
    for (const article of articles) {
      for (const link of this.links(article)) {
        const list = backlinks.get(link.target);
        if (list) list.push(article);
        else backlinks.set(link.target, [article]);
      }
    }

    for (const subject of articles) {
      const split = splitOf(subject.title);
      const single = this.single(subject, rng);
      if (single) add({ ...single, split });
      const bridge = this.bridge(subject, rng.int(2, 4), rng);
      if (bridge) add({ ...bridge, split });
      const comparison = this.comparison(subject, split, comparable, backlinks, rng);
      if (comparison) add({ ...comparison, split });
    }
    this.qa = out;
    this.register(out);
    return out;
  }

  private ask(phrase: FieldPhrase, subject: string): string {
    return phrase.question ? phrase.question.replace('{x}', subject) : `What is the ${phrase.noun} of ${subject}?`;
  }

  private single(subject: Article, rng: SeededRng): Omit<WikiTask, 'id' | 'split'> | undefined {
    const values = this.values(subject).filter((value) => !value.aliases.includes(subject.title));
    if (values.length === 0) return undefined;
    const value = rng.pick(values);
    return {
      kind: 'single',
      question: this.ask(value.phrase, subject.title),
      answers: value.aliases,
      goldPath: [subject.title],
      hops: 1,
      evidence: [{ title: subject.title, field: value.field, role: 'answer' }],
    };
  }

  /** Follows `hops − 1` link fields from the subject (never revisiting), then asks a field of the last page. */
  private bridge(subject: Article, hops: number, rng: SeededRng): Omit<WikiTask, 'id' | 'split'> | undefined {
    const path = [subject.title];
    const fields: string[] = [];
    let current = subject;
    while (path.length < hops) {
      const options = this.links(current).filter((link) => !path.includes(link.target));
      if (options.length === 0) break;
      const next = rng.pick(options);
      fields.push(next.field);
      path.push(next.target);
      current = this.corpus.get(next.target) as Article;
    }
    if (path.length < 2) return undefined;
    const finals = this.values(current).filter((value) => !value.aliases.some((alias) => path.includes(alias)));
    if (finals.length === 0) return undefined;
    const final = rng.pick(finals);
    let phrase = subject.title;
    for (const field of fields) phrase = `the ${phraseFor(field, this.corpus.description.phrases).noun} of ${phrase}`;
    return {
      kind: 'bridge',
      question: this.ask(final.phrase, phrase),
      answers: final.aliases,
      goldPath: path,
      hops: path.length,
      evidence: [
        ...fields.map((field, i) => ({ title: path[i] as string, field, role: 'bridge' as const })),
        { title: current.title, field: final.field, role: 'answer' as const },
      ],
    };
  }

  /**
   * "Which was founded earlier, the employer of A or B?": two entities of one type with different values of
   * one comparable field, each named directly or reached through one link field of a subject.
   */
  private comparison(
    subject: Article,
    split: TaskSplit,
    comparable: Map<string, Article[]>,
    backlinks: Map<string, Article[]>,
    rng: SeededRng,
  ): Omit<WikiTask, 'id' | 'split'> | undefined {
    // First entity: the subject itself or one link away.
    const viaLink = rng.bool(0.5) ? rng.pick([undefined, ...this.links(subject)]) : undefined;
    const first = viaLink ? (this.corpus.get(viaLink.target) as Article) : subject;
    const candidates = this.values(first).filter((value) => value.number !== undefined);
    if (candidates.length === 0) return undefined;
    const value = rng.pick(candidates);
    const partners = (comparable.get(`${first.type}\u0000${value.field}`) ?? []).filter(
      (other) => other.title !== first.title && other.title !== subject.title,
    );
    if (partners.length === 0) return undefined;
    for (let attempt = 0; attempt < 8; attempt++) {
      const second = rng.pick(partners);
      const secondValue = this.values(second).find((other) => other.field === value.field);
      if (!secondValue || secondValue.number === value.number) continue;
      // Second entity: named directly if it belongs to the split, else through a subject of the split.
      const presenters = (backlinks.get(second.title) ?? []).filter(
        (article) =>
          splitOf(article.title) === split && article.title !== subject.title && article.title !== first.title,
      );
      const direct = splitOf(second.title) === split;
      if (!direct && presenters.length === 0) continue;
      const presenter = direct && (presenters.length === 0 || rng.bool(0.5)) ? undefined : rng.pick(presenters);
      const presenterField = presenter ? this.links(presenter).find((link) => link.target === second.title) : undefined;
      if (presenter && !presenterField) continue;
      const phrases = this.corpus.description.phrases;
      const name = (entity: Article, via: { article: Article; field: string } | undefined): string =>
        via ? `the ${phraseFor(via.field, phrases).noun} of ${via.article.title}` : entity.title;
      const firstName = name(first, viaLink ? { article: subject, field: viaLink.field } : undefined);
      const secondName = name(
        second,
        presenter && presenterField ? { article: presenter, field: presenterField.field } : undefined,
      );
      const prefer = value.phrase.compare?.prefer ?? 'larger';
      const firstWins =
        prefer === 'smaller'
          ? (value.number as number) < (secondValue.number as number)
          : (value.number as number) > (secondValue.number as number);
      const winner = firstWins ? first : second;
      const swap = rng.bool(0.5);
      const [a, b] = swap ? [secondName, firstName] : [firstName, secondName];
      const who = first.type === 'person' ? 'Who' : 'Which';
      const text = value.phrase.compare?.text ?? `has the larger ${value.phrase.noun}`;
      const goldPath = [
        ...(viaLink ? [subject.title] : []),
        first.title,
        ...(presenter ? [presenter.title] : []),
        second.title,
      ];
      return {
        kind: 'comparison',
        question: `${who} ${text}: ${a} or ${b}?`,
        answers: [winner.title],
        goldPath,
        hops: goldPath.length,
        prefer,
        evidence: [
          ...(viaLink ? [{ title: subject.title, field: viaLink.field, role: 'bridge' as const }] : []),
          { title: first.title, field: value.field, role: 'compare' as const },
          ...(presenter && presenterField
            ? [{ title: presenter.title, field: presenterField.field, role: 'bridge' as const }]
            : []),
          { title: second.title, field: value.field, role: 'compare' as const },
        ],
      };
    }
    return undefined;
  }

  private raceTasks(): WikiTask[] {
    if (this.races) return this.races;
    const rng = new SeededRng(mixSeed('wiki-races', this.corpus.description.name, this.corpus.size));
    const subjects = this.subjects();
    const starts = rng.shuffle(subjects).slice(0, Math.min(subjects.length, 1500));
    const out: WikiTask[] = [];
    const seen = new Set<string>();
    for (const start of starts) {
      const distance = rng.int(2, 4);
      const path = this.shortestPathAt(start.title, distance, rng);
      if (!path) continue;
      const target = path[path.length - 1] as string;
      const key = `${start.title}\u0000${target}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        id: `race-${String(out.length).padStart(6, '0')}`,
        kind: 'race',
        split: splitOf(start.title),
        question: `Reach the article "${target}" starting from "${start.title}", by clicking links.`,
        answers: [target],
        goldPath: path,
        hops: path.length - 1,
        evidence: [],
        start: start.title,
        target,
      });
    }
    this.races = out;
    this.register(out);
    return out;
  }

  /**
   * BFS (links in page order) to exactly `distance` clicks; a random node at that depth and its path. On a
   * Wikipedia-sized graph four clicks reach most of it: the search stops adding nodes after `RACE_BFS_NODES`
   * (far beyond what a few thousand articles reach, so small corpora are searched in full).
   */
  private shortestPathAt(start: string, distance: number, rng: SeededRng): string[] | undefined {
    const parent = new Map<string, string | null>([[start, null]]);
    let frontier = [start];
    for (let depth = 0; depth < distance && frontier.length > 0; depth++) {
      const next: string[] = [];
      for (const title of frontier) {
        if (parent.size >= RACE_BFS_NODES) break;
        for (const target of this.corpus.linksOf(title)) {
          if (parent.has(target)) continue;
          parent.set(target, title);
          next.push(target);
        }
      }
      frontier = next;
    }
    if (frontier.length === 0) return undefined;
    const path = [rng.pick(frontier)];
    if (this.corpus.get(path[0] as string)?.type === DISAMBIGUATION_TYPE) return undefined;
    for (let node = parent.get(path[0] as string); node !== null && node !== undefined; node = parent.get(node))
      path.unshift(node);
    return path.length === distance + 1 ? path : undefined;
  }
}

/** "3 train and 1 test questions (single 2/1, …), 0 train and 0 test races": what a task list holds. */
export function describeTaskCounts(tasks: readonly WikiTask[]): string {
  const count = (kind: TaskKind | 'qa', split: TaskSplit): number =>
    tasks.filter((task) => (kind === 'qa' ? task.kind !== 'race' : task.kind === kind) && task.split === split).length;
  const kinds = (['single', 'bridge', 'comparison'] as const)
    .map((kind) => `${kind} ${count(kind, 'train')}/${count(kind, 'test')}`)
    .join(', ');
  return `${count('qa', 'train')} train and ${count('qa', 'test')} test questions (train/test: ${kinds}), ${count('race', 'train')} train and ${count('race', 'test')} test races`;
}

/** Corpora that carry their tasks (an on-disk store saves them when it is built). */
export interface CorpusWithTasks extends WikiCorpus {
  readonly taskSource: TaskSource;
}

/** The generated tasks of a corpus: its saved ones, or a task bank built once per corpus and shared. */
export function taskSourceFor(corpus: WikiCorpus): TaskSource {
  if (corpus instanceof Corpus) return taskBankFor(corpus);
  const saved = (corpus as Partial<CorpusWithTasks>).taskSource;
  if (!saved) throw new Error(`the corpus ${corpus.description.name} has neither articles in memory nor saved tasks`);
  return saved;
}

const banks = new WeakMap<Corpus, TaskBank>();

/** The task bank of a corpus, built once per corpus and shared by every env that reads it. */
export function taskBankFor(corpus: Corpus): TaskBank {
  let bank = banks.get(corpus);
  if (!bank) {
    bank = new TaskBank(corpus);
    banks.set(corpus, bank);
  }
  return bank;
}
