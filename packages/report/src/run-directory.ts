import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { RUN_FILES } from '@turngym/rl';
import { CRITIC_CALIBRATION_FILE, parseCriticCalibration, type CriticCalibration } from './critic-calibration';
import type { RunSeries } from './learning-curves';
import { readMetrics, type MetricRow } from './metrics-file';
import { InvalidRunError } from './report-errors';
import {
  readSelectedRollouts,
  scanTrajectoryIterations,
  spreadIterations,
  type SelectedRollouts,
} from './rollout-records';
import { parseRunInfo, type RunInfo } from './run-info';

const RUN_FILE = RUN_FILES.info;
const METRICS_FILE = RUN_FILES.metrics;

/** How deep below a given directory runs are looked for (`runs/<env>/<algorithm>/<seed>` is three). */
const SEARCH_DEPTH = 4;

/** A run directory as the report reads it. */
export interface TrainingRun extends RunSeries {
  /** Absolute path of the run directory. */
  readonly dir: string;
  /** The path shown in the page: relative to the parent of the directory it was found under. */
  readonly name: string;
  readonly info: RunInfo;
  readonly metrics: MetricRow[];
  /** The rollouts the viewer keeps; null when the run has no trajectories.jsonl (or none were asked for). */
  readonly rollouts: SelectedRollouts | null;
  /** Its critic's held-out predictions against returns; null without a critic-calibration.json. */
  readonly calibration: CriticCalibration | null;
}

export interface FoundRun {
  readonly dir: string;
  readonly name: string;
}

/** The `schema` of the manifests `turngym bench` writes as run.json too (`<out>/runs/<id>/run.json`). */
const BENCH_RUN_SCHEMA = 'turngym.bench-run/v1';

/** Whether `dir/run.json` is a bench run's manifest, not a training run's: the default out dirs share `runs/`. */
async function isBenchRun(dir: string): Promise<boolean> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, RUN_FILE), 'utf8')) as { schema?: unknown } | null;
    return parsed?.schema === BENCH_RUN_SCHEMA;
  } catch {
    return false; // unreadable or not JSON: readRun names the fault
  }
}

async function searchRuns(dir: string, depth: number, found: string[], benchRuns: string[]): Promise<void> {
  if (existsSync(join(dir, RUN_FILE))) {
    if (await isBenchRun(dir)) benchRuns.push(dir);
    else found.push(dir);
    return;
  }
  if (depth === 0) return;
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules') {
      await searchRuns(join(dir, entry.name), depth - 1, found, benchRuns);
    }
  }
}

/**
 * The run directories behind the paths given: a path holding run.json is a run; any other directory is
 * searched a few levels down for runs. A path that does not exist, is not a directory or holds no run is
 * an error naming it. Each run is listed once, in the order found. The benchmark runs of `turngym bench`
 * (their run.json is a bench manifest) are passed over: `runs/` often holds both, `runs/leaderboard` by default.
 */
export async function findRunDirectories(paths: readonly string[]): Promise<FoundRun[]> {
  const runs = new Map<string, FoundRun>();
  for (const path of paths) {
    const absolute = resolve(path);
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(absolute)).isDirectory();
    } catch {
      throw new InvalidRunError(`${path}: no such directory.`);
    }
    if (!isDirectory) {
      throw new InvalidRunError(`${path}: not a directory (pass a run directory, or a directory of runs).`);
    }
    const found: string[] = [];
    const benchRuns: string[] = [];
    await searchRuns(absolute, SEARCH_DEPTH, found, benchRuns);
    if (found.length === 0 && benchRuns.length > 0) {
      const what =
        benchRuns[0] === absolute
          ? 'is a benchmark run of turngym bench, not a training run'
          : `holds benchmark runs of turngym bench (${relative(absolute, benchRuns[0] as string)}${
              benchRuns.length > 1 ? ` and ${benchRuns.length - 1} more` : ''
            }), no training run`;
      throw new InvalidRunError(`${path}: ${what}: turngym leaderboard renders those.`);
    }
    if (found.length === 0) {
      throw new InvalidRunError(
        `${path}: no ${RUN_FILE} in it or in its subdirectories (a run directory holds ${RUN_FILE} and ${METRICS_FILE}).`,
      );
    }
    const parent = dirname(absolute);
    for (const dir of found) {
      if (!runs.has(dir)) runs.set(dir, { dir, name: relative(parent, dir) || basename(dir) });
    }
  }
  return [...runs.values()];
}

export interface ReadRunOptions {
  /** Iterations of rollouts to keep, spread over the run; 0 skips trajectories.jsonl. */
  readonly rolloutIterations: number;
  /** Prompt groups per iteration to keep. */
  readonly rolloutGroups: number;
}

/**
 * Runs `read` on `file`, turning a file system error into one that names the file: Node's EISDIR (a directory
 * where the file should be) names no path at all, and the CLI shows only the message.
 */
async function reading<T>(file: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidRunError || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
    throw new InvalidRunError(`${file}: cannot be read (${(error as Error).message}).`, { cause: error });
  }
}

/**
 * Reads one run directory: run.json and metrics.jsonl (both required), trajectories.jsonl and
 * critic-calibration.json if present.
 */
export async function readRun(found: FoundRun, options: ReadRunOptions): Promise<TrainingRun> {
  const runFile = join(found.dir, RUN_FILE);
  const metricsFile = join(found.dir, METRICS_FILE);
  const trajectoriesFile = join(found.dir, RUN_FILES.trajectories);
  const info = parseRunInfo(await reading(runFile, () => readFile(runFile, 'utf8')), runFile);
  if (!existsSync(metricsFile)) {
    throw new InvalidRunError(`${metricsFile}: missing (a trainer writes one line per iteration there).`);
  }
  const metrics = await reading(metricsFile, () => readMetrics(metricsFile));
  let rollouts: SelectedRollouts | null = null;
  if (options.rolloutIterations > 0 && existsSync(trajectoriesFile)) {
    const available = await reading(trajectoriesFile, () => scanTrajectoryIterations(trajectoriesFile));
    const iterations = new Set(spreadIterations(available, options.rolloutIterations));
    rollouts = await reading(trajectoriesFile, () =>
      readSelectedRollouts(trajectoriesFile, { iterations, maxGroups: options.rolloutGroups }),
    );
  }
  const calibrationFile = join(found.dir, CRITIC_CALIBRATION_FILE);
  const calibration = existsSync(calibrationFile)
    ? parseCriticCalibration(await reading(calibrationFile, () => readFile(calibrationFile, 'utf8')), calibrationFile)
    : null;
  return { dir: found.dir, name: found.name, info, metrics, rollouts, calibration };
}
