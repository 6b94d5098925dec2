/**
 * Tree-GRPO for multi-turn agents, in one file, top to bottom, in CleanRL's shape (ALGORITHMS.md §1):
 * Args → setup (seeding, envs, model + LoRA, resume) → main loop (tree rollouts at agent-step nodes,
 * intra + inter tree advantages broadcast over each leaf's tokens, dual-clip PPO with KL to the
 * adapters-off reference and an entropy bonus, evaluation, logging, checkpoint).
 */
import { defineOptions, mean, mixSeed, SeededRng, type JSONSchemaType, type Registry } from '@turngym/core';
import { loadModel, Trainer, type BackendName, type LanguageModel } from '@turngym/lm';
import {
  ChatTurnFormat,
  installedEnvRegistry,
  testSplitOptions,
  collectTrees,
  evaluatePolicy,
  treeAdvantages,
  loadTrainingCheckpoint,
  ppoUpdate,
  RunDirectory,
  saveTrainingCheckpoint,
  TrainingProgress,
  type RolloutOptions,
  type Trajectory,
  type UpdateSample,
} from '@turngym/rl';
import type { Action, Env } from '@turngym/spec';

export interface TreeGrpoArgs {
  /** The env to train on, e.g. `turngym/math-thought-v1`. */
  envId: string;
  /** Options of the training env (its train split). */
  envOptions: Record<string, unknown>;
  /** Options of the evaluation env; default: `envOptions` with `split: 'test'` where the env has splits. */
  testEnvOptions?: Record<string, unknown>;
  /** Base checkpoint directory (e.g. an SFT warm start), or a built-in config name (untrained). */
  checkpoint: string;
  /** tfjs backend: auto picks tensorflow, else wasm, else cpu. */
  backend: BackendName;
  /** Seeds everything: task draws, sampling, LoRA init, shuffling. */
  seed: number;
  /** Where metrics, trajectories and checkpoints go; a run found there is resumed. */
  runDir: string;
  /** Policy iterations (rollouts + update). */
  iterations: number;
  /** Stop early once this many tokens were generated in training rollouts (equal-budget comparisons). */
  tokenBudget?: number;
  /** Prompts (tasks) per iteration. */
  promptsPerIteration: number;
  /** M: trees per prompt (each starts as an independent chain). */
  trees: number;
  /** N: nodes drawn per tree per round, each expanded to the end of its episode. */
  branches: number;
  /** L: rounds of draw-and-expand. Rollouts per prompt: M·(1 + N·L). */
  rounds: number;
  /** Most tokens per action, per episode; longer observations are cut. */
  maxActionTokens: number;
  maxRolloutTokens: number;
  maxObservationTokens?: number;
  /**
   * Most episodes in one batched generation (rollouts and evaluation). wasm's heap grows with the batch and
   * never shrinks: 100 wiki episodes of ~450 tokens at 64 a batch peak at ~2 GiB of its 4 (before generation
   * freed each layer's intermediates, they aborted it).
   */
  maxBatch: number;
  /** Show the env's instructions as the system prompt (a model warm-started by SFT may do without). */
  instructions: boolean;
  /** LoRA rank and alpha (the update is scaled by alpha / rank). */
  loraRank: number;
  loraAlpha: number;
  /** Adam's step size. */
  learningRate: number;
  /** Passes over each batch, and sequences per gradient step. */
  updateEpochs: number;
  minibatchSize: number;
  /**
   * Most padded tokens per forward pass (attention memory grows with B·T²; wasm's heap is bounded): a bigger
   * minibatch is run in several passes whose gradients are summed before its one step.
   */
  minibatchTokens: number;
  /** CleanRL's target_kl: stop an update once a minibatch's approx_kl exceeds it; omitted = never. */
  targetKl?: number;
  clipEpsilon: number;
  /** c of dual-clip PPO (the reference uses 3). */
  dualClip: number;
  /** β_KL of the k3 KL to the reference (the base model, adapters off). */
  klCoefficient: number;
  entropyCoefficient: number;
  maxGradNorm: number;
  /** Evaluate (greedy, fixed test seeds) every this many iterations, and at the end. */
  evalEvery: number;
  evalEpisodes: number;
  /** Write every rollout of every this many iterations to trajectories.jsonl (0 = never). */
  trajectoriesEvery: number;
  /** No progress bar. */
  quiet: boolean;
}

export const treeGrpoArgsSchema: JSONSchemaType<TreeGrpoArgs> = {
  type: 'object',
  additionalProperties: false,
  required: ['envId', 'runDir'],
  properties: {
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', default: {}, required: [] },
    testEnvOptions: { type: 'object', nullable: true, required: [] },
    checkpoint: { type: 'string', minLength: 1, default: 'tiny-1m' },
    backend: { type: 'string', enum: ['auto', 'tensorflow', 'wasm', 'cpu'], default: 'auto' },
    seed: { type: 'integer', default: 1 },
    runDir: { type: 'string', minLength: 1 },
    iterations: { type: 'integer', minimum: 1, default: 50 },
    tokenBudget: { type: 'integer', minimum: 1, nullable: true },
    promptsPerIteration: { type: 'integer', minimum: 1, default: 8 },
    trees: { type: 'integer', minimum: 1, default: 2 },
    branches: { type: 'integer', minimum: 0, default: 2 },
    rounds: { type: 'integer', minimum: 0, default: 1 },
    maxActionTokens: { type: 'integer', minimum: 1, default: 48 },
    maxRolloutTokens: { type: 'integer', minimum: 1, default: 256 },
    maxObservationTokens: { type: 'integer', minimum: 1, nullable: true },
    maxBatch: { type: 'integer', minimum: 1, default: 64 },
    instructions: { type: 'boolean', default: false },
    loraRank: { type: 'integer', minimum: 1, default: 16 },
    loraAlpha: { type: 'number', exclusiveMinimum: 0, default: 32 },
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 2e-3 },
    updateEpochs: { type: 'integer', minimum: 1, default: 1 },
    minibatchSize: { type: 'integer', minimum: 1, default: 8 },
    minibatchTokens: { type: 'integer', minimum: 1, default: 2048 },
    targetKl: { type: 'number', exclusiveMinimum: 0, nullable: true },
    clipEpsilon: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.2 },
    dualClip: { type: 'number', exclusiveMinimum: 1, default: 3 },
    klCoefficient: { type: 'number', minimum: 0, default: 0.001 },
    entropyCoefficient: { type: 'number', minimum: 0, default: 0.001 },
    maxGradNorm: { type: 'number', minimum: 0, default: 1 },
    evalEvery: { type: 'integer', minimum: 1, default: 10 },
    evalEpisodes: { type: 'integer', minimum: 1, default: 64 },
    trajectoriesEvery: { type: 'integer', minimum: 0, default: 10 },
    quiet: { type: 'boolean', default: false },
  },
};

export const validateTreeGrpoArgs = defineOptions<TreeGrpoArgs>('tree-grpo', treeGrpoArgsSchema);

export interface TrainerHooks {
  /** Where envs come from (default: the installed env packages). */
  readonly registry?: Registry;
  /** Stops after the current iteration (its checkpoint is written). */
  readonly signal?: AbortSignal;
}

export interface TrainResult {
  readonly iterations: number;
  readonly generatedTokens: number;
  /** The last evaluation's success rate on the test seeds. */
  readonly testSuccessRate: number;
  readonly model: LanguageModel;
}

const ADAPTER = 'policy';

export async function trainTreeGrpo(input: Partial<TreeGrpoArgs>, hooks: TrainerHooks = {}): Promise<TrainResult> {
  const args = validateTreeGrpoArgs(input);

  // TRY NOT TO MODIFY: seeding, envs, model, run directory
  let rng = new SeededRng(args.seed);
  const registry = hooks.registry ?? installedEnvRegistry();
  const testEnvOptions = args.testEnvOptions ?? testSplitOptions(registry, args.envId, args.envOptions);
  const makeEnv = (options: Record<string, unknown>) => async (): Promise<Env<string, Action>> =>
    (await registry.make(args.envId, { options })) as Env<string, Action>;
  const model = await loadModel(args.checkpoint, { backend: args.backend, seed: args.seed });
  model.addAdapter(ADAPTER, { rank: args.loraRank, alpha: args.loraAlpha, seed: args.seed });
  const trainer = new Trainer(model, {
    adapter: ADAPTER,
    learningRate: args.learningRate,
    maxGradNorm: args.maxGradNorm,
  });
  const policy = { model, format: new ChatTurnFormat(model.tokenizer) };
  const rollout: Partial<RolloutOptions> = {
    maxActionTokens: args.maxActionTokens,
    maxRolloutTokens: args.maxRolloutTokens,
    ...(args.maxObservationTokens ? { maxObservationTokens: args.maxObservationTokens } : {}),
    maxBatch: args.maxBatch,
    instructions: args.instructions,
    adapter: ADAPTER,
    // π_old is the sampling logprob, which is log π only at temperature 1 without top-p.
    temperature: 1,
    topP: 1,
  };
  const testSeeds = Array.from({ length: args.evalEpisodes }, (_, i) => i);
  const run = await RunDirectory.openOrCreate(
    args.runDir,
    { algorithm: 'tree-grpo', envId: args.envId, seed: args.seed, args: { ...args } },
    // Extending or watching a run differently, or moving or copying its directory, is still the same run.
    { ignoreArgs: ['runDir', 'iterations', 'tokenBudget', 'quiet', 'evalEvery', 'trajectoriesEvery'] },
  );
  const resumed = await loadTrainingCheckpoint<{ generatedTokens: number; rng: number[] }>(run, model, trainer);
  let start = 0;
  let generatedTokens = 0;
  if (resumed) {
    start = resumed.iteration + 1;
    generatedTokens = resumed.extra.generatedTokens;
    rng = SeededRng.fromState(resumed.extra.rng);
  }
  const progress = new TrainingProgress({ total: args.iterations, start, quiet: args.quiet, label: 'tree-grpo' });
  let testSuccessRate = Number.NaN;
  let finished = start;

  // The bar's redraw timer would keep the process alive: stop it however the loop ends.
  try {
    for (let iteration = start; iteration < args.iterations; iteration++) {
      if (args.tokenBudget !== undefined && generatedTokens >= args.tokenBudget) break;
      const started = performance.now();

      // ALGO LOGIC: tree rollouts — per task M chains, then L rounds of N branches per tree from nodes drawn
      // uniformly (with replacement) from {root} ∪ non-leaf nodes; branches fork the env and the KV cache.
      const seeds = Array.from({ length: args.promptsPerIteration }, () => rng.int(0, 2 ** 31 - 1));
      const sampled = await collectTrees({
        policy,
        makeEnv: makeEnv(args.envOptions),
        envId: args.envId,
        seeds,
        shape: { trees: args.trees, branches: args.branches, rounds: args.rounds },
        options: { ...rollout, seed: mixSeed(args.seed, iteration) },
        idPrefix: `it${iteration}`,
      });
      const trajectories = sampled.trajectories;
      const rolloutSeconds = (performance.now() - started) / 1000;
      const spent = trajectories.reduce((sum, trajectory) => sum + trajectory.generatedTokens, 0);
      generatedTokens += spent;

      // ALGO LOGIC: A(i) = A_inter(i) + A_intra(i) (ALGORITHMS.md §1): z-scores over all leaves of the prompt
      // and over the leaves of the leaf's own tree. Each leaf trains as its own full sequence, so a shared
      // prefix is trained once per leaf through it, each copy with that leaf's advantage.
      const samples: UpdateSample[] = [];
      sampled.prompts.forEach((prompt, group) => {
        const leaves = sampled.leaves[group]!.filter((tree) => tree.length > 0);
        // All leaves tied: A = 0 everywhere, no signal; not trained on (its rollouts still count as spent).
        if (leaves.flat().length < 2 || leaves.flat().every((leaf) => leaf.reward === leaves[0]![0]!.reward)) return;
        treeAdvantages(prompt).forEach((tree, treeIndex) =>
          tree.advantage.forEach((advantage, leaf) =>
            samples.push({ trajectory: leaves[treeIndex]![leaf]!, advantage }),
          ),
        );
      });

      // ALGO LOGIC: PPO-clip (or GSPO) on the action tokens + β_KL·k3 KL to the adapters-off reference.
      const updateStarted = performance.now();
      const stats =
        samples.length > 0
          ? await ppoUpdate(trainer, samples, {
              epochs: args.updateEpochs,
              minibatchSize: args.minibatchSize,
              minibatchTokens: args.minibatchTokens,
              ...(args.targetKl !== undefined ? { targetKl: args.targetKl } : {}),
              ratio: 'token',
              clipEpsilon: args.clipEpsilon,
              dualClip: args.dualClip,
              klCoefficient: args.klCoefficient,
              entropyCoefficient: args.entropyCoefficient,
              seed: mixSeed(args.seed, iteration),
            })
          : null; // every group tied: no signal this iteration
      const trainingSeconds = (performance.now() - updateStarted) / 1000;

      // TRY NOT TO MODIFY: evaluation, logging, checkpoint
      const metrics: Record<string, number> = {
        'charts/episodic_return': mean(trajectories.map((t) => t.reward)),
        'charts/success_rate': mean(trajectories.map((t) => (t.success === true ? 1 : 0))),
        'charts/episode_turns': mean(trajectories.map((t) => t.turns.length)),
        'charts/SPS': trajectories.reduce((sum, t) => sum + t.turns.length, 0) / rolloutSeconds,
        'charts/rollout_tokens_per_second': spent / rolloutSeconds,
        'charts/env_errors': trajectories.filter((t) => t.stopReason === 'error').length,
        'budget/generated_tokens': generatedTokens,
        'budget/rollouts': trajectories.length,
        'budget/rollouts_per_1k_tokens': (1000 * trajectories.length) / Math.max(spent, 1),
        'time/rollout_s': rolloutSeconds,
        'time/training_s': trainingSeconds,
      };
      if (stats) {
        Object.assign(metrics, {
          'losses/policy_loss': stats.policyLoss,
          'losses/kl_ref': stats.klRef,
          'losses/approx_kl': stats.approxKl,
          'losses/clipfrac': stats.clipFraction,
          'losses/entropy': stats.entropy,
          'losses/grad_norm': stats.gradNorm,
          'losses/update_steps': stats.steps,
          'charts/training_tokens_per_second': stats.trainedTokens / Math.max(trainingSeconds, 1e-9),
        });
      }
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
        testSuccessRate = evaluation.successRate;
        metrics['eval/success_rate'] = evaluation.successRate;
        metrics['eval/episodic_return'] = evaluation.meanReturn;
      }
      await run.appendMetrics({ iteration, global_step: generatedTokens, ...metrics });
      if (args.trajectoriesEvery > 0 && iteration % args.trajectoriesEvery === 0)
        await run.appendTrajectories(trajectories);
      await saveTrainingCheckpoint(run, {
        iteration,
        model,
        adapter: ADAPTER,
        trainer,
        extra: { generatedTokens, rng: [...rng.state()] },
      });
      finished = iteration + 1;
      progress.update(iteration + 1, metrics);
      if (hooks.signal?.aborted) break;
    }
  } finally {
    progress.stop();
  }
  trainer.dispose();
  return { iterations: finished, generatedTokens, testSuccessRate, model };
}

export type { Trajectory };
