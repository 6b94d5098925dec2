import { validateTrajectory, type Trajectory, type TrajectoryStep } from '@turngym/rl';
import { readJsonlLines } from './internal/jsonl-lines';
import { InvalidRunError } from './report-errors';

/**
 * What the viewer needs of a trajectory: its place in the batch and its steps as text (no tokens, no info),
 * under the page's own short names (`id`, `turns`, `reward`, the error's message).
 */
export type RolloutRecord = Pick<
  Trajectory,
  'group' | 'seed' | 'tree' | 'success' | 'stopReason' | 'generatedTokens'
> & {
  readonly id: string;
  readonly reward: number;
  readonly turns: readonly Pick<TrajectoryStep, 'node' | 'action' | 'observation' | 'reward' | 'role' | 'envStep'>[];
  readonly error?: string;
};

/** Longest action or observation kept per turn: a page of text is plenty to read a rollout. */
export const MAX_TURN_TEXT = 4000;

const ITERATION_PREFIX = /^it(\d+)\//;
/** The episodeId field (v1: id) of a JSON trajectory line, when it has the iteration prefix (a string inside a string is escaped, so cannot match). */
const ID_ITERATION = /"(?:episodeId|id)"\s*:\s*"it(\d+)\//;

/** The iteration a trajectory belongs to, from its id (`it<iteration>/…`, as the trainers write it). */
export function iterationOf(id: string): number | undefined {
  const match = ITERATION_PREFIX.exec(id);
  return match ? Number(match[1]) : undefined;
}

function clip(text: string): string {
  if (text.length <= MAX_TURN_TEXT) return text;
  // Not between the two halves of a surrogate pair (an emoji): a lone half is shown as �.
  const high = text.charCodeAt(MAX_TURN_TEXT - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_TURN_TEXT - 1 : MAX_TURN_TEXT;
  return `${text.slice(0, end)}\n… (${text.length - end} more characters in trajectories.jsonl)`;
}

/** Drops the token arrays (the bulk of a record) and clips long text. */
export function toRolloutRecord(trajectory: Trajectory): RolloutRecord {
  return {
    id: trajectory.episodeId,
    group: trajectory.group,
    seed: trajectory.seed,
    ...(trajectory.tree ? { tree: trajectory.tree } : {}),
    turns: trajectory.steps.map((turn) => ({
      node: turn.node,
      action: clip(turn.action),
      observation: clip(turn.observation),
      reward: turn.reward,
      // Rollouts with several roles (Plan/Act): who wrote the turn, and whether it reached the env.
      ...(turn.role !== undefined ? { role: turn.role, envStep: turn.envStep !== false } : {}),
    })),
    reward: trajectory.totalReward,
    success: trajectory.success,
    stopReason: trajectory.stopReason,
    generatedTokens: trajectory.generatedTokens,
    ...(trajectory.error !== undefined ? { error: clip(trajectory.error.message) } : {}),
  };
}

export interface RolloutSelection {
  /** Iterations to keep (the report shows a few, spread over the run). */
  readonly iterations: ReadonlySet<number>;
  /** Prompt groups kept per iteration: groups 0 … maxGroups − 1. */
  readonly maxGroups: number;
}

export interface SelectedRollouts {
  /** The kept rollouts by iteration, in file order. */
  readonly iterations: Map<number, RolloutRecord[]>;
  /** How many prompt groups of each kept iteration were left out by `maxGroups`. */
  readonly hiddenGroups: Map<number, number>;
}

/**
 * The iterations `trajectories.jsonl` holds rollouts of, sorted. A quick first pass (the ids are read
 * without parsing the lines): trainers may save rollouts only every few iterations, so the viewer's
 * iterations are chosen from these, not from metrics.jsonl. A line whose id cannot be read this way is
 * left to `readSelectedRollouts`, which reports it.
 */
export async function scanTrajectoryIterations(path: string): Promise<number[]> {
  const iterations = new Set<number>();
  for await (const { text } of readJsonlLines(path)) {
    const match = ID_ITERATION.exec(text);
    if (match) iterations.add(Number(match[1]));
  }
  return [...iterations].sort((a, b) => a - b);
}

/**
 * Streams `trajectories.jsonl` (it holds every token of every rollout, so it is never read whole) and keeps
 * the selected iterations. Every line is parsed and validated, so a malformed line anywhere is reported
 * with its number (but a torn last line, from a write cut short, is left out).
 */
export async function readSelectedRollouts(path: string, selection: RolloutSelection): Promise<SelectedRollouts> {
  const kept = new Map<number, RolloutRecord[]>();
  const groupsSeen = new Map<number, Set<number>>();
  for await (const { text, number, torn } of readJsonlLines(path)) {
    const where = `${path}:${number}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      if (torn) break; // a write cut short (see readJsonlLines)
      throw new InvalidRunError(`${where}: not JSON (${(error as Error).message}).`);
    }
    let trajectory: Trajectory;
    try {
      trajectory = validateTrajectory(parsed, where);
    } catch (error) {
      throw new InvalidRunError((error as Error).message);
    }
    const iteration = iterationOf(trajectory.episodeId);
    if (iteration === undefined) {
      throw new InvalidRunError(
        `${where}: trajectory episodeId "${trajectory.episodeId}" does not start with it<iteration>/ (e.g. "it3/g0/t0/r0/b0").`,
      );
    }
    if (!selection.iterations.has(iteration)) continue;
    const groups = groupsSeen.get(iteration) ?? new Set<number>();
    groupsSeen.set(iteration, groups);
    groups.add(trajectory.group);
    if (trajectory.group >= selection.maxGroups) continue;
    const records = kept.get(iteration) ?? [];
    kept.set(iteration, records);
    records.push(toRolloutRecord(trajectory));
  }
  const hiddenGroups = new Map<number, number>();
  for (const iteration of kept.keys()) {
    const hidden = [...(groupsSeen.get(iteration) ?? [])].filter((group) => group >= selection.maxGroups).length;
    if (hidden > 0) hiddenGroups.set(iteration, hidden);
  }
  return { iterations: new Map([...kept].sort(([a], [b]) => a - b)), hiddenGroups };
}

/** Up to `count` iterations spread evenly over `available` (sorted), always the first and the last. */
export function spreadIterations(available: readonly number[], count: number): number[] {
  const sorted = [...new Set(available)].sort((a, b) => a - b);
  if (count <= 0) return [];
  if (sorted.length <= count) return sorted;
  if (count === 1) return [sorted[sorted.length - 1]!];
  const picked = new Set<number>();
  for (let index = 0; index < count; index++) {
    picked.add(sorted[Math.round((index * (sorted.length - 1)) / (count - 1))]!);
  }
  return [...picked].sort((a, b) => a - b);
}
