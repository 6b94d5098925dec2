import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ajv, describeErrors, InvalidOptionsError, type JSONSchemaType } from '@turngym/core';
import type { WikiCorpus } from '../corpus/wiki-corpus';
import { splitOf } from './task-bank';
import type { TaskKind, TaskSplit, WikiTask } from './wiki-task';

/**
 * The user's own tasks (`options.tasks`): a JSON array or a JSONL file whose entries are
 * - questions: `{"question", "answers": [..]` or `"answer", "titles" | "path", "type", "split", "id"}` — `titles`
 *   (or `path`, the same, in reading order) are the gold articles;
 * - races: `{"start", "target", "split", "id"}`;
 * - HotpotQA entries as its JSON files have them (`_id`, `question`, `answer`, `supporting_facts`, `type`, …):
 *   the gold articles are the supporting facts' titles.
 * Every title must be in the corpus (through redirects and case folding, as NAVIGATE resolves it); a title that
 * is not is an error naming it, unless `unknownTitles: "skip"` drops those tasks. A race's gold path is the
 * shortest click path (BFS), so a target not reachable within `MAX_RACE_CLICKS` is an error too. The split is
 * the entry's `split`, else the built-in rule on its first article (a hash of the title; a race: its start), so
 * a file mixing unlabelled and labelled entries splits as the generated tasks do.
 */
export const MAX_RACE_CLICKS = 8;
/** BFS gives up past this many articles (a race over a whole Wikipedia must not read all of it). */
const MAX_RACE_VISITS = 200_000;

interface QuestionEntry {
  id?: string;
  question: string;
  answer?: string;
  answers?: string[];
  titles?: string[];
  path?: string[];
  type?: 'single' | 'bridge' | 'comparison';
  split?: TaskSplit;
}

interface RaceEntry {
  id?: string;
  start: string;
  target: string;
  split?: TaskSplit;
}

interface HotpotEntry {
  _id: string;
  question: string;
  answer: string;
  supporting_facts: [string, number][];
  type?: string;
}

const SPLIT = { type: 'string', enum: ['train', 'test'], nullable: true } as const;
const TITLES = { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, nullable: true } as const;

const questionSchema: JSONSchemaType<QuestionEntry> = {
  type: 'object',
  additionalProperties: false,
  required: ['question'],
  properties: {
    id: { type: 'string', minLength: 1, nullable: true },
    question: { type: 'string', minLength: 1 },
    answer: { type: 'string', minLength: 1, nullable: true },
    answers: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, nullable: true },
    titles: TITLES,
    path: TITLES,
    type: { type: 'string', enum: ['single', 'bridge', 'comparison'], nullable: true },
    split: SPLIT,
  },
};

const raceSchema: JSONSchemaType<RaceEntry> = {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'target'],
  properties: {
    id: { type: 'string', minLength: 1, nullable: true },
    start: { type: 'string', minLength: 1 },
    target: { type: 'string', minLength: 1 },
    split: SPLIT,
  },
};

/** HotpotQA's fields that matter here; the rest (`context`, `level`, …) is read past. */
const hotpotSchema = {
  type: 'object',
  required: ['_id', 'question', 'answer', 'supporting_facts'],
  properties: {
    _id: { type: 'string', minLength: 1 },
    question: { type: 'string', minLength: 1 },
    answer: { type: 'string', minLength: 1 },
    supporting_facts: {
      type: 'array',
      minItems: 1,
      // [title, sentence index]
      items: {
        type: 'array',
        minItems: 2,
        maxItems: 2,
        items: [{ type: 'string', minLength: 1 }, { type: 'integer' }],
      },
    },
    type: { type: 'string' },
  },
};

const validateQuestion = ajv.compile(questionSchema);
const validateRace = ajv.compile(raceSchema);
const validateHotpot = ajv.compile(hotpotSchema);

export interface TaskFileOptions {
  /** `error` (default): a title not in the corpus is an error naming it; `skip`: such tasks are dropped. */
  readonly unknownTitles?: 'error' | 'skip';
}

interface Located {
  readonly where: string;
  readonly value: unknown;
}

/** The entries of a JSON array or a JSONL file (blank lines and `//` comments skipped), each with its location. */
function entriesOf(text: string, source: string): Located[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new InvalidOptionsError(`the task file ${source}`, [`not JSON (${(error as Error).message})`]);
    }
    return (parsed as unknown[]).map((value, index) => ({ where: `${source}[${index}]`, value }));
  }
  const out: Located[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('//')) return;
    try {
      out.push({ where: `${source}:${index + 1}`, value: JSON.parse(line) });
    } catch (error) {
      problems.push(`${source}:${index + 1}: not JSON (${(error as Error).message})`);
    }
  });
  if (problems.length > 0) throw new InvalidOptionsError(`the task file ${source}`, problems.slice(0, 20));
  return out;
}

/** A task before its titles are checked against the corpus. */
interface Draft {
  readonly where: string;
  readonly id: string | undefined;
  readonly kind: TaskKind;
  readonly question: string;
  readonly answers: readonly string[];
  readonly titles: readonly string[];
  readonly split: TaskSplit | undefined;
}

function draftOf({ where, value }: Located, problems: string[]): Draft | undefined {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  const has = (key: string): boolean => object !== undefined && key in object;
  if (has('_id') || has('supporting_facts')) {
    if (!validateHotpot(value)) {
      problems.push(...describeErrors(validateHotpot.errors, `${where} (HotpotQA)`));
      return undefined;
    }
    const entry = value as unknown as HotpotEntry;
    const titles = [...new Set(entry.supporting_facts.map((fact) => fact[0]))];
    return {
      where,
      id: entry._id,
      kind: entry.type === 'comparison' ? 'comparison' : titles.length > 1 ? 'bridge' : 'single',
      question: entry.question,
      answers: [entry.answer],
      titles,
      split: undefined,
    };
  }
  if (has('start') || has('target')) {
    if (!validateRace(value)) {
      problems.push(...describeErrors(validateRace.errors, where));
      return undefined;
    }
    const entry = value as RaceEntry;
    return {
      where,
      id: entry.id,
      kind: 'race',
      question: '',
      answers: [],
      titles: [entry.start, entry.target],
      split: entry.split,
    };
  }
  if (!validateQuestion(value)) {
    problems.push(...describeErrors(validateQuestion.errors, where));
    return undefined;
  }
  const entry = value as QuestionEntry;
  const answers = [...(entry.answer !== undefined ? [entry.answer] : []), ...(entry.answers ?? [])];
  if (answers.length === 0) {
    problems.push(`${where}: a question needs "answer" or "answers"`);
    return undefined;
  }
  if (entry.titles && entry.path) {
    problems.push(`${where}: give "titles" or "path", not both (they are the same: the gold articles in order)`);
    return undefined;
  }
  const titles = entry.titles ?? entry.path ?? [];
  return {
    where,
    id: entry.id,
    kind: entry.type ?? (titles.length > 1 ? 'bridge' : 'single'),
    question: entry.question,
    answers,
    titles,
    split: entry.split,
  };
}

/** Shortest click path (BFS over links in page order), at most `MAX_RACE_CLICKS` clicks; undefined if none. */
export function shortestClickPath(corpus: WikiCorpus, start: string, target: string): string[] | undefined {
  const parent = new Map<string, string | null>([[start, null]]);
  let frontier = [start];
  for (let depth = 0; depth < MAX_RACE_CLICKS && frontier.length > 0 && parent.size < MAX_RACE_VISITS; depth++) {
    const next: string[] = [];
    for (const title of frontier) {
      for (const link of corpus.linksOf(title)) {
        if (parent.has(link)) continue;
        parent.set(link, title);
        if (link === target) {
          const path = [target];
          for (let node = parent.get(target); node; node = parent.get(node)) path.unshift(node);
          return path;
        }
        next.push(link);
      }
    }
    frontier = next;
  }
  return undefined;
}

/**
 * Parses a task file's text into tasks of `corpus`: every title resolved (canonical titles in the gold path),
 * races given their shortest path. Errors (an `InvalidOptionsError` naming `file:line` and the field, or the
 * title that is not in the corpus) are collected and thrown together, at most 20.
 */
export function parseTaskFile(
  text: string,
  corpus: WikiCorpus,
  source = 'tasks',
  options: TaskFileOptions = {},
): WikiTask[] {
  const problems: string[] = [];
  const unknown: string[] = [];
  const drafts = entriesOf(text, source)
    .map((entry) => draftOf(entry, problems))
    .filter((draft): draft is Draft => draft !== undefined);
  if (problems.length > 0) throw new InvalidOptionsError(`the task file ${source}`, problems.slice(0, 20));

  const tasks: WikiTask[] = [];
  const ids = new Set<string>();
  const counters = { qa: 0, race: 0 };
  for (const draft of drafts) {
    const resolved = draft.titles.map((title) => corpus.resolve(title));
    const missing = draft.titles.filter((_, i) => resolved[i] === undefined);
    if (missing.length > 0) {
      if (options.unknownTitles !== 'skip')
        unknown.push(...missing.map((title) => `${draft.where}: title ${JSON.stringify(title)} is not in the corpus`));
      continue;
    }
    const titles = resolved as string[];
    const race = draft.kind === 'race';
    const id = draft.id ?? `user-${race ? 'race' : 'qa'}-${String(counters[race ? 'race' : 'qa']).padStart(6, '0')}`;
    counters[race ? 'race' : 'qa'] += 1;
    if (ids.has(id)) {
      problems.push(`${draft.where}: id ${JSON.stringify(id)} is used twice`);
      continue;
    }
    ids.add(id);
    if (race) {
      const [start, target] = titles as [string, string];
      if (start === target) {
        problems.push(`${draft.where}: the race starts on its target ${JSON.stringify(start)}`);
        continue;
      }
      const path = shortestClickPath(corpus, start, target);
      if (!path) {
        problems.push(
          `${draft.where}: ${JSON.stringify(target)} cannot be reached from ${JSON.stringify(start)} in ${MAX_RACE_CLICKS} clicks or fewer`,
        );
        continue;
      }
      tasks.push({
        id,
        kind: 'race',
        split: draft.split ?? splitOf(start),
        question: `Reach the article "${target}" starting from "${start}", by clicking links.`,
        answers: [target],
        goldPath: path,
        hops: path.length - 1,
        evidence: [],
        start,
        target,
      });
      continue;
    }
    const goldPath = titles.filter((title, i) => titles.indexOf(title) === i);
    tasks.push({
      id,
      kind: draft.kind,
      split: draft.split ?? splitOf(goldPath[0] ?? draft.question),
      question: draft.question,
      answers: draft.answers,
      goldPath,
      hops: Math.max(1, goldPath.length),
      evidence: [],
    });
  }
  if (unknown.length > 0) {
    problems.unshift(
      `${unknown.length} title${unknown.length === 1 ? ' is' : 's are'} not in the corpus ${corpus.description.name} (options.unknownTitles: "skip" drops those tasks)`,
      ...unknown.slice(0, 10),
    );
  }
  if (problems.length > 0) throw new InvalidOptionsError(`the task file ${source}`, problems.slice(0, 20));
  return tasks;
}

const cache = new WeakMap<WikiCorpus, Map<string, WikiTask[]>>();

/** Reads a task file for a corpus, once per (path, size, modification time, unknownTitles) and corpus. */
export function readTaskFile(path: string, corpus: WikiCorpus, options: TaskFileOptions = {}): WikiTask[] {
  const absolute = resolve(path);
  let stat;
  try {
    stat = statSync(absolute);
  } catch {
    throw new InvalidOptionsError('turngym/wiki-navigator', [`options.tasks: no file at ${absolute}`]);
  }
  const key = `${absolute}\u0000${stat.size}\u0000${stat.mtimeMs}\u0000${options.unknownTitles ?? 'error'}`;
  let perCorpus = cache.get(corpus);
  if (!perCorpus) {
    perCorpus = new Map();
    cache.set(corpus, perCorpus);
  }
  let tasks = perCorpus.get(key);
  if (!tasks) {
    tasks = parseTaskFile(readFileSync(absolute, 'utf8'), corpus, absolute, options);
    perCorpus.set(key, tasks);
  }
  return tasks;
}
