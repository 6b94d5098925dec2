import type { Registry } from '@turngym/core';
import type { LanguageModel, Trainer } from '@turngym/lm';
import type { EnvFactory } from '../chain-rollouts';
import type { PpoUpdateStats, UpdateSample } from '../ppo-update';
import type { CheckpointStore } from '../checkpoint-store';
import type { RolloutPolicy } from '../rollout-engine';
import type { RolloutOptions } from '../rollout-options';
import type { RolloutRoles } from '../rollout-roles';
import type { Trajectory } from '../trajectory';
import type { JsonValue } from '../training-checkpoint';
import type { TrainerArgs, TrainerArgsDefinition } from './trainer-args';

/** What a caller may give a trainer besides its arguments. */
export interface TrainerHooks {
  /** Where envs come from (default: the installed env packages). */
  readonly registry?: Registry;
  /** Stops after the current iteration (its checkpoint is written). */
  readonly signal?: AbortSignal;
}

/** What a finished (or stopped) training run returns. */
export interface TrainResult {
  /** Iterations done, counting those of earlier processes of a resumed run. */
  readonly iterations: number;
  readonly generatedTokens: number;
  /**
   * The last evaluation's success rate on the test seeds: this process's, else (a resumed run that evaluated nothing,
   * such as a finished run's command run again) the last one its metrics record; NaN when the run has none.
   */
  readonly testSuccessRate: number;
  /** The trained policy (base + adapter `policy`); the caller disposes it. */
  readonly model: LanguageModel;
}

/**
 * A request for this iteration's rollouts, the same for every collector (`collectChains`, `collectTrees`):
 * spread it into one and add the algorithm's shape.
 */
export interface RolloutRequest {
  readonly policy: RolloutPolicy;
  readonly makeEnv: EnvFactory;
  readonly envId: string;
  /** One env seed per prompt, drawn by the runner's seeded RNG (its state is checkpointed). */
  readonly seeds: readonly number[];
  /** Sampling at temperature 1 without top-p (π_old is the sampling logprob), seeded per iteration. */
  readonly options: Partial<RolloutOptions>;
  /** `it<iteration>`: prefix of every rollout id. */
  readonly idPrefix: string;
}

/** Where an iteration stands, for the algorithm's steps. */
export interface IterationContext<Args extends TrainerArgs> {
  readonly args: Args;
  readonly iteration: number;
  /** One optimiser per adapter the algorithm declared (`TrainerAlgorithm.adapters`), by adapter name. */
  readonly trainers: Readonly<Record<string, Trainer>>;
  /** The stores the algorithm built for this run (`TrainerAlgorithm.stores`), by name. */
  readonly stores: Readonly<Record<string, CheckpointStore>>;
}

/** An adapter besides the policy's, on the same base model; unset fields take the policy's arguments. */
export interface ExtraAdapter {
  readonly rank?: number;
  readonly alpha?: number;
  readonly learningRate?: number;
  readonly maxGradNorm?: number;
}

/** An iteration's rollouts: `trajectories` is what is logged, counted against the budget and saved. */
export interface CollectedRollouts {
  readonly trajectories: readonly Trajectory[];
}

/**
 * One algorithm on the shared runner: its arguments and the three steps of an iteration. Everything else
 * (set-up, resume, evaluation, metrics, progress, budget, checkpoints) is `runTrainer`'s.
 */
export interface TrainerAlgorithm<Args extends TrainerArgs, Rollouts extends CollectedRollouts> {
  /** Names the run in run.json and the progress bar, e.g. `grpo`. */
  readonly name: string;
  readonly args: TrainerArgsDefinition<Args>;
  /**
   * Checks what the schema cannot (a file an argument names, arguments that contradict each other) and throws
   * an error naming the field. It runs before the run directory is written, so the corrected command starts
   * the run instead of being refused as another run.
   */
  check?(args: Args): void | Promise<void>;
  /** Rollouts for one iteration. */
  collect(request: RolloutRequest, context: IterationContext<Args>): Promise<Rollouts>;
  /** The sequences to train on, each with its advantage; none = no signal this iteration (no update). */
  advantages(rollouts: Rollouts, context: IterationContext<Args>): UpdateSample[];
  /** The policy update, given at least one sample (usually the shared `ppoUpdate`). */
  update(trainer: Trainer, samples: readonly UpdateSample[], context: IterationContext<Args>): Promise<PpoUpdateStats>;
  /** Metrics of the algorithm's own, appended to the iteration's row. */
  metrics?(rollouts: Rollouts, context: IterationContext<Args>): Record<string, number>;
  /**
   * Adapters besides the policy's, by name (a critic, a planner): each is added to the one base model in
   * memory with its own Adam, handed to the steps in `context.trainers`, and saved and resumed with the
   * policy's in each checkpoint.
   */
  readonly adapters?: Readonly<Record<string, ExtraAdapter>>;
  /**
   * The policy's optimiser also trains a value head on the model (Self-AC's critic, ALGORITHMS.md §2): it is
   * added before training, its forward passes return values, and it is saved and resumed with the adapter.
   */
  readonly valueHead?: boolean;
  /**
   * Builds the run's stores (a search tree's statistics, a database file under `args.runDir`), once per
   * run after the run directory exists; they are restored on resume (reset when the run starts over) and
   * snapshotted into every checkpoint, atomically with the adapters.
   */
  stores?(args: Args): Record<string, CheckpointStore>;
  /**
   * Roles taking turns in each rollout (Plan/Act, ALGORITHMS.md §4), set on the policy for the training
   * rollouts and the evaluation alike; omitted = one policy (the `policy` adapter).
   */
  roles?(args: Args): RolloutRoles;
  /** State of the algorithm's own carried across iterations: saved in each checkpoint, restored on resume. */
  readonly state?: {
    save(): JsonValue;
    load(saved: JsonValue): void;
  };
}
