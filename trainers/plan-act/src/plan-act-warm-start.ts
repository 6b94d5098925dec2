/**
 * The warm start of both roles (ALGORITHMS.md §4; issue 26 item 4): the env's expert plays train seeds, each
 * solved episode is decomposed into the Plan/Act episode that would have solved it (`expert-decomposition`),
 * and the base weights are behaviour-cloned on those (loss on the planner's and the actor's tokens alike).
 * With `singleAgent`, the expert's own episodes are cloned too, so one checkpoint is the same start for
 * Plan/Act and for single-agent GRPO: the prompt's last words (the planner's cue, or none) say which.
 */
import { defineOptions, mixSeed, type JSONSchemaType, type Registry } from '@turngym/core';
import { loadModel, saveCheckpoint, type BackendName, type LanguageModel } from '@turngym/lm';
import {
  ChatTurnFormat,
  collectExpertTrajectories,
  installedEnvRegistry,
  trainSft,
  type Trajectory,
} from '@turngym/rl';
import {
  answerReport,
  mathCalcSteps,
  planActExpertTrajectory,
  singleTask,
  wikiHops,
  type Decomposer,
} from './expert-decomposition';

export interface PlanActWarmStartArgs {
  /** The env the expert plays, e.g. `turngym/wiki-qa-compact-v1`. */
  envId: string;
  /** Its options (the train split). */
  envOptions: Record<string, unknown>;
  /** The checkpoint to fine-tune (a directory or a built-in config name). */
  checkpoint: string;
  /** Where the fine-tuned checkpoint is written. */
  out: string;
  backend: BackendName;
  /** Seeds the expert's task draws and the SFT order. */
  seed: number;
  /** Expert episodes (train seeds drawn from `seed`). */
  episodes: number;
  epochs: number;
  batchSize: number;
  learningRate: number;
  /** `wiki-hops`: one sub-question per page of the expert's path; `math-calc`: one sub-task per calculator
   *  step of the math expert; `single-task`: one sub-task for any env; `answer-report`: one sub-task for any
   *  env whose actor reports the expert's answer action, which the planner's `FINAL` repeats. */
  decomposer: 'wiki-hops' | 'math-calc' | 'single-task' | 'answer-report';
  /** The rollouts' actor turns per sub-task (an action each, then the report). */
  actorTurnsPerTask: number;
  /** Clone the expert's own (single-agent) episodes too: one warm start for Plan/Act and for GRPO. */
  singleAgent: boolean;
  /** The env's instructions as the system prompt, as the rollouts to come. */
  instructions: boolean;
  /** Cut longer observations, as the rollouts to come. */
  maxObservationTokens?: number;
}

const schema: JSONSchemaType<PlanActWarmStartArgs> = {
  type: 'object',
  additionalProperties: false,
  required: ['envId', 'out'],
  properties: {
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', default: {}, required: [] },
    checkpoint: { type: 'string', minLength: 1, default: 'tiny-1m' },
    out: { type: 'string', minLength: 1 },
    backend: { type: 'string', enum: ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'], default: 'auto' },
    seed: { type: 'integer', default: 1 },
    episodes: { type: 'integer', minimum: 1, default: 256 },
    epochs: { type: 'integer', minimum: 1, default: 1 },
    batchSize: { type: 'integer', minimum: 1, default: 4 },
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 2e-3 },
    decomposer: {
      type: 'string',
      enum: ['wiki-hops', 'math-calc', 'single-task', 'answer-report'],
      default: 'single-task',
    },
    actorTurnsPerTask: { type: 'integer', minimum: 2, default: 3 },
    singleAgent: { type: 'boolean', default: true },
    instructions: { type: 'boolean', default: false },
    maxObservationTokens: { type: 'integer', minimum: 1, nullable: true },
  },
};

export const validatePlanActWarmStartArgs = defineOptions<PlanActWarmStartArgs>('plan-act warm start', schema);

export interface PlanActWarmStartResult {
  /** Plan/Act episodes cloned (and as many single-agent ones with `singleAgent`). */
  readonly episodes: number;
  /** Expert episodes that did not solve their task (not cloned). */
  readonly dropped: number;
  readonly finalLoss: number;
  readonly actionAccuracy: number;
  /** The fine-tuned model (also saved at `out`); the caller disposes it. */
  readonly model: LanguageModel;
}

/** Decomposes the expert's solved train episodes and fine-tunes the base on them; saves to `out`. */
export async function trainPlanActWarmStart(
  input: Partial<PlanActWarmStartArgs>,
  hooks: {
    registry?: Registry;
    /** After each epoch's checkpoint is saved, awaited before the next epoch (e.g. to score the model so far). */
    onEpoch?: (epoch: number, loss: number, model: LanguageModel) => void | Promise<void>;
  } = {},
): Promise<PlanActWarmStartResult> {
  const args = validatePlanActWarmStartArgs(input);
  const registry = hooks.registry ?? installedEnvRegistry();
  const model = await loadModel(args.checkpoint, { backend: args.backend, seed: args.seed, trainable: true });
  const format = new ChatTurnFormat(model.tokenizer);
  const expert = await collectExpertTrajectories({
    envId: args.envId,
    envOptions: args.envOptions,
    seeds: Array.from({ length: args.episodes }, (_, i) => mixSeed(args.seed, i) >>> 1),
    format,
    instructions: args.instructions,
    ...(args.maxObservationTokens ? { maxObservationTokens: args.maxObservationTokens } : {}),
    registry,
  });
  const decomposers: Record<PlanActWarmStartArgs['decomposer'], Decomposer> = {
    'wiki-hops': wikiHops,
    'math-calc': mathCalcSteps,
    'single-task': singleTask(args.actorTurnsPerTask - 1),
    'answer-report': answerReport(args.actorTurnsPerTask - 1),
  };
  const decompose = decomposers[args.decomposer];
  const planAct = expert.trajectories.map((trajectory) =>
    planActExpertTrajectory(trajectory, format, decompose, {
      actorTurnsPerTask: args.actorTurnsPerTask,
      instructions: args.instructions,
    }),
  );
  const data: Trajectory[] = args.singleAgent ? [...planAct, ...expert.trajectories] : planAct;
  const result = await trainSft(model, data, {
    epochs: args.epochs,
    batchSize: args.batchSize,
    learningRate: args.learningRate,
    seed: args.seed,
    base: true,
    groupByLength: true,
    onEpoch: async (epoch) => {
      await saveCheckpoint(model, args.out);
      await hooks.onEpoch?.(epoch.epoch, epoch.loss, model);
    },
  });
  const last = result.epochs.at(-1)!;
  return {
    episodes: planAct.length,
    dropped: expert.dropped.length,
    finalLoss: last.loss,
    actionAccuracy: last.accuracy,
    model,
  };
}
