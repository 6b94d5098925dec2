import { defineOptions, type JSONSchemaType, type Validator } from '@turngym/core';
import type { BackendName } from '@turngym/lm';

/**
 * The arguments every trainer built on `runTrainer` shares (CleanRL's `Args`, less the algorithm's own):
 * env, model and LoRA, budget, rollouts, the PPO-clip update, evaluation and logging. An algorithm adds
 * its own fields and may change defaults (`defineTrainerArgs`).
 */
export interface TrainerArgs {
  /** The env to train on, e.g. `turngym/math-thought-v1`. */
  envId: string;
  /** Options of the training env (its train split). */
  envOptions: Record<string, unknown>;
  /** Options of the evaluation env; default: `envOptions` with `split: 'test'` where the env has splits. */
  testEnvOptions?: Record<string, unknown>;
  /** Base checkpoint directory (e.g. an SFT warm start), or a built-in config name (untrained). */
  checkpoint: string;
  /** tfjs backend: auto picks tensorflow, else webgpu on a hardware GPU, else wasm, else cpu. */
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
  /** Most tokens per action; a longer action is cut there. */
  maxActionTokens: number;
  /** Most tokens per episode (prompt, actions and observations); the episode is truncated there. */
  maxRolloutTokens: number;
  /** Most tokens per observation; longer observations are cut. */
  maxObservationTokens?: number;
  /**
   * Most episodes in one batched generation (rollouts and evaluation). wasm's heap grows with the batch and
   * never shrinks: 100 wiki episodes of ~450 tokens at 64 a batch peak at ~2 GiB of its 4 (before generation
   * freed each layer's intermediates, they aborted it).
   */
  maxBatch: number;
  /**
   * How rollouts share decoder passes (the rollout options' `schedule`): `turns`, or `continuous` (continuous
   * batching: a rollout's next action joins the batch as soon as its env answered).
   */
  rolloutSchedule: 'turns' | 'continuous';
  /** Show the env's instructions as the system prompt (a model warm-started by SFT may do without). */
  instructions: boolean;
  /** LoRA rank (the update is scaled by alpha / rank). */
  loraRank: number;
  /** LoRA alpha. */
  loraAlpha: number;
  /** Adam's step size. */
  learningRate: number;
  /** Passes over each batch. */
  updateEpochs: number;
  /** Sequences per gradient step. */
  minibatchSize: number;
  /**
   * Most padded tokens per forward pass (attention memory grows with B·T²; wasm's heap is bounded): a bigger
   * minibatch is run in several passes whose gradients are summed before its one step.
   */
  minibatchTokens: number;
  /** CleanRL's target_kl: stop an update once a minibatch's approx_kl exceeds it; omitted = never. */
  targetKl?: number;
  /** `token`: PPO-clip per token (GRPO); `sequence`: GSPO's sequence-level ratio. */
  ratio: 'token' | 'sequence';
  /** ε of the PPO clip. */
  clipEpsilon: number;
  /** c of dual-clip PPO (Tree-GRPO's reference uses 3); omitted = plain PPO-clip. */
  dualClip?: number;
  /** β_KL of the k3 KL to the reference (the base model, adapters off). */
  klCoefficient: number;
  /** Weight of the entropy bonus. */
  entropyCoefficient: number;
  /** Gradients are clipped to this global norm (0 = no clipping). */
  maxGradNorm: number;
  /** Evaluate (greedy, fixed test seeds) every this many iterations, and at the end. */
  evalEvery: number;
  /** Test seeds 0 … evalEpisodes − 1. */
  evalEpisodes: number;
  /** Write every rollout of every this many iterations to trajectories.jsonl (0 = never). */
  trajectoriesEvery: number;
  /** No progress bar. */
  quiet: boolean;
}

type Properties<T> = JSONSchemaType<T>['properties'];

export const trainerArgsSchema: JSONSchemaType<TrainerArgs> = {
  type: 'object',
  additionalProperties: false,
  required: ['envId', 'runDir'],
  properties: {
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', default: {}, required: [] },
    testEnvOptions: { type: 'object', nullable: true, required: [] },
    checkpoint: { type: 'string', minLength: 1, default: 'tiny-1m' },
    backend: { type: 'string', enum: ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'], default: 'auto' },
    seed: { type: 'integer', default: 1 },
    runDir: { type: 'string', minLength: 1 },
    iterations: { type: 'integer', minimum: 1, default: 50 },
    tokenBudget: { type: 'integer', minimum: 1, nullable: true },
    promptsPerIteration: { type: 'integer', minimum: 1, default: 8 },
    maxActionTokens: { type: 'integer', minimum: 1, default: 48 },
    maxRolloutTokens: { type: 'integer', minimum: 1, default: 256 },
    maxObservationTokens: { type: 'integer', minimum: 1, nullable: true },
    maxBatch: { type: 'integer', minimum: 1, default: 64 },
    rolloutSchedule: { type: 'string', enum: ['turns', 'continuous'], default: 'turns' },
    instructions: { type: 'boolean', default: false },
    loraRank: { type: 'integer', minimum: 1, default: 16 },
    loraAlpha: { type: 'number', exclusiveMinimum: 0, default: 32 },
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 2e-3 },
    updateEpochs: { type: 'integer', minimum: 1, default: 1 },
    minibatchSize: { type: 'integer', minimum: 1, default: 8 },
    minibatchTokens: { type: 'integer', minimum: 1, default: 2048 },
    targetKl: { type: 'number', exclusiveMinimum: 0, nullable: true },
    ratio: { type: 'string', enum: ['token', 'sequence'], default: 'token' },
    clipEpsilon: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.2 },
    dualClip: { type: 'number', exclusiveMinimum: 1, nullable: true },
    klCoefficient: { type: 'number', minimum: 0, default: 0.001 },
    entropyCoefficient: { type: 'number', minimum: 0, default: 0 },
    maxGradNorm: { type: 'number', minimum: 0, default: 1 },
    evalEvery: { type: 'integer', minimum: 1, default: 10 },
    evalEpisodes: { type: 'integer', minimum: 1, default: 64 },
    trajectoriesEvery: { type: 'integer', minimum: 0, default: 10 },
    quiet: { type: 'boolean', default: false },
  },
};

/**
 * Arguments that may change when a stopped run is resumed: extending it, watching it differently, or
 * moving or copying its directory leaves it the same run.
 */
export const RESUMABLE_ARG_CHANGES: readonly (keyof TrainerArgs)[] = [
  'runDir',
  'iterations',
  'tokenBudget',
  'quiet',
  'evalEvery',
  'trajectoriesEvery',
];

/** A trainer's whole arguments: the shared ones with the algorithm's own on top. */
export interface TrainerArgsDefinition<Args extends TrainerArgs> {
  readonly schema: JSONSchemaType<Args>;
  /** Fills defaults and rejects a bad field by name (`InvalidOptionsError`). */
  readonly validate: Validator<Args>;
  /** Every field's default, for runs recorded before a field existed. */
  readonly defaults: Readonly<Record<string, unknown>>;
}

/**
 * Merges an algorithm's own argument schema onto `trainerArgsSchema`; `defaults` changes the default of
 * shared fields (Tree-GRPO: an entropy bonus and dual clip). `subject` names the trainer in errors.
 */
export function defineTrainerArgs<Own>(
  subject: string,
  own: Properties<Own>,
  defaults: Partial<TrainerArgs> = {},
): TrainerArgsDefinition<TrainerArgs & Own> {
  const shared = Object.fromEntries(
    Object.entries(trainerArgsSchema.properties as Record<string, Record<string, unknown>>).map(([key, schema]) =>
      key in defaults ? [key, { ...schema, default: defaults[key as keyof TrainerArgs] }] : [key, schema],
    ),
  );
  const properties = { ...shared, ...(own as Record<string, Record<string, unknown>>) };
  // The merged object is checked by ajv at compile time; TypeScript cannot follow the spread of two schemas.
  const schema = { ...trainerArgsSchema, properties } as unknown as JSONSchemaType<TrainerArgs & Own>;
  const validateWithNulls = defineOptions<TrainerArgs & Own>(subject, schema);
  // An optional field's schema admits null (ajv's JSONSchemaType asks it), and `--set tokenBudget=null` is how a
  // resumed run drops its budget: null means "not set". Kept as null, it was a set value to the loop
  // (`0 >= null` is true: the run stopped at once, trained nothing and exited 0).
  const validate = Object.assign(
    (input: unknown): TrainerArgs & Own =>
      Object.fromEntries(
        Object.entries(validateWithNulls(input) as Record<string, unknown>).filter(([, value]) => value !== null),
      ) as TrainerArgs & Own,
    { schema: validateWithNulls.schema },
  );
  return {
    schema,
    validate,
    defaults: Object.fromEntries(
      Object.entries(properties)
        .filter(([, property]) => 'default' in property)
        .map(([key, property]) => [key, property.default]),
    ),
  };
}
