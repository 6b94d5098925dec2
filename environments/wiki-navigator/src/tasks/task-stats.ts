import type { TaskKind, TaskSplit, WikiTask } from './wiki-task';

const KINDS: readonly TaskKind[] = ['single', 'bridge', 'comparison', 'race'];

/** How many tasks there are of one kind, split and number of hops. */
export interface TaskCount {
  readonly kind: TaskKind;
  readonly split: TaskSplit;
  readonly hops: number;
  readonly count: number;
}

/** The counts of a list of tasks (a store counts its own without reading them: `TaskSource.counts`). */
export function countTasks(tasks: readonly WikiTask[]): TaskCount[] {
  const counts = new Map<string, TaskCount>();
  for (const task of tasks) {
    const key = `${task.kind}\u0000${task.split}\u0000${task.hops}`;
    const count = counts.get(key)?.count ?? 0;
    counts.set(key, { kind: task.kind, split: task.split, hops: task.hops, count: count + 1 });
  }
  return [...counts.values()];
}

/**
 * What a corpus (or a task file) yields, as a table: tasks per kind and split, and per number of hops
 * (`turngym-wiki-convert --stats`). The columns are the options an env filters by (`questionTypes`, `split`,
 * `minHops`/`maxHops`), so a user sees which options leave tasks to draw.
 */
export function formatTaskStats(tasks: readonly WikiTask[]): string[] {
  return formatTaskCounts(countTasks(tasks));
}

/** `formatTaskStats` from counts: a store of 900,000 tasks is counted by SQLite, not read into memory. */
export function formatTaskCounts(counts: readonly TaskCount[]): string[] {
  const hops = [...new Set(counts.map((entry) => entry.hops))].sort((a, b) => a - b);
  const lines = [
    `| kind | train | test | ${hops.map((hop) => `${hop} hop${hop === 1 ? '' : 's'} (train/test)`).join(' | ')} |`,
    `|---|---:|---:|${hops.map(() => '---:').join('|')}|`,
  ];
  for (const kind of KINDS) {
    const count = (split: string, hop?: number): number =>
      counts
        .filter((entry) => entry.kind === kind && entry.split === split && (hop === undefined || entry.hops === hop))
        .reduce((sum, entry) => sum + entry.count, 0);
    lines.push(
      `| ${kind} | ${count('train')} | ${count('test')} | ${hops.map((hop) => `${count('train', hop)}/${count('test', hop)}`).join(' | ')} |`,
    );
  }
  return lines;
}
