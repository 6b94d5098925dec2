/**
 * SFT warm start, in one file, top to bottom, in CleanRL's shape: behaviour cloning of an env's scripted
 * expert (its privileged baseline) into a checkpoint, so a tiny model trained from scratch learns the env's
 * action format before RL. The sequences are built by the same ChatTurnFormat the rollouts use, so the
 * model is trained on exactly the token layout it will later sample in.
 */
import { rm } from 'node:fs/promises';
import { defineOptions, mixSeed, type JSONSchemaType, type Registry } from '@turngym/core';
import { loadModel, saveCheckpoint, type BackendName, type LanguageModel } from '@turngym/lm';
import {
  ChatTurnFormat,
  installedEnvRegistry,
  testSplitOptions,
  collectExpertTrajectories,
  evaluatePolicy,
  RunDirectory,
  TrainingProgress,
  trainSft,
  type RolloutOptions,
} from '@turngym/rl';
import type { Action, Env } from '@turngym/spec';

export interface SftArgs {
  /** The env whose expert to clone, e.g. `turngym/math-thought-v1`. */
  envId: string;
  /** Options of the env the expert plays (its train split). */
  envOptions: Record<string, unknown>;
  /** Options of the evaluation env; default: `envOptions` with `split: 'test'` where the env has splits. */
  testEnvOptions?: Record<string, unknown>;
  /** A built-in config to train from scratch (`tiny-1m`, …) or a checkpoint directory to fine-tune. */
  checkpoint: string;
  /** tfjs backend: auto picks tensorflow, else webgpu on a hardware GPU, else wasm, else cpu. */
  backend: BackendName;
  /** Seeds the fresh weights, the expert's episode seeds and the data order. */
  seed: number;
  /** Where the trained checkpoint is written (config.json, model.safetensors, tokenizer.json). */
  out: string;
  /** Where metrics go (default: `<out>/run`). */
  runDir?: string;
  /** Expert episodes to clone, on seeds drawn from the run seed (the env's train split keeps them off the test tasks). */
  episodes: number;
  /** Passes over the kept episodes. */
  epochs: number;
  /** Episodes per optimiser step. */
  batchSize: number;
  /** Adam's step size. */
  learningRate: number;
  /**
   * Loss weight of the env's text (prompt, observations) next to the actions' 1 (see `@turngym/rl`'s
   * `SftOptions.observationWeight`): more copying examples where actions copy titles from far back. 0 = none.
   */
  observationWeight: number;
  /**
   * DART: the chance per expert action that the recorded episode first shows a one-character slip of it and
   * the env's answer, then the expert's action (see `@turngym/rl`'s `ExpertTrajectoryOptions.disturbance`).
   * The policy learns to recover from the mistakes it will make; slips are never trained on. 0 = none.
   */
  disturbance: number;
  /** Show the env's instructions as the system prompt (must match what RL will use). */
  instructions: boolean;
  /** Observations longer than this are cut, by the rollouts' rule (must match what RL will use). */
  maxObservationTokens?: number;
  /** Most test episodes in one batched generation: wasm's heap grows with the batch (see GRPO's maxBatch). */
  maxBatch: number;
  /** Greedy evaluation episodes on test seeds after training (0 = none). */
  evalEpisodes: number;
  /** Also evaluate after every this many epochs (0 = only at the end): a long run shows when copying sets in. */
  evalEvery: number;
  /** Evaluation only: most tokens in one action. */
  maxActionTokens: number;
  /** Evaluation only: most generated tokens in one episode. */
  maxRolloutTokens: number;
  /** No progress bar. */
  quiet: boolean;
}

export const sftArgsSchema: JSONSchemaType<SftArgs> = {
  type: 'object',
  additionalProperties: false,
  required: ['envId', 'out'],
  properties: {
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', default: {}, required: [] },
    testEnvOptions: { type: 'object', nullable: true, required: [] },
    checkpoint: { type: 'string', minLength: 1, default: 'tiny-1m' },
    backend: { type: 'string', enum: ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'], default: 'auto' },
    seed: { type: 'integer', default: 1 },
    out: { type: 'string', minLength: 1 },
    runDir: { type: 'string', minLength: 1, nullable: true },
    episodes: { type: 'integer', minimum: 1, default: 512 },
    epochs: { type: 'integer', minimum: 1, default: 4 },
    batchSize: { type: 'integer', minimum: 1, default: 16 },
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 3e-3 },
    observationWeight: { type: 'number', minimum: 0, exclusiveMaximum: 1, default: 0 },
    disturbance: { type: 'number', minimum: 0, maximum: 1, default: 0 },
    instructions: { type: 'boolean', default: false },
    maxObservationTokens: { type: 'integer', minimum: 1, nullable: true },
    maxBatch: { type: 'integer', minimum: 1, default: 64 },
    evalEpisodes: { type: 'integer', minimum: 0, default: 64 },
    evalEvery: { type: 'integer', minimum: 0, default: 0 },
    maxActionTokens: { type: 'integer', minimum: 1, default: 48 },
    maxRolloutTokens: { type: 'integer', minimum: 1, default: 256 },
    quiet: { type: 'boolean', default: false },
  },
};

export const validateSftArgs = defineOptions<SftArgs>('sft', sftArgsSchema);

export interface SftHooks {
  readonly registry?: Registry;
}

export interface SftWarmStartResult {
  readonly model: LanguageModel;
  readonly episodes: number;
  readonly dropped: number;
  readonly finalLoss: number;
  readonly actionAccuracy: number;
  /** Greedy success rate on the test seeds (NaN without evaluation). */
  readonly testSuccessRate: number;
}

export async function trainSftWarmStart(input: Partial<SftArgs>, hooks: SftHooks = {}): Promise<SftWarmStartResult> {
  const args = validateSftArgs(input);

  // TRY NOT TO MODIFY: envs, model, run directory
  const registry = hooks.registry ?? installedEnvRegistry();
  const testEnvOptions = args.testEnvOptions ?? testSplitOptions(registry, args.envId, args.envOptions);
  // A bad env option must fail before the run directory records the run (the corrected command would be refused
  // as another run) and before any epoch trains: the test options are otherwise first used after the last epoch.
  for (const options of args.evalEpisodes > 0 ? [args.envOptions, testEnvOptions] : [args.envOptions]) {
    await (await registry.make(args.envId, { options })).close();
  }
  const model = await loadModel(args.checkpoint, { backend: args.backend, seed: args.seed, trainable: true });
  let run: RunDirectory | undefined;
  try {
    run = await RunDirectory.create(args.runDir ?? `${args.out}/run`, {
      algorithm: 'sft',
      envId: args.envId,
      seed: args.seed,
      args: { ...args },
    });
    return await cloneExpert(args, registry, testEnvOptions, model, run);
  } catch (error) {
    // A run that recorded no epoch is no run: without its run.json the corrected command can use the directory
    // (a warm start is not resumed, so a run directory that holds a run is refused).
    if (run && run.lastIteration === null) {
      for (const file of [run.infoPath, run.metricsPath, run.trajectoriesPath]) await rm(file, { force: true });
    }
    model.dispose();
    throw error;
  } finally {
    run?.close();
  }
}

async function cloneExpert(
  args: SftArgs,
  registry: Registry,
  testEnvOptions: Record<string, unknown>,
  model: LanguageModel,
  run: RunDirectory,
): Promise<SftWarmStartResult> {
  const format = new ChatTurnFormat(model.tokenizer);

  // ALGO LOGIC: the expert's episodes on train seeds, as token records (loss on its action tokens only).
  const seeds = Array.from({ length: args.episodes }, (_, i) => mixSeed(args.seed, i) >>> 1);
  const expert = await collectExpertTrajectories({
    envId: args.envId,
    envOptions: args.envOptions,
    seeds,
    format,
    instructions: args.instructions,
    ...(args.maxObservationTokens ? { maxObservationTokens: args.maxObservationTokens } : {}),
    disturbance: args.disturbance,
    // A slip can open a wrong page, so a disturbed episode can outgrow the context: it is dropped, not refused.
    ...(args.disturbance > 0 ? { maxTokens: model.config.maxPositions } : {}),
    registry,
  });

  // TRY NOT TO MODIFY: greedy evaluation on the test seeds
  const evaluate = async (): Promise<{ successRate: number; meanReturn: number }> => {
    const rollout: Partial<RolloutOptions> = {
      maxActionTokens: args.maxActionTokens,
      maxRolloutTokens: args.maxRolloutTokens,
      instructions: args.instructions,
      ...(args.maxObservationTokens ? { maxObservationTokens: args.maxObservationTokens } : {}),
      maxBatch: args.maxBatch,
    };
    return evaluatePolicy({
      policy: { model, format },
      makeEnv: async () => (await registry.make(args.envId, { options: testEnvOptions })) as Env<string, Action>,
      envId: args.envId,
      seeds: Array.from({ length: args.evalEpisodes }, (_, i) => i),
      options: rollout,
    });
  };
  let testSuccessRate = Number.NaN;

  // ALGO LOGIC: behaviour cloning, −Σ mask·log π(token) / Σ mask, full fine-tuning of the base weights.
  const stepsPerEpoch = Math.ceil(expert.trajectories.length / args.batchSize);
  const progress = new TrainingProgress({
    // Length grouping may cut an epoch into a few more batches than this; the bar then ends a little late.
    total: args.epochs * stepsPerEpoch,
    start: 0,
    quiet: args.quiet,
    label: 'sft',
    logEvery: Math.max(1, Math.round(stepsPerEpoch / 4)),
    show: { loss: 'losses/sft_loss' },
  });
  let result: Awaited<ReturnType<typeof trainSft>>;
  try {
    result = await trainSft(model, expert.trajectories, {
      epochs: args.epochs,
      batchSize: args.batchSize,
      learningRate: args.learningRate,
      observationWeight: args.observationWeight,
      seed: args.seed,
      base: true,
      // Batches of similar length: less padding, about a quarter less compute on math, more on wiki.
      groupByLength: true,
      onStep: (step) => progress.update(Math.min(step.step, progress.options.total), { 'losses/sft_loss': step.loss }),
      // Each epoch's weights as it ends, then its figures (with its evaluation, every evalEvery epochs and after
      // the last): a long run stopped early, or one whose evaluation crashes, keeps its last finished epoch.
      onEpoch: async (epoch) => {
        await saveCheckpoint(model, args.out);
        const done = epoch.epoch + 1;
        const evaluation =
          args.evalEpisodes > 0 && (done === args.epochs || (args.evalEvery > 0 && done % args.evalEvery === 0))
            ? await evaluate()
            : undefined;
        if (evaluation) testSuccessRate = evaluation.successRate;
        await run.appendMetrics({
          iteration: epoch.epoch,
          global_step: done * expert.trajectories.length,
          'losses/sft_loss': epoch.loss,
          'charts/action_token_accuracy': epoch.accuracy,
          'time/training_s': epoch.wallMs / 1000,
          'charts/training_tokens_per_second': epoch.actionTokens / Math.max(epoch.wallMs / 1000, 1e-9),
          ...(evaluation
            ? { 'eval/success_rate': evaluation.successRate, 'eval/episodic_return': evaluation.meanReturn }
            : {}),
        });
      },
    });
  } finally {
    progress.stop();
  }

  // The checkpoint RL starts from is the last epoch's, saved above.
  const last = result.epochs.at(-1);
  return {
    model,
    episodes: expert.trajectories.length,
    dropped: expert.dropped.length,
    finalLoss: last?.loss ?? Number.NaN,
    actionAccuracy: last?.accuracy ?? Number.NaN,
    testSuccessRate,
  };
}
