/**
 * AlphaZero for the seller commander (ALGORITHMS.md §5; seed: seller-self-judge-pipeline, reference: LightZero
 * PR #276 `zoo/seller`), in CleanRL's shape: Args → envs and network → loop of self-play (PUCT through
 * `env.fork()`) → training on visit counts and outcomes → evaluation → metrics and an atomic checkpoint.
 */
import {
  InvalidOptionsError,
  mean,
  mixSeed,
  runEpisode,
  SeededRng,
  summarize,
  TurnGymError,
  type EnvDependencies,
  type Registry,
} from '@turngym/core';
import { useBackend } from '@turngym/lm';
import {
  installedEnvRegistry,
  loadStoresCheckpoint,
  RunDirectory,
  saveStoresCheckpoint,
  testSplitOptions,
  type JsonValue,
} from '@turngym/rl';
import type { Action, Agent, Info } from '@turngym/spec';
import {
  ALPHAZERO_ARG_DEFAULTS,
  RESUMABLE_ALPHAZERO_ARGS,
  validateAlphaZeroArgs,
  type AlphaZeroArgs,
} from './alphazero-args';
import { AlphaZeroError } from './alphazero-error';
import { AlphaZeroMctsAgent, AlphaZeroSearch, PolicyHeadAgent, type AlphaZeroSearchOptions } from './alphazero-search';
import { DialogueEncoder } from './dialogue-features';
import { PolicyValueNet, type UpdateStats } from './policy-value-net';
import { ReplayBuffer, type ReplaySample } from './replay-buffer';
import { TranscriptRecorder } from './transcript-recorder';
import { allVoid, isVoidEpisode } from './void-episode';

/** What a caller may give the trainer besides its arguments. */
export interface AlphaZeroHooks {
  /** Where envs come from (default: the installed env packages). */
  readonly registry?: Registry;
  /** Passed to `make` (the seller's `{ buyer, judge, executor }` ChatModels for LLM roles). */
  readonly dependencies?: EnvDependencies;
  /** Stops after the current iteration (its checkpoint is written). */
  readonly signal?: AbortSignal;
  /** Called with each iteration's metrics row. */
  readonly onIteration?: (row: Record<string, number>) => void;
}

/** A trained AlphaZero: the network and what reads the dialogue for it. */
export interface AlphaZeroResult {
  /** Iterations done, counting those of earlier processes of a resumed run. */
  readonly iterations: number;
  /** Self-play moves so far, those of void episodes included (CleanRL's global_step: every env step played). */
  readonly globalStep: number;
  /** The last evaluation (NaN where this process evaluated none). */
  readonly policySuccessRate: number;
  readonly mctsSuccessRate: number;
  readonly net: PolicyValueNet;
  readonly encoder: DialogueEncoder;
  /** The run's arguments, defaults filled. */
  readonly args: AlphaZeroArgs;
}

/** What the runner keeps in the checkpoint besides the stores. */
interface LoopState {
  rng: number[];
  globalStep: number;
  [key: string]: JsonValue;
}

/** An episode's searched states and how it went. */
interface SelfPlayEpisode {
  readonly samples: ReplaySample[];
  readonly totalReward: number;
  readonly success: boolean;
  readonly turns: number;
  readonly rootValues: number[];
  /** Env steps and LLM role tokens of this episode's searches (forks included; the played moves excluded). */
  readonly searchSteps: number;
  readonly searchTokens: number;
}

/** The search's preference pair (MCTS-DPO): best and worst mean return among the visited root children. */
function preferencePair(decision: Awaited<ReturnType<AlphaZeroSearch['search']>>): {
  chosen: number;
  rejected: number;
} {
  const visited = decision.children.filter((child) => child.visits > 0);
  if (visited.length < 2) return { chosen: -1, rejected: -1 };
  const best = visited.reduce((a, b) => (b.mean > a.mean ? b : a));
  const worst = visited.reduce((a, b) => (b.mean < a.mean ? b : a));
  return best.mean > worst.mean ? { chosen: best.action, rejected: worst.action } : { chosen: -1, rejected: -1 };
}

/**
 * One self-play episode: a search per move (root noise, a move sampled ∝ visits^(1/τ)), each searched state
 * kept with π_MCTS; once it ends, each state's z is the undiscounted return from it on (the seller's ±1).
 * `played.moves` counts the moves as they are played, so that an episode that fails (void) still counts them.
 */
async function selfPlay(
  env: TranscriptRecorder,
  search: AlphaZeroSearch,
  seed: number,
  options: Record<string, unknown> | undefined,
  played: { moves: number },
): Promise<SelfPlayEpisode> {
  const reset = await env.reset(options === undefined ? { seed } : { seed, options });
  let info: Info = reset.info;
  const searched: Omit<ReplaySample, 'return'>[] = [];
  const rewards: number[] = [];
  const rootValues: number[] = [];
  let success = false;
  let searchSteps = 0;
  let searchTokens = 0;
  for (;;) {
    const before = { ...env.usage };
    const decision = await search.search(env, info);
    searchSteps += env.usage.steps - before.steps;
    searchTokens += env.usage.llmTokens - before.llmTokens;
    const pair = preferencePair(decision);
    const logp = (action: number): number => (action >= 0 ? Math.log(decision.networkPriors[action] as number) : 0);
    searched.push({
      features: decision.features,
      legal: decision.legalMask,
      policy: decision.fullPolicy,
      ...pair,
      referenceChosenLogp: logp(pair.chosen),
      referenceRejectedLogp: logp(pair.rejected),
    });
    rootValues.push(decision.rootValue);
    const result = await env.step(decision.action);
    played.moves += 1;
    rewards.push(result.reward);
    info = result.info;
    if (result.terminated || result.truncated) {
      success = result.info.success === true;
      break;
    }
  }
  // z_t = Σ_{k ≥ t} r_k (γ = 1, as the reference's backed-up return).
  let toGo = 0;
  const returns = rewards.map(() => 0);
  for (let t = rewards.length - 1; t >= 0; t--) returns[t] = toGo += rewards[t] as number;
  return {
    samples: searched.map((state, t) => ({ ...state, return: returns[t] as number })),
    totalReward: returns[0] ?? 0,
    success,
    turns: rewards.length,
    rootValues,
    searchSteps,
    searchTokens,
  };
}

/**
 * Test episodes of one agent: task ids with seed 100000 + id (the seller baselines' seeds), else seeds 100000 + i.
 * A void episode (`isVoidEpisode`) is counted in `errored` and left out of the rates (NaN when all were void).
 */
export async function evaluateAgent(
  env: TranscriptRecorder,
  agent: Agent<string, Action>,
  episodes: number,
  tasks?: readonly number[],
): Promise<{ successRate: number; meanReturn: number; errored: number }> {
  const outcomes = [];
  let errored = 0;
  for (let i = 0; i < episodes; i++) {
    const task = tasks?.[i % tasks.length];
    try {
      outcomes.push(
        await runEpisode(env, agent, 100_000 + (task ?? i), task === undefined ? undefined : { taskId: task }),
      );
    } catch (error) {
      if (!isVoidEpisode(error)) throw error;
      errored += 1;
    }
  }
  if (outcomes.length === 0) return { successRate: Number.NaN, meanReturn: Number.NaN, errored };
  const summary = summarize(outcomes);
  return { successRate: summary.successRate, meanReturn: summary.meanReward, errored };
}

/**
 * Resets `env` once on each task id of each field (`trainTasks: [env, ids]`), so that an id the env does not
 * have fails before run.json records the run — a corrected command would be refused as another run — rather
 * than at the first episode that draws it. A seeded reset leaves nothing behind for the next one.
 */
export async function checkTaskIds(
  subject: string,
  fields: Record<string, readonly [TranscriptRecorder, readonly number[] | undefined]>,
): Promise<void> {
  for (const [field, [env, tasks]] of Object.entries(fields)) {
    for (const taskId of new Set(tasks ?? [])) {
      try {
        await env.reset({ seed: 0, options: { taskId } });
      } catch (error) {
        if (!TurnGymError.isInstance(error)) throw error;
        throw new InvalidOptionsError(subject, [`${field}: task ${taskId}: ${error.message}`]);
      }
    }
  }
}

/**
 * Refuses fewer evaluation episodes than `evalTasks` lists: episode i plays task i (in turn), so the tasks past
 * `evalEpisodes` were never played, and `eval/*` reported a rate over the first few as if over them all (41 tasks
 * with the default 32 episodes left 9 out). More episodes than tasks replay them in turn, as documented.
 */
export function checkEvaluationTasks(
  subject: string,
  evalTasks: readonly number[] | undefined,
  evalEpisodes: number,
): void {
  if (evalTasks === undefined || evalEpisodes === 0 || evalEpisodes >= evalTasks.length) return;
  throw new InvalidOptionsError(subject, [
    `evalEpisodes: ${evalEpisodes} episodes would evaluate only the first ${evalEpisodes} of the ${evalTasks.length} ` +
      `evalTasks; set evalEpisodes to ${evalTasks.length} (or 0: no evaluation)`,
  ]);
}

/** The training loop. Resumes bit-exact from a run found in `runDir`. */
export async function trainAlphaZero(
  input: Partial<AlphaZeroArgs>,
  hooks: AlphaZeroHooks = {},
): Promise<AlphaZeroResult> {
  const args = validateAlphaZeroArgs(input);
  checkEvaluationTasks('alphazero arguments', args.evalTasks, args.evalEpisodes);

  // TRY NOT TO MODIFY: seeding, envs, network, run directory
  // The network is small (~20k parameters): tfjs's cpu backend (the default) is fast enough and exact across processes.
  await useBackend(args.backend);
  const registry = hooks.registry ?? installedEnvRegistry();
  const testEnvOptions = args.testEnvOptions ?? testSplitOptions(registry, args.envId, args.envOptions);
  const makeEnv = async (options: Record<string, unknown>): Promise<TranscriptRecorder> =>
    new TranscriptRecorder(
      await registry.make(args.envId, { options, ...(hooks.dependencies ? { dependencies: hooks.dependencies } : {}) }),
    );
  const env = await makeEnv(args.envOptions);
  // Whatever ends the run (the end, an error, a refused resume) closes the envs and lets go of the run directory,
  // and an error disposes the network: a long-lived process would otherwise keep them and the run's lock.
  let testEnv: TranscriptRecorder | undefined;
  let run: RunDirectory | undefined;
  let built: PolicyValueNet | undefined;
  try {
    testEnv = await makeEnv(testEnvOptions);
    const space = env.spec.actionSpace;
    if (space.type !== 'discrete') {
      throw new AlphaZeroError(
        'ALPHAZERO_ENV',
        `${args.envId} has a ${space.type} action space; AlphaZero searches a discrete one.`,
      );
    }
    await checkTaskIds('alphazero arguments', {
      trainTasks: [env, args.trainTasks],
      evalTasks: [testEnv, args.evalTasks],
    });
    const encoder = new DialogueEncoder(space.n, env.spec.maxTurns ?? 10, args.textFeatures);
    const net = new PolicyValueNet(
      { inputs: encoder.size, actions: space.n, hidden: args.hiddenSize, features: encoder.settings },
      args.seed,
      args.learningRate,
    );
    built = net;
    const replay = new ReplayBuffer(args.replayCapacity);
    const stores = { network: net, replay };
    run = await RunDirectory.openOrCreate(
      args.runDir,
      { algorithm: 'alphazero', envId: args.envId, seed: args.seed, args: { ...args } as Record<string, unknown> },
      { ignoreArgs: RESUMABLE_ALPHAZERO_ARGS, defaults: ALPHAZERO_ARG_DEFAULTS },
    );
    let rng = new SeededRng(args.seed);
    let globalStep = 0;
    let start = 0;
    const resumed = await loadStoresCheckpoint<LoopState>(run, stores);
    if (resumed) {
      start = resumed.iteration + 1;
      rng = SeededRng.fromState(resumed.extra.rng);
      globalStep = resumed.extra.globalStep;
    }
    const searchOptions = (seed: number, test: boolean): AlphaZeroSearchOptions => ({
      simulations: test ? (args.evalSimulations ?? args.simulations) : args.simulations,
      cBase: args.cBase,
      cInit: args.cInit,
      dirichletAlpha: args.dirichletAlpha,
      dirichletWeight: test ? 0 : args.dirichletWeight,
      temperature: test ? 0 : args.selfPlayTemperature,
      seed,
    });
    let policySuccessRate = Number.NaN;
    let mctsSuccessRate = Number.NaN;
    let finished = start;

    for (let iteration = start; iteration < args.iterations; iteration++) {
      // Stopped before this iteration began (Ctrl-C while the run loaded): none is in flight to finish.
      if (hooks.signal?.aborted) break;
      const started = performance.now();

      // ALGO LOGIC: self-play — PUCT with Dirichlet noise at the root, moves sampled ∝ visits.
      const search = new AlphaZeroSearch(net, encoder, searchOptions(mixSeed(args.seed, iteration), false));
      const episodes: SelfPlayEpisode[] = [];
      let errored = 0;
      let lastVoid: unknown;
      // Every move played, void episodes' included: they were played (and paid for, with LLM roles).
      const played = { moves: 0 };
      for (let e = 0; e < args.episodesPerIteration; e++) {
        const seed = rng.int(0, 2 ** 31 - 1);
        const task = args.trainTasks ? rng.pick(args.trainTasks) : undefined;
        let episode: SelfPlayEpisode;
        try {
          episode = await selfPlay(env, search, seed, task === undefined ? undefined : { taskId: task }, played);
        } catch (error) {
          // A void episode (a role failed, in the played move or in a fork of the search) has no outcome to learn
          // from: none of its states enters the buffer.
          if (!isVoidEpisode(error)) throw error;
          errored += 1;
          lastVoid = error;
          continue;
        }
        for (const sample of episode.samples) replay.add(sample);
        episodes.push(episode);
      }
      if (episodes.length === 0) throw allVoid('self-play', iteration, errored, lastVoid);
      const moves = played.moves;
      const finishedMoves = episodes.reduce((sum, episode) => sum + episode.turns, 0);
      globalStep += moves;
      const selfPlaySeconds = (performance.now() - started) / 1000;

      // ALGO LOGIC: training on the replay buffer — L = MSE(v, z) + CE(π_MCTS, π_θ) − c_H·H(π_θ)
      // (or, under mcts-dpo, MSE(v, z) + DPO(chosen ≻ rejected) + λ·CE(π_MCTS, π_θ) − c_H·H(π_θ)).
      const trainStarted = performance.now();
      const stats: UpdateStats[] = [];
      const pairs = args.objective === 'mcts-dpo' ? replay.pairs() : [];
      for (let u = 0; u < args.updatesPerIteration && replay.size > 0; u++) {
        if (args.objective === 'alphazero') {
          stats.push(net.train(batchOf(replay.sample(args.batchSize, rng)), args.entropyCoefficient));
        } else if (pairs.length > 0) {
          const batch = Array.from(
            { length: args.batchSize },
            () => pairs[rng.int(0, pairs.length - 1)] as ReplaySample,
          );
          stats.push(
            net.trainPreferences(
              {
                ...batchOf(batch),
                chosen: batch.map((sample) => sample.chosen),
                rejected: batch.map((sample) => sample.rejected),
                referenceChosenLogp: batch.map((sample) => sample.referenceChosenLogp),
                referenceRejectedLogp: batch.map((sample) => sample.referenceRejectedLogp),
              },
              args.dpoBeta,
              args.entropyCoefficient,
              args.dpoAnchor,
            ),
          );
        }
      }
      const trainSeconds = (performance.now() - trainStarted) / 1000;

      // TRY NOT TO MODIFY: evaluation, logging, checkpoint
      const row: Record<string, number> = {
        'charts/episodic_return': mean(episodes.map((episode) => episode.totalReward)),
        'charts/success_rate': mean(episodes.map((episode) => (episode.success ? 1 : 0))),
        'charts/episode_turns': mean(episodes.map((episode) => episode.turns)),
        'charts/errored_episodes': errored,
        'charts/SPS': moves / Math.max(selfPlaySeconds, 1e-9),
        'search/root_value': mean(episodes.flatMap((episode) => episode.rootValues)),
        // The cost of one search (a move): env steps through forks and, with LLM roles, their tokens.
        'search/env_steps':
          episodes.reduce((sum, episode) => sum + episode.searchSteps, 0) / Math.max(finishedMoves, 1),
        'search/llm_tokens':
          episodes.reduce((sum, episode) => sum + episode.searchTokens, 0) / Math.max(finishedMoves, 1),
        'replay/size': replay.size,
        'replay/pairs': args.objective === 'mcts-dpo' ? pairs.length : replay.pairs().length,
        'time/self_play_s': selfPlaySeconds,
        'time/training_s': trainSeconds,
      };
      if (stats.length > 0) {
        row['losses/loss'] = mean(stats.map((each) => each.loss));
        row['losses/value_loss'] = mean(stats.map((each) => each.valueLoss));
        row['losses/policy_loss'] = mean(stats.map((each) => each.policyLoss));
        row['losses/entropy'] = mean(stats.map((each) => each.entropy));
        row['losses/update_steps'] = stats.length;
      }
      const last = iteration === args.iterations - 1;
      if (args.evalEpisodes > 0 && ((iteration + 1) % args.evalEvery === 0 || last)) {
        const policy = await evaluateAgent(
          testEnv,
          new PolicyHeadAgent(net, encoder),
          args.evalEpisodes,
          args.evalTasks,
        );
        const testSearch = new AlphaZeroSearch(net, encoder, searchOptions(args.seed, true));
        const mcts = await evaluateAgent(
          testEnv,
          new AlphaZeroMctsAgent(testEnv, testSearch),
          args.evalEpisodes,
          args.evalTasks,
        );
        policySuccessRate = policy.successRate;
        mctsSuccessRate = mcts.successRate;
        // Rates over the episodes that finished; none when every one was void.
        if (policy.errored < args.evalEpisodes) {
          row['eval/success_rate'] = policy.successRate;
          row['eval/episodic_return'] = policy.meanReturn;
        }
        if (mcts.errored < args.evalEpisodes) {
          row['eval/mcts_success_rate'] = mcts.successRate;
          row['eval/mcts_episodic_return'] = mcts.meanReturn;
        }
        row['eval/errored_episodes'] = policy.errored;
        row['eval/mcts_errored_episodes'] = mcts.errored;
      }
      await run.appendMetrics({ iteration, global_step: globalStep, ...row });
      await saveStoresCheckpoint(run, {
        iteration,
        stores,
        extra: { rng: [...rng.state()], globalStep } satisfies LoopState,
      });
      finished = iteration + 1;
      hooks.onIteration?.({ iteration, global_step: globalStep, ...row });
      if (!args.quiet) process.stderr.write(`alphazero ${progressLine(iteration, args.iterations, row)}\n`);
    }
    return { iterations: finished, globalStep, policySuccessRate, mctsSuccessRate, net, encoder, args };
  } catch (error) {
    built?.dispose();
    throw error;
  } finally {
    run?.close();
    await testEnv?.close();
    await env.close();
  }
}

function batchOf(samples: readonly ReplaySample[]) {
  return {
    features: samples.map((sample) => sample.features),
    legal: samples.map((sample) => sample.legal),
    policy: samples.map((sample) => sample.policy),
    returns: samples.map((sample) => sample.return),
  };
}

function progressLine(iteration: number, total: number, row: Record<string, number>): string {
  const shown = [
    'charts/episodic_return',
    'losses/value_loss',
    'losses/policy_loss',
    'eval/episodic_return',
    'eval/mcts_episodic_return',
  ]
    .filter((name) => row[name] !== undefined)
    .map((name) => `${name} ${(row[name] as number).toFixed(3)}`);
  return `${iteration + 1}/${total} ${shown.join(' ')}`;
}
