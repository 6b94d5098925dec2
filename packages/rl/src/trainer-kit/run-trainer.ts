import { mean, mixSeed, SeededRng } from '@turngym/core';
import { loadModel, Trainer, type LanguageModel } from '@turngym/lm';
import type { Action, Env } from '@turngym/spec';
import { ChatTurnFormat } from '../chat-turn-format';
import { installedEnvRegistry, testSplitOptions } from '../env-splits';
import { evaluatePolicy } from '../evaluate-policy';
import type { PpoUpdateOptions, PpoUpdateStats } from '../ppo-update';
import type { RolloutOptions } from '../rollout-options';
import { RunDirectory } from '../run-directory';
import type { Trajectory } from '../trajectory';
import { loadTrainingCheckpoint, saveTrainingCheckpoint, type JsonValue } from '../training-checkpoint';
import { TrainingProgress } from '../training-progress';
import type {
  CollectedRollouts,
  ExtraAdapter,
  IterationContext,
  TrainerAlgorithm,
  TrainerHooks,
  TrainResult,
} from './trainer-algorithm';
import { assertFiniteRewards, EnvRolloutsFailedError } from './trainer-errors';
import { RESUMABLE_ARG_CHANGES, type TrainerArgs } from './trainer-args';

/** The LoRA adapter the runner trains; the reference policy is the same model with it off. */
export const POLICY_ADAPTER = 'policy';

/** What a checkpoint's `extra` holds: the runner's counters and RNG, and the algorithm's own state. */
interface RunnerState {
  generatedTokens: number;
  rng: number[];
  algorithm?: JsonValue;
}

/** The shared update's options from the shared arguments; the shuffling seed changes every iteration. */
export function ppoUpdateOptions(args: TrainerArgs, iteration: number): Partial<PpoUpdateOptions> {
  return {
    epochs: args.updateEpochs,
    minibatchSize: args.minibatchSize,
    minibatchTokens: args.minibatchTokens,
    ...(args.targetKl !== undefined ? { targetKl: args.targetKl } : {}),
    ratio: args.ratio,
    clipEpsilon: args.clipEpsilon,
    ...(args.dualClip !== undefined ? { dualClip: args.dualClip } : {}),
    klCoefficient: args.klCoefficient,
    entropyCoefficient: args.entropyCoefficient,
    seed: mixSeed(args.seed, iteration),
  };
}

/** Stops on a NaN or infinite reward before anything is computed from it (`NonFiniteRewardError`). */
function assertFiniteRunRewards(envId: string, trajectories: readonly Trajectory[], where: string): void {
  // The runner names the env it was asked for (a record's own envId could be anything a custom collector wrote).
  assertFiniteRewards(
    trajectories.map((trajectory) => ({ ...trajectory, envId })),
    where,
    { steps: true },
  );
}

/**
 * Stops when every rollout failed in the env (`EnvRolloutsFailedError`, with the first error): such rollouts are
 * never trained on or scored, so the run would otherwise go on logging a return of 0.
 */
function assertSomeRolloutRan(envId: string, trajectories: readonly Trajectory[], where: string): void {
  if (trajectories.length > 0 && trajectories.every((trajectory) => trajectory.stopReason === 'error'))
    throw new EnvRolloutsFailedError(envId, where, trajectories.length, trajectories[0]!.error);
}

/** The success rate of the last evaluation metrics.jsonl records (cut back to the checkpoint), or NaN if none. */
async function lastTestSuccessRate(run: RunDirectory): Promise<number> {
  const rows = await run.readMetrics();
  for (let index = rows.length - 1; index >= 0; index--) {
    const rate = rows[index]!['eval/success_rate'];
    if (typeof rate === 'number') return rate;
  }
  return Number.NaN;
}

/** CleanRL's names for an iteration's rollouts, budget and times. */
function rolloutMetrics(
  trajectories: readonly Trajectory[],
  spent: number,
  generatedTokens: number,
  seconds: { rollout: number; training: number },
): Record<string, number> {
  return {
    'charts/episodic_return': mean(trajectories.map((t) => t.totalReward)),
    'charts/success_rate': mean(trajectories.map((t) => (t.success ? 1 : 0))),
    'charts/episode_turns': mean(trajectories.map((t) => t.turns)),
    'charts/SPS': trajectories.reduce((sum, t) => sum + t.turns, 0) / seconds.rollout,
    'charts/rollout_tokens_per_second': spent / seconds.rollout,
    'charts/env_errors': trajectories.filter((t) => t.stopReason === 'error').length,
    'budget/generated_tokens': generatedTokens,
    'budget/rollouts': trajectories.length,
    'budget/rollouts_per_1k_tokens': (1000 * trajectories.length) / Math.max(spent, 1),
    'time/rollout_s': seconds.rollout,
    'time/training_s': seconds.training,
  };
}

/** CleanRL's `losses/…` names for the update's statistics. */
function lossMetrics(stats: PpoUpdateStats, trainingSeconds: number): Record<string, number> {
  return {
    'losses/policy_loss': stats.policyLoss,
    'losses/kl_ref': stats.klRef,
    'losses/approx_kl': stats.approxKl,
    'losses/clipfrac': stats.clipFraction,
    'losses/entropy': stats.entropy,
    'losses/grad_norm': stats.gradNorm,
    'losses/update_steps': stats.steps,
    'charts/training_tokens_per_second': stats.trainedTokens / Math.max(trainingSeconds, 1e-9),
  };
}

/**
 * The algorithm's extra adapters on the policy's model, each with its own Adam. Their LoRA seeds follow
 * from the run's seed and the adapter's place in name order, so a resumed run builds the same ones.
 */
function extraTrainers(
  model: LanguageModel,
  adapters: Readonly<Record<string, ExtraAdapter>>,
  args: TrainerArgs,
): Record<string, Trainer> {
  const trainers: Record<string, Trainer> = {};
  Object.keys(adapters)
    .sort()
    .forEach((name, index) => {
      const adapter = adapters[name]!;
      model.addAdapter(name, {
        rank: adapter.rank ?? args.loraRank,
        alpha: adapter.alpha ?? args.loraAlpha,
        seed: mixSeed(args.seed, index + 1),
      });
      trainers[name] = new Trainer(model, {
        adapter: name,
        learningRate: adapter.learningRate ?? args.learningRate,
        maxGradNorm: adapter.maxGradNorm ?? args.maxGradNorm,
      });
    });
  return trainers;
}

/**
 * The one training loop of every RL trainer (CleanRL's `ppo.py` less its ALGO LOGIC): validates the
 * arguments, loads the model with a fresh LoRA adapter, opens (or resumes) the run directory, then per
 * iteration draws the prompts' seeds, asks the algorithm to collect, score and update, evaluates on the
 * schedule, appends the metrics row and the trajectories, and writes an atomic checkpoint (adapters, their
 * Adam states, the algorithm's stores, RNG, counters) from which a resume continues bit-exact. Stops at `iterations`, at the token budget, or
 * after the iteration in flight when `hooks.signal` aborts.
 */
export async function runTrainer<Args extends TrainerArgs, Rollouts extends CollectedRollouts>(
  algorithm: TrainerAlgorithm<Args, Rollouts>,
  input: Partial<Args>,
  hooks: TrainerHooks = {},
): Promise<TrainResult> {
  const args = algorithm.args.validate(input);

  // TRY NOT TO MODIFY: seeding, envs, model, run directory
  let rng = new SeededRng(args.seed);
  const registry = hooks.registry ?? installedEnvRegistry();
  const testEnvOptions = args.testEnvOptions ?? testSplitOptions(registry, args.envId, args.envOptions);
  const makeEnv = (options: Record<string, unknown>) => async (): Promise<Env<string, Action>> =>
    (await registry.make(args.envId, { options })) as Env<string, Action>;
  // An unknown env id or a bad option must fail before the run directory records the run (a corrected
  // command would then be refused as another run) and before any iteration trains.
  for (const options of [args.envOptions, testEnvOptions]) await (await makeEnv(options)()).close();
  await algorithm.check?.(args);
  const model = await loadModel(args.checkpoint, { backend: args.backend, seed: args.seed });
  // Whatever ends the run (an error, a refused resume) disposes what it built and lets go of the run directory:
  // a long-lived process (a notebook, a sweep) would otherwise keep a failed run's model and hold its lock.
  let trainer: Trainer | undefined;
  let trainers: Record<string, Trainer> = {};
  let run: RunDirectory | undefined;
  try {
    model.addAdapter(POLICY_ADAPTER, { rank: args.loraRank, alpha: args.loraAlpha, seed: args.seed });
    if (algorithm.valueHead) model.addValueHead(mixSeed(args.seed, 0));
    trainer = new Trainer(model, {
      adapter: POLICY_ADAPTER,
      learningRate: args.learningRate,
      maxGradNorm: args.maxGradNorm,
      ...(algorithm.valueHead ? { valueHead: true } : {}),
    });
    const roles = algorithm.roles?.(args);
    const policy = { model, format: new ChatTurnFormat(model.tokenizer), ...(roles ? { roles } : {}) };
    const rollout: Partial<RolloutOptions> = {
      maxActionTokens: args.maxActionTokens,
      maxRolloutTokens: args.maxRolloutTokens,
      ...(args.maxObservationTokens ? { maxObservationTokens: args.maxObservationTokens } : {}),
      maxBatch: args.maxBatch,
      schedule: args.rolloutSchedule,
      instructions: args.instructions,
      adapter: POLICY_ADAPTER,
      // π_old is the sampling logprob, which is log π only at temperature 1 without top-p.
      temperature: 1,
      topP: 1,
    };
    trainers = extraTrainers(model, algorithm.adapters ?? {}, args);
    const testSeeds = Array.from({ length: args.evalEpisodes }, (_, i) => i);
    run = await RunDirectory.openOrCreate(
      args.runDir,
      { algorithm: algorithm.name, envId: args.envId, seed: args.seed, args: { ...args } as Record<string, unknown> },
      { ignoreArgs: RESUMABLE_ARG_CHANGES, defaults: algorithm.args.defaults },
    );
    const stores = algorithm.stores?.(args) ?? {};
    const resumed = await loadTrainingCheckpoint<RunnerState>(run, model, trainer, { trainers, stores });
    let start = 0;
    let generatedTokens = 0;
    if (resumed) {
      start = resumed.iteration + 1;
      generatedTokens = resumed.extra.generatedTokens;
      rng = SeededRng.fromState(resumed.extra.rng);
      if (algorithm.state && resumed.extra.algorithm !== undefined) algorithm.state.load(resumed.extra.algorithm);
    }
    const progress = new TrainingProgress({ total: args.iterations, start, quiet: args.quiet, label: algorithm.name });
    // A resumed run reports the last evaluation its metrics hold: rerunning a finished run's command evaluates
    // nothing, and its result (and the CLI's summary) said null where metrics.jsonl had the number.
    let testSuccessRate = resumed ? await lastTestSuccessRate(run) : Number.NaN;
    let finished = start;

    // The bar's redraw timer would keep the process alive: stop it however the loop ends.
    try {
      for (let iteration = start; iteration < args.iterations; iteration++) {
        if (args.tokenBudget !== undefined && generatedTokens >= args.tokenBudget) break;
        // Stopped before this iteration began (Ctrl-C while the run loaded): none is in flight to finish.
        if (hooks.signal?.aborted) break;
        const context: IterationContext<Args> = { args, iteration, trainers, stores };
        const started = performance.now();

        // ALGO LOGIC (the algorithm's): collect → advantages → update.
        const seeds = Array.from({ length: args.promptsPerIteration }, () => rng.int(0, 2 ** 31 - 1));
        const rollouts = await algorithm.collect(
          {
            policy,
            makeEnv: makeEnv(args.envOptions),
            envId: args.envId,
            seeds,
            options: { ...rollout, seed: mixSeed(args.seed, iteration) },
            idPrefix: `it${iteration}`,
          },
          context,
        );
        const { trajectories } = rollouts;
        assertFiniteRunRewards(args.envId, trajectories, `training rollouts of iteration ${iteration}`);
        assertSomeRolloutRan(args.envId, trajectories, `iteration ${iteration}`);
        const rolloutSeconds = (performance.now() - started) / 1000;
        const spent = trajectories.reduce((sum, trajectory) => sum + trajectory.generatedTokens, 0);
        generatedTokens += spent;
        const samples = algorithm.advantages(rollouts, context);
        const updateStarted = performance.now();
        // No sample: every group tied, no signal this iteration.
        const stats = samples.length > 0 ? await algorithm.update(trainer, samples, context) : null;
        const trainingSeconds = (performance.now() - updateStarted) / 1000;

        // TRY NOT TO MODIFY: evaluation, logging, checkpoint
        const metrics = rolloutMetrics(trajectories, spent, generatedTokens, {
          rollout: rolloutSeconds,
          training: trainingSeconds,
        });
        if (stats) Object.assign(metrics, lossMetrics(stats, trainingSeconds));
        if (algorithm.metrics) Object.assign(metrics, algorithm.metrics(rollouts, context));
        const last =
          iteration === args.iterations - 1 || (args.tokenBudget !== undefined && generatedTokens >= args.tokenBudget);
        if ((iteration + 1) % args.evalEvery === 0 || last) {
          const evaluation = await evaluatePolicy({
            policy,
            makeEnv: makeEnv(testEnvOptions),
            envId: args.envId,
            seeds: testSeeds,
            options: { ...rollout, seed: args.seed },
          });
          assertFiniteRunRewards(args.envId, evaluation.trajectories, `evaluation after iteration ${iteration}`);
          assertSomeRolloutRan(args.envId, evaluation.trajectories, `the evaluation after iteration ${iteration}`);
          testSuccessRate = evaluation.successRate;
          metrics['eval/success_rate'] = evaluation.successRate;
          metrics['eval/episodic_return'] = evaluation.meanReturn;
        }
        await run.appendMetrics({ iteration, global_step: generatedTokens, ...metrics });
        if (args.trajectoriesEvery > 0 && iteration % args.trajectoriesEvery === 0)
          await run.appendTrajectories(trajectories);
        const extra: RunnerState = { generatedTokens, rng: [...rng.state()] };
        if (algorithm.state) extra.algorithm = algorithm.state.save();
        await saveTrainingCheckpoint(run, {
          iteration,
          model,
          adapter: POLICY_ADAPTER,
          trainer,
          extra: extra as unknown as JsonValue,
          trainers,
          stores,
        });
        finished = iteration + 1;
        // `update` takes the iteration that finished (0-based), as the metrics row names it.
        progress.update(iteration, metrics);
      }
    } finally {
      progress.stop();
    }
    trainer.dispose();
    for (const extra of Object.values(trainers)) extra.dispose();
    return { iterations: finished, generatedTokens, testSuccessRate, model };
  } catch (error) {
    trainer?.dispose();
    for (const extra of Object.values(trainers)) extra.dispose();
    model.dispose();
    throw error;
  } finally {
    run?.close();
  }
}
