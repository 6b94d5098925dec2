import type { TaskKind, WikiTask } from './wiki-task';

const KINDS: readonly TaskKind[] = ['single', 'bridge', 'comparison', 'race'];

/**
 * What a corpus (or a task file) yields, as a table: tasks per kind and split, and per number of hops
 * (`turngym-wiki-convert --stats`). The columns are the options an env filters by (`questionTypes`, `split`,
 * `minHops`/`maxHops`), so a user sees which options leave tasks to draw.
 */
export function formatTaskStats(tasks: readonly WikiTask[]): string[] {
  const hops = [...new Set(tasks.map((task) => task.hops))].sort((a, b) => a - b);
  const lines = [
    `| kind | train | test | ${hops.map((hop) => `${hop} hop${hop === 1 ? '' : 's'} (train/test)`).join(' | ')} |`,
    `|---|---:|---:|${hops.map(() => '---:').join('|')}|`,
  ];
  for (const kind of KINDS) {
    const ofKind = tasks.filter((task) => task.kind === kind);
    const count = (split: string, hop?: number): number =>
      ofKind.filter((task) => task.split === split && (hop === undefined || task.hops === hop)).length;
    lines.push(
      `| ${kind} | ${count('train')} | ${count('test')} | ${hops.map((hop) => `${count('train', hop)}/${count('test', hop)}`).join(' | ')} |`,
    );
  }
  return lines;
}
