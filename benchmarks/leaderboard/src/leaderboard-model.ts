import { basename } from 'node:path';
import type { BenchResult, EnvResult } from './bench-result';
import type { LeaderboardEntry } from './submission';
import type { LoadedSuite } from './suite';

/** One row of a suite's table. */
export interface LeaderboardRow {
  /** Unique on the page: the run id (with a suffix when two files share one). */
  id: string;
  rank: number;
  label: string;
  result: BenchResult;
  submittedBy: string | null;
  description: string | null;
  url: string | null;
  /** The records are on this machine: the rollout viewer can show them. */
  recordsFile: string | null;
  recordsUrl: string | null;
  /** Envs of the table this row did not run. */
  missingEnvs: string[];
  /**
   * Envs this row ran whose every episode errored: nothing was scored, so its overall rate is a mean over the
   * other envs only, and the row is partial like one that skipped them.
   */
  unscoredEnvs: string[];
  /** Envs this row ran at another package version than the table's most common one. */
  otherVersions: { envId: string; version: string | null }[];
  /**
   * Other input files (names only) holding this same run — its run id, start and finish — shown once: a result
   * submitted twice, or a local result and its submission, is one run, not two rows ranked side by side.
   */
  duplicates: string[];
  envs: Map<string, EnvResult>;
}

/** The table of one suite. Results of different suites are never ranked together. */
export interface SuiteBoard {
  suiteId: string;
  description: string | null;
  envIds: string[];
  /** The most common package version of each env among the rows. */
  envVersions: Map<string, string | null>;
  rows: LeaderboardRow[];
}

function mostCommon<T>(values: readonly T[]): T | undefined {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: T | undefined;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/** A row whose overall rate leaves envs of its table out: it did not run them, or scored no episode of them. */
export const isPartial = (row: LeaderboardRow): boolean => row.missingEnvs.length > 0 || row.unscoredEnvs.length > 0;

const score = (row: LeaderboardRow): number => row.result.overall.success?.mean ?? -1;
const reward = (row: LeaderboardRow): number => row.result.overall.reward?.mean ?? Number.NEGATIVE_INFINITY;

/**
 * Groups entries by suite (the suites known here first, in their order) and ranks each table: complete
 * rows before partial ones (fewer envs, or envs where every episode errored, are not comparable), then by the mean success rate over envs, then
 * by the mean reward over envs; rows equal on all three share a rank.
 */
export function buildLeaderboard(
  entries: readonly LeaderboardEntry[],
  suites: readonly LoadedSuite[] = [],
): SuiteBoard[] {
  // A suite known here has checked every result's hash already. Results of a suite not known here that share its
  // id but not its hash played different episodes: a table each, the hash in its name.
  const hashes = new Map<string, Set<string>>();
  for (const { result } of entries) {
    if (suites.some((suite) => suite.id === result.suite.id)) continue;
    hashes.set(result.suite.id, (hashes.get(result.suite.id) ?? new Set()).add(result.suite.sha256));
  }
  const boardId = ({ suite }: BenchResult): string =>
    (hashes.get(suite.id)?.size ?? 0) > 1 ? `${suite.id} (sha256 ${suite.sha256.slice(0, 12)}…)` : suite.id;
  const bySuite = new Map<string, LeaderboardEntry[]>();
  const runs = new Map<string, { entry: LeaderboardEntry; duplicates: string[] }>();
  for (const entry of entries) {
    const { runId, startedAt, finishedAt, suite } = entry.result;
    const key = JSON.stringify([suite.id, suite.sha256, runId, startedAt, finishedAt]);
    const seen = runs.get(key);
    if (seen) {
      // The copy whose records are here keeps the row (the viewer can show them); the other is named in a note.
      const keep = seen.entry.recordsFile === null && entry.recordsFile !== null;
      seen.duplicates.push(basename(keep ? seen.entry.file : entry.file));
      if (keep) {
        const list = bySuite.get(boardId(entry.result)) as LeaderboardEntry[];
        list[list.indexOf(seen.entry)] = entry;
        seen.entry = entry;
      }
      continue;
    }
    runs.set(key, { entry, duplicates: [] });
    const list = bySuite.get(boardId(entry.result)) ?? [];
    list.push(entry);
    bySuite.set(boardId(entry.result), list);
  }
  const duplicatesOf = new Map([...runs.values()].map(({ entry, duplicates }) => [entry, duplicates]));
  const order = [
    ...suites.map((suite) => suite.id).filter((id) => bySuite.has(id)),
    ...[...bySuite.keys()].filter((id) => !suites.some((suite) => suite.id === id)).sort(),
  ];
  const usedIds = new Set<string>();
  return order.map((suiteId): SuiteBoard => {
    const group = bySuite.get(suiteId) as LeaderboardEntry[];
    const suite = suites.find((candidate) => candidate.id === suiteId);
    const seen = new Set<string>();
    const envIds = suite ? suite.envs.map((env) => env.envId).filter((id) => !seen.has(id) && seen.add(id)) : [];
    for (const entry of group)
      for (const env of entry.result.envs) if (!envIds.includes(env.envId)) envIds.push(env.envId);
    // Only envs some row ran get a column.
    const columns = envIds.filter((id) => group.some((entry) => entry.result.envs.some((env) => env.envId === id)));
    const envVersions = new Map(
      columns.map((id) => [
        id,
        mostCommon(
          group.flatMap((entry) =>
            entry.result.envs.filter((env) => env.envId === id).map((env) => env.packageVersion),
          ),
        ) ?? null,
      ]),
    );
    const rows = group.map((entry): LeaderboardRow => {
      let id = entry.result.runId;
      for (let n = 2; usedIds.has(id); n++) id = `${entry.result.runId}-${n}`;
      usedIds.add(id);
      const envs = new Map(entry.result.envs.map((env) => [env.envId, env]));
      return {
        id,
        rank: 0,
        label: entry.result.label,
        result: entry.result,
        submittedBy: entry.submission?.submittedBy ?? null,
        description: entry.submission?.description ?? null,
        url: entry.submission?.url ?? null,
        recordsFile: entry.recordsFile,
        recordsUrl: entry.recordsUrl,
        missingEnvs: columns.filter((envId) => !envs.has(envId)),
        unscoredEnvs: entry.result.envs.filter((env) => env.scored === 0).map((env) => env.envId),
        otherVersions: entry.result.envs
          .filter((env) => envVersions.has(env.envId) && env.packageVersion !== envVersions.get(env.envId))
          .map((env) => ({ envId: env.envId, version: env.packageVersion })),
        duplicates: duplicatesOf.get(entry) ?? [],
        envs,
      };
    });
    rows.sort(
      (a, b) =>
        Number(isPartial(a)) - Number(isPartial(b)) ||
        score(b) - score(a) ||
        reward(b) - reward(a) ||
        a.label.localeCompare(b.label),
    );
    // Rows that tie on everything the ranking compares share a rank (1, 1, 3): their order is only by label, and
    // "1st" and "2nd" would claim a difference the scores do not show.
    rows.forEach((row, index) => {
      const above = rows[index - 1];
      const tied =
        above !== undefined &&
        isPartial(above) === isPartial(row) &&
        score(above) === score(row) &&
        reward(above) === reward(row);
      row.rank = tied ? above.rank : index + 1;
    });
    return { suiteId, description: suite?.description ?? null, envIds: columns, envVersions, rows };
  });
}
