import { Corpus } from '../corpus/corpus';
import type { WikiCorpus } from '../corpus/wiki-corpus';
import { generateQuestions, generateRaces } from './task-generator';
import { CorpusTaskGraph } from './task-graph';
import { countTasks, type TaskCount } from './task-stats';
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
  /** How many tasks there are per kind, split and hops (what `all()` holds, without reading it on a store). */
  counts(): readonly TaskCount[];
}

export { DISAMBIGUATION_TYPE } from './task-graph';
export { splitOf } from './task-generator';

/**
 * The tasks generated from a corpus in memory (`generateQuestions`, `generateRaces`: questions from its
 * infoboxes, races from its link graph), generated on first use and kept. Deterministic in the corpus; built
 * once per corpus and shared (`taskBankFor`).
 */
export class TaskBank implements TaskSource {
  private qa: WikiTask[] | undefined;
  private races: WikiTask[] | undefined;
  private graph: CorpusTaskGraph | undefined;
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

  counts(): readonly TaskCount[] {
    return countTasks(this.all());
  }

  select(filter: TaskFilter): TaskSelection {
    const tasks = this.tasks(filter);
    return { size: tasks.length, at: (index) => tasks[index] as WikiTask };
  }

  get(id: string): WikiTask | undefined {
    if (!this.byId.has(id)) {
      if (id.startsWith('race-')) this.raceTasks();
      else this.questions();
    }
    return this.byId.get(id);
  }

  private taskGraph(): CorpusTaskGraph {
    this.graph ??= new CorpusTaskGraph(this.corpus);
    return this.graph;
  }

  private register(tasks: WikiTask[]): void {
    for (const task of tasks) this.byId.set(task.id, task);
  }

  private questions(): WikiTask[] {
    if (this.qa) return this.qa;
    const seen = new Set<string>();
    this.qa = [
      ...generateQuestions(this.taskGraph(), (question) => !seen.has(question) && Boolean(seen.add(question))),
    ];
    this.register(this.qa);
    return this.qa;
  }

  private raceTasks(): WikiTask[] {
    if (this.races) return this.races;
    this.races = [...generateRaces(this.taskGraph())];
    this.register(this.races);
    return this.races;
  }
}

/** "3 train and 1 test questions (single 2/1, …), 0 train and 0 test races": what a task list holds. */
export function describeTaskCounts(tasks: readonly WikiTask[] | { readonly counts: readonly TaskCount[] }): string {
  const counts = 'counts' in tasks ? tasks.counts : countTasks(tasks);
  const count = (kind: TaskKind | 'qa', split: TaskSplit): number =>
    counts
      .filter((entry) => (kind === 'qa' ? entry.kind !== 'race' : entry.kind === kind) && entry.split === split)
      .reduce((sum, entry) => sum + entry.count, 0);
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
