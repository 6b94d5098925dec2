import { RandomAgent, runEpisode, SeededRng, summarize, type EpisodeOutcome, type Interval } from '@turngym/core';
import type { Action, Agent } from '@turngym/spec';
import type { SimulationPolicy } from '@turngym/search';
import { searchFixedSequence, type SequenceTask } from './fixed-sequence-search';
import { MctsAgent } from './mcts-agent';
import { SellerEnv } from './seller-env';
import { SellerExpert } from './seller-expert';

export interface BaselineOptions {
  /** Test tasks to evaluate random, the fixed sequence and the expert on (default: every test task). */
  readonly episodes?: number;
  /** Test tasks for MCTS, which is slower (an evenly spread subset). */
  readonly mctsEpisodes: number;
  /** Simulations per MCTS decision. */
  readonly mctsSimulations: number;
  /** Train tasks the fixed-sequence search scores sequences on. */
  readonly searchTasks: number;
  readonly searchRestarts: number;
  readonly searchSweeps: number;
  readonly seed: number;
  readonly onProgress?: (line: string) => void;
}

export interface BaselineRow {
  readonly policy: string;
  readonly detail: string;
  readonly episodes: number;
  readonly successRate: number;
  readonly successInterval: Interval;
  readonly meanReward: number;
  readonly meanTurns: number;
}

/** Episode seed of test task `taskId`: fixed, so every policy meets the same buyer noise. */
const episodeSeed = (taskId: number): number => 100_000 + taskId;

/** `count` task ids spread evenly over `size`. */
function spread(size: number, count: number): number[] {
  const n = Math.min(size, count);
  return Array.from({ length: n }, (_, index) => Math.floor((index * size) / n));
}

async function evaluate(
  env: SellerEnv,
  taskIds: readonly number[],
  agentFor: (taskId: number) => Agent<unknown, Action>,
): Promise<EpisodeOutcome[]> {
  const outcomes: EpisodeOutcome[] = [];
  for (const taskId of taskIds) outcomes.push(await runEpisode(env, agentFor(taskId), episodeSeed(taskId), { taskId }));
  return outcomes;
}

/** An open-loop agent: plays a fixed sequence whatever happens. */
function sequenceAgent(sequence: readonly number[]): Agent<unknown, Action> {
  let next = 0;
  return {
    name: 'fixed-sequence',
    async start() {
      next = 0;
    },
    async act() {
      return sequence[Math.min(next++, sequence.length - 1)] as number;
    },
  };
}

function row(policy: string, detail: string, outcomes: readonly EpisodeOutcome[]): BaselineRow {
  const summary = summarize(outcomes);
  return {
    policy,
    detail,
    episodes: summary.episodes,
    successRate: summary.successRate,
    successInterval: summary.successInterval,
    meanReward: summary.meanReward,
    meanTurns: summary.meanTurns,
  };
}

/** Rollouts that never threaten: random over the other legal meta-actions. */
export const NO_THREAT_ROLLOUT =
  (threatIndex: number): SimulationPolicy<number> =>
  (legal, rng) => {
    const kind = legal.filter((action) => action !== threatIndex);
    return rng.pick(kind.length > 0 ? kind : legal);
  };

/**
 * The README's baselines for turngym/seller-commander-v1 (default options, simulated roles), on the test
 * split: random, the best fixed sequence (searched on train tasks), the scripted expert (observation only),
 * and MCTS through fork (privileged: its simulations see the hidden buyer), the upper bound.
 */
export async function measureSellerBaselines(options: BaselineOptions): Promise<BaselineRow[]> {
  const log = options.onProgress ?? (() => {});
  const test = new SellerEnv({ split: 'test' });
  const train = new SellerEnv({ split: 'train' });
  const testIds = spread(test.tasks.length, options.episodes ?? test.tasks.length);
  const rows: BaselineRow[] = [];

  log(`random on ${testIds.length} test tasks`);
  rows.push(
    row(
      'random',
      'a legal meta-action uniformly',
      await evaluate(test, testIds, (taskId) => new RandomAgent(options.seed + taskId)),
    ),
  );

  log(`fixed-sequence search on ${options.searchTasks} train tasks`);
  const rng = new SeededRng(options.seed);
  const searchTasks: SequenceTask[] = rng
    .shuffle(Array.from({ length: train.tasks.length }, (_, index) => index))
    .slice(0, options.searchTasks)
    .map((taskId) => ({ seed: episodeSeed(taskId), options: { taskId } }));
  const best = await searchFixedSequence(train, searchTasks, {
    length: train.options.rounds,
    actions: train.metaActions.size,
    restarts: options.searchRestarts,
    sweeps: options.searchSweeps,
    seed: options.seed,
    // The line a textbook seller would take, as one of the starts.
    starts: [[0, 3, 1, 8, 2, 8, 2, 7]],
    onImprove: (found) =>
      log(`  best so far ${found.sequence.join(',')}: ${(100 * found.successRate).toFixed(1)}% on train`),
  });
  const names = best.sequence.map((index) => train.metaActions.actions[index]?.id ?? String(index)).join(' → ');
  rows.push(row('best fixed sequence', names, await evaluate(test, testIds, () => sequenceAgent(best.sequence))));

  log('scripted expert');
  rows.push(
    row(
      'scripted expert',
      'reads the dialogue only (`scripted` agent)',
      await evaluate(test, testIds, () => new SellerExpert()),
    ),
  );

  const mctsIds = spread(test.tasks.length, options.mctsEpisodes);
  const threat = test.metaActions.actions.findIndex((action) => action.behavesAs === 'threaten');
  for (const [name, rollout] of [
    ['MCTS (reference: random rollouts)', undefined],
    ['MCTS (rollouts without threats)', NO_THREAT_ROLLOUT(threat)],
  ] as const) {
    log(`${name}, ${options.mctsSimulations} simulations, on ${mctsIds.length} test tasks`);
    const outcomes = await evaluate(test, mctsIds, (taskId) => {
      const agent = new MctsAgent(test, {
        simulations: options.mctsSimulations,
        seed: options.seed + taskId,
        ...(rollout ? { rolloutPolicy: rollout } : {}),
      });
      return agent;
    });
    rows.push(row(name, `UCT through fork(), ${options.mctsSimulations} simulations a move, subtree reused`, outcomes));
  }
  await test.close();
  await train.close();
  return rows;
}

/** The rows as a markdown table. */
export function formatBaselineTable(rows: readonly BaselineRow[]): string {
  const percent = (value: number): string => `${(100 * value).toFixed(1)}%`;
  return [
    '| policy | success (95% CI) | mean reward | mean turns | episodes | how |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map(
      (each) =>
        `| ${each.policy} | ${percent(each.successRate)} (${percent(each.successInterval.low)}–${percent(each.successInterval.high)}) | ${each.meanReward.toFixed(2)} | ${each.meanTurns.toFixed(1)} | ${each.episodes} | ${each.detail} |`,
    ),
  ].join('\n');
}
