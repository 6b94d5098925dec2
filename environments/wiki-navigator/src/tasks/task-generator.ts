import { mixSeed, SeededRng } from '@turngym/core';
import { parseLinks, stripLinks } from '../corpus/article';
import { phraseFor, type FieldPhrase } from '../corpus/field-phrases';
import { Lru } from '../corpus/lru';
import { DISAMBIGUATION_TYPE, type TaskGraph } from './task-graph';
import type { TaskSplit, WikiTask } from './wiki-task';

/** Nodes a race's BFS reaches at most (see `shortestPathAt`). */
const RACE_BFS_NODES = 20_000;

/** Races drawn at most: one BFS each. */
const RACE_STARTS = 1500;

/** Share of subjects held out for the test split. */
const TEST_SHARE = 5; // one in five

/** Articles whose infobox facts are kept: a corpus's facts are read again rather than held. */
const FACT_CACHE = 2048;

/**
 * Which split a subject article belongs to: a hash of its title, so the split is stable across corpus
 * sizes and seeds, and a test question never asks about an article that a train question starts from.
 */
export function splitOf(title: string): TaskSplit {
  return (mixSeed('wiki-split', title) >>> 0) % TEST_SHARE === 0 ? 'test' : 'train';
}

type Draft = Omit<WikiTask, 'id' | 'split'>;

interface LinkField {
  readonly field: string;
  readonly target: number;
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

/** What questions read of an article's infobox — link fields and answerable values — in bounded caches. */
class InfoboxFacts {
  private readonly linkFields = new Lru<number, LinkField[]>(FACT_CACHE);
  private readonly valueFields = new Lru<number, ValueField[]>(FACT_CACHE);
  private readonly splits: Int8Array;
  /** `phraseFor` per field name: a corpus has few field names and many fields. */
  private readonly phrases = new Map<string, FieldPhrase>();

  constructor(private readonly graph: TaskGraph) {
    this.splits = new Int8Array(graph.size);
  }

  split(id: number): TaskSplit {
    let split = this.splits[id] as number;
    if (split === 0) {
      split = splitOf(this.graph.title(id)) === 'test' ? 2 : 1;
      this.splits[id] = split;
    }
    return split === 2 ? 'test' : 'train';
  }

  links(id: number): LinkField[] {
    let cached = this.linkFields.get(id);
    if (cached) return cached;
    cached = [];
    for (const { field, value } of this.graph.infobox(id)) {
      // A value that is one link (synthetic pages), or that starts with one, as real infoboxes write
      // `[[Camden Town]], London` or `[[Paris]], [[France]]`: the first link is what the field names.
      const first = parseLinks(value)[0];
      if (!first || !value.trimStart().startsWith('[[') || !stripLinks(value).trimStart().startsWith(first.label))
        continue;
      const target = this.graph.resolve(first.target);
      if (target === undefined || target === id) continue;
      if (this.graph.type(target) === DISAMBIGUATION_TYPE) continue;
      cached.push({ field, target });
    }
    this.linkFields.set(id, cached);
    return cached;
  }

  values(id: number): ValueField[] {
    let cached = this.valueFields.get(id);
    if (cached) return cached;
    cached = [];
    for (const { field, value } of this.graph.infobox(id)) {
      let phrase = this.phrases.get(field);
      if (!phrase) {
        phrase = phraseFor(field, this.graph.phrases);
        this.phrases.set(field, phrase);
      }
      const text = stripLinks(value).replace(/\s+/g, ' ').trim();
      if (phrase.ask === false || text.length === 0 || text.length > 60) continue;
      const aliases = new Set([text]);
      for (const link of parseLinks(value)) {
        const target = this.graph.resolve(link.target);
        aliases.add(target === undefined ? link.target : this.graph.title(target));
      }
      cached.push({ field, value: text, aliases: [...aliases], number: numberOf(text, phrase), phrase });
    }
    this.valueFields.set(id, cached);
    return cached;
  }
}

/**
 * A list of articles in draw order without some of them, read in place: what `list.filter(not excluded)` gave,
 * without the copy that made a corpus's comparisons quadratic (each subject filtered every article holding
 * the compared field). An article's entries are adjacent in the list (it was pushed once per field), so
 * each excluded article is one gap, found by binary search on the draw positions.
 */
class ListWithout {
  readonly length: number;
  private readonly gaps: Array<readonly [number, number]> = [];

  constructor(
    private readonly list: readonly number[],
    position: Int32Array,
    excluded: readonly number[],
  ) {
    const firstAt = (rank: number): number => {
      let low = 0;
      let high = list.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((position[list[middle] as number] as number) < rank) low = middle + 1;
        else high = middle;
      }
      return low;
    };
    let left = list.length;
    for (const id of new Set(excluded)) {
      const rank = position[id] as number;
      const start = firstAt(rank);
      const end = firstAt(rank + 1);
      if (end > start) {
        this.gaps.push([start, end]);
        left -= end - start;
      }
    }
    this.gaps.sort((a, b) => a[0] - b[0]);
    this.length = left;
  }

  /** `SeededRng.pick` on the filtered list: the same draw, the same item. */
  pick(rng: SeededRng): number {
    let index = Math.floor(rng.next() * this.length);
    for (const [start, end] of this.gaps) {
      if (index < start) break;
      index += end - start;
    }
    return this.list[index] as number;
  }
}

const append = <K>(map: Map<K, number[]>, key: K, id: number): void => {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
};

/**
 * Questions with gold answers and gold paths, generated from a corpus's infoboxes, so they work for the
 * synthetic encyclopedia and for any JSONL/MediaWiki corpus with infoboxes:
 * - single: one field of one article;
 * - bridge (2–4 hops): follow link fields (`the birthplace of the author of X`), answer a field at the end;
 * - comparison (2–4 hops): compare a numeric field of two entities, each named or one link away.
 * Deterministic in the corpus, and yielded one at a time: memory holds the draw order and two indexes of
 * article ids (comparable fields, infobox backlinks), not the articles or the tasks. `isNew` keeps the first
 * of equal questions (a set in memory, or a table of a store being built).
 */
export function* generateQuestions(graph: TaskGraph, isNew: (question: string) => boolean): Generator<WikiTask> {
  const facts = new InfoboxFacts(graph);
  const rng = new SeededRng(mixSeed('wiki-questions', graph.name, graph.size));
  const order = rng.shuffle(graph.subjects());
  const position = new Int32Array(graph.size).fill(-1);
  order.forEach((id, rank) => (position[id] = rank));
  // Comparison partners (articles holding each comparable field, by article type) and, per split, the
  // articles whose infobox links to an article: both in draw order.
  const comparable = new Map<string, number[]>();
  const backlinks = { train: new Map<number, number[]>(), test: new Map<number, number[]>() };
  for (const id of order) {
    for (const value of facts.values(id))
      if (value.number !== undefined) append(comparable, `${graph.type(id)}\u0000${value.field}`, id);
  }
  for (const id of order) for (const link of facts.links(id)) append(backlinks[facts.split(id)], link.target, id);

  const ask = (phrase: FieldPhrase, subject: string): string =>
    phrase.question ? phrase.question.replace('{x}', subject) : `What is the ${phrase.noun} of ${subject}?`;
  const noun = (field: string): string => phraseFor(field, graph.phrases).noun;

  const single = (subject: number): Draft | undefined => {
    const title = graph.title(subject);
    const values = facts.values(subject).filter((value) => !value.aliases.includes(title));
    if (values.length === 0) return undefined;
    const value = rng.pick(values);
    return {
      kind: 'single',
      question: ask(value.phrase, title),
      answers: value.aliases,
      goldPath: [title],
      hops: 1,
      evidence: [{ title, field: value.field, role: 'answer' }],
    };
  };

  /** Follows `hops − 1` link fields from the subject (never revisiting), then asks a field of the last page. */
  const bridge = (subject: number, hops: number): Draft | undefined => {
    const ids = [subject];
    const path = [graph.title(subject)];
    const fields: string[] = [];
    let current = subject;
    while (path.length < hops) {
      const options = facts.links(current).filter((link) => !ids.includes(link.target));
      if (options.length === 0) break;
      const next = rng.pick(options);
      fields.push(next.field);
      ids.push(next.target);
      path.push(graph.title(next.target));
      current = next.target;
    }
    if (path.length < 2) return undefined;
    const finals = facts.values(current).filter((value) => !value.aliases.some((alias) => path.includes(alias)));
    if (finals.length === 0) return undefined;
    const final = rng.pick(finals);
    let phrase = path[0] as string;
    for (const field of fields) phrase = `the ${noun(field)} of ${phrase}`;
    return {
      kind: 'bridge',
      question: ask(final.phrase, phrase),
      answers: final.aliases,
      goldPath: path,
      hops: path.length,
      evidence: [
        ...fields.map((field, i) => ({ title: path[i] as string, field, role: 'bridge' as const })),
        { title: graph.title(current), field: final.field, role: 'answer' as const },
      ],
    };
  };

  /**
   * "Which was founded earlier, the employer of A or B?": two entities of one type with different values of
   * one comparable field, each named directly or reached through one link field of a subject.
   */
  const comparison = (subject: number, split: TaskSplit): Draft | undefined => {
    // First entity: the subject itself or one link away.
    const viaLink = rng.bool(0.5) ? rng.pick([undefined, ...facts.links(subject)]) : undefined;
    const first = viaLink ? viaLink.target : subject;
    const candidates = facts.values(first).filter((value) => value.number !== undefined);
    if (candidates.length === 0) return undefined;
    const value = rng.pick(candidates);
    const partners = new ListWithout(comparable.get(`${graph.type(first)}\u0000${value.field}`) ?? [], position, [
      first,
      subject,
    ]);
    if (partners.length === 0) return undefined;
    for (let attempt = 0; attempt < 8; attempt++) {
      const second = partners.pick(rng);
      const secondValue = facts.values(second).find((other) => other.field === value.field);
      if (!secondValue || secondValue.number === value.number) continue;
      // Second entity: named directly if it belongs to the split, else through a subject of the split.
      const presenters = new ListWithout(backlinks[split].get(second) ?? [], position, [subject, first]);
      const direct = facts.split(second) === split;
      if (!direct && presenters.length === 0) continue;
      const presenter = direct && (presenters.length === 0 || rng.bool(0.5)) ? undefined : presenters.pick(rng);
      const presenterField =
        presenter === undefined ? undefined : facts.links(presenter).find((link) => link.target === second);
      if (presenter !== undefined && !presenterField) continue;
      const name = (entity: number, via: { article: number; field: string } | undefined): string =>
        via ? `the ${noun(via.field)} of ${graph.title(via.article)}` : graph.title(entity);
      const firstName = name(first, viaLink ? { article: subject, field: viaLink.field } : undefined);
      const secondName = name(
        second,
        presenter !== undefined && presenterField ? { article: presenter, field: presenterField.field } : undefined,
      );
      const prefer = value.phrase.compare?.prefer ?? 'larger';
      const firstWins =
        prefer === 'smaller'
          ? (value.number as number) < (secondValue.number as number)
          : (value.number as number) > (secondValue.number as number);
      const winner = firstWins ? first : second;
      const swap = rng.bool(0.5);
      const [a, b] = swap ? [secondName, firstName] : [firstName, secondName];
      const who = graph.type(first) === 'person' ? 'Who' : 'Which';
      const text = value.phrase.compare?.text ?? `has the larger ${value.phrase.noun}`;
      const goldPath = [
        ...(viaLink ? [graph.title(subject)] : []),
        graph.title(first),
        ...(presenter !== undefined ? [graph.title(presenter)] : []),
        graph.title(second),
      ];
      return {
        kind: 'comparison',
        question: `${who} ${text}: ${a} or ${b}?`,
        answers: [graph.title(winner)],
        goldPath,
        hops: goldPath.length,
        prefer,
        evidence: [
          ...(viaLink ? [{ title: graph.title(subject), field: viaLink.field, role: 'bridge' as const }] : []),
          { title: graph.title(first), field: value.field, role: 'compare' as const },
          ...(presenter !== undefined && presenterField
            ? [{ title: graph.title(presenter), field: presenterField.field, role: 'bridge' as const }]
            : []),
          { title: graph.title(second), field: value.field, role: 'compare' as const },
        ],
      };
    }
    return undefined;
  };

  const counters: Record<string, number> = { single: 0, bridge: 0, comparison: 0 };
  for (const subject of order) {
    const split = facts.split(subject);
    const drafts = [single(subject)];
    drafts.push(bridge(subject, rng.int(2, 4)));
    drafts.push(comparison(subject, split));
    for (const draft of drafts) {
      if (!draft || !isNew(draft.question)) continue;
      const number = counters[draft.kind] ?? 0;
      counters[draft.kind] = number + 1;
      yield { id: `${draft.kind}-${String(number).padStart(6, '0')}`, ...draft, split };
    }
  }
}

/**
 * Races: reach a target from a start by clicking links, the target drawn at a shortest distance of 2–4
 * clicks (BFS over the link graph from each of up to 1,500 drawn starts). Yielded one at a time.
 */
export function* generateRaces(graph: TaskGraph): Generator<WikiTask> {
  const rng = new SeededRng(mixSeed('wiki-races', graph.name, graph.size));
  const subjects = graph.subjects();
  const starts = rng.shuffle(subjects).slice(0, Math.min(subjects.length, RACE_STARTS));
  const seen = new Set<string>();
  let count = 0;
  for (const start of starts) {
    const distance = rng.int(2, 4);
    const path = shortestPathAt(graph, start, distance, rng);
    if (!path) continue;
    const key = `${start}:${path[path.length - 1]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const titles = path.map((id) => graph.title(id));
    const [from, target] = [titles[0] as string, titles[titles.length - 1] as string];
    yield {
      id: `race-${String(count++).padStart(6, '0')}`,
      kind: 'race',
      split: splitOf(from),
      question: `Reach the article "${target}" starting from "${from}", by clicking links.`,
      answers: [target],
      goldPath: titles,
      hops: path.length - 1,
      evidence: [],
      start: from,
      target,
    };
  }
}

/**
 * BFS (links in page order) to exactly `distance` clicks; a random node at that depth and its path. On a
 * Wikipedia-sized graph four clicks reach most of it: the search stops adding nodes after `RACE_BFS_NODES`
 * (far beyond what a few thousand articles reach, so small corpora are searched in full).
 */
function shortestPathAt(graph: TaskGraph, start: number, distance: number, rng: SeededRng): number[] | undefined {
  const parent = new Map<number, number>([[start, -1]]);
  let frontier = [start];
  for (let depth = 0; depth < distance && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const id of frontier) {
      if (parent.size >= RACE_BFS_NODES) break;
      for (const target of graph.links(id)) {
        if (parent.has(target)) continue;
        parent.set(target, id);
        next.push(target);
      }
    }
    frontier = next;
  }
  if (frontier.length === 0) return undefined;
  const path = [rng.pick(frontier)];
  if (graph.type(path[0] as number) === DISAMBIGUATION_TYPE) return undefined;
  for (let node = parent.get(path[0] as number); node !== undefined && node !== -1; node = parent.get(node))
    path.unshift(node);
  return path.length === distance + 1 ? path : undefined;
}
