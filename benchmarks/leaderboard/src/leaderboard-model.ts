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
  const bySuite = new Map<string, LeaderboardEntry[]>();
  for (const entry of entries) {
    const list = bySuite.get(entry.result.suite.id) ?? [];
    list.push(entry);
    bySuite.set(entry.result.suite.id, list);
  }
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
