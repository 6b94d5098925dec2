import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAdapter, loadModel } from '@turngym/lm';
import { ChatTurnFormat, collectChains, evaluatePolicy, installedEnvRegistry, testSplitOptions } from '@turngym/rl';
import type { Experiment } from './experiments';

/** A policy scored on an experiment's test tasks, task by task. */
export interface TestScore {
  readonly checkpoint: string;
  /** The LoRA adapter directory on top of the checkpoint, if any. */
  readonly adapter: string | null;
  readonly episodes: number;
  readonly successRate: number;
  readonly meanReturn: number;
  /** Per test seed 0, 1, … (and per sample of a seed, samples of one seed together): '1' where it succeeded. */
  readonly wins: string;
  /** Episodes sampled at temperature 1 per test task; absent = one greedy episode per task. */
  readonly samples?: number;
  /** What the score is of, beyond the paths (a run's last iteration): a saved score of something else is stale. */
  readonly tag?: string;
}

const ADAPTER = 'policy';
/** The sampling seed of sampled scores: every policy is scored on the same draws. */
const SAMPLING_SEED = 1;
/** Episodes per test task in a sampled score. */
export const SAMPLES_PER_TASK = 4;

/**
 * Scores a policy exactly as the RL trainers evaluate theirs: greedy, test seeds 0 … evalEpisodes − 1, the RL
 * rollout caps. The SFT stage's own evaluation may differ (it did: 50 episodes, whose seeds 0–49 happen to be
 * harder than 0–199), so the start an RL run is compared with is scored here; and a run's final policy is
 * scored again to get its task-by-task outcomes, which the trainers' metrics do not keep (its success rate
 * must equal the run's own last evaluation). An RL run's adapter starts with B = 0, so the checkpoint alone
 * is the run's policy at iteration 0. With `samples`, each test task gets that many episodes at temperature 1
 * instead (one sampling seed for every policy).
 */
export async function scoreOnTestTasks(
  experiment: Experiment,
  checkpoint: string,
  adapter: string | null = null,
  samples?: number,
): Promise<TestScore> {
  const tasks = Number(experiment.rl.evalEpisodes);
  const registry = installedEnvRegistry();
  const options = testSplitOptions(registry, experiment.envId, experiment.envOptions);
  const model = await loadModel(checkpoint, { backend: 'wasm' });
  try {
    if (adapter) loadAdapter(model, adapter, ADAPTER);
    const request = {
      policy: { model, format: new ChatTurnFormat(model.tokenizer) },
      makeEnv: () => registry.make(experiment.envId, { options }),
      envId: experiment.envId,
      seeds: Array.from({ length: tasks }, (_, seed) => seed),
    };
    const rollout = {
      maxActionTokens: Number(experiment.rl.maxActionTokens),
      maxRolloutTokens: Number(experiment.rl.maxRolloutTokens),
      instructions: experiment.rl.instructions === true,
      ...(experiment.rl.maxBatch !== undefined ? { maxBatch: Number(experiment.rl.maxBatch) } : {}),
      ...(adapter ? { adapter: ADAPTER } : {}),
    };
    // Greedy is the trainers' own evaluation; sampled at temperature 1, with a fixed sampling seed, is the
    // policy GRPO optimises, which can move when its greedy episodes do not.
    const trajectories =
      samples === undefined
        ? (await evaluatePolicy({ ...request, options: rollout })).trajectories
        : await collectChains({
            ...request,
            groupSize: samples,
            idPrefix: 'eval',
            options: { ...rollout, temperature: 1, topP: 1, seed: SAMPLING_SEED },
          });
    const wins = trajectories.map((trajectory) => (trajectory.success ? 1 : 0));
    return {
      checkpoint,
      adapter,
      episodes: trajectories.length,
      successRate: wins.reduce<number>((sum, win) => sum + win, 0) / trajectories.length,
      meanReturn: trajectories.reduce((sum, trajectory) => sum + trajectory.totalReward, 0) / trajectories.length,
      wins: wins.join(''),
      ...(samples === undefined ? {} : { samples }),
    };
  } finally {
    model.dispose();
  }
}

/** `file` if it holds a score of the same thing (`tag`) over the experiment's test tasks, else a fresh score written there. */
export async function cachedScore(
  file: string,
  experiment: Experiment,
  checkpoint: string,
  { adapter = null, tag, samples }: { adapter?: string | null; tag?: string; samples?: number } = {},
): Promise<TestScore> {
  const saved = readScore(file);
  const episodes = Number(experiment.rl.evalEpisodes) * (samples ?? 1);
  if (saved && saved.episodes === episodes && saved.samples === samples && saved.tag === tag) return saved;
  const score = { ...(await scoreOnTestTasks(experiment, checkpoint, adapter, samples)), ...(tag ? { tag } : {}) };
  writeFileSync(file, `${JSON.stringify(score, null, 2)}\n`);
  return score;
}

export function readScore(file: string): TestScore | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TestScore) : undefined;
}

/** Where the warm start's score and a run's final score are kept. */
export const startScoreFile = (sftDir: string): string => join(sftDir, 'start-eval.json');
export const finalScoreFile = (runDir: string): string => join(runDir, 'final-eval.json');
/** Where the sampled scores (`SAMPLES_PER_TASK` episodes per test task at temperature 1) are kept. */
export const startSampledFile = (sftDir: string): string => join(sftDir, 'start-sampled.json');
export const finalSampledFile = (runDir: string): string => join(runDir, 'final-sampled.json');

/** Test tasks a policy solves that the start did not, and the other way round. */
export function gainedAndLost(start: TestScore, end: TestScore): { gained: number; lost: number } {
  let gained = 0;
  let lost = 0;
  for (let seed = 0; seed < Math.min(start.wins.length, end.wins.length); seed++) {
    if (start.wins[seed] === '0' && end.wins[seed] === '1') gained++;
    if (start.wins[seed] === '1' && end.wins[seed] === '0') lost++;
  }
  return { gained, lost };
}

/** Exact two-sided sign test: P(a split at least this uneven | each of the n = a + b flips is a fair coin). */
export function signTestP(a: number, b: number): number {
  const n = a + b;
  if (n === 0) return 1;
  let tail = 0;
  let choose = 1; // C(n, 0)
  for (let i = 0; i <= Math.min(a, b); i++) {
    tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}
