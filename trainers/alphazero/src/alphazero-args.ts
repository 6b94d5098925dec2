import { defineOptions, type JSONSchemaType } from '@turngym/core';
import type { BackendName } from '@turngym/lm';
import { TEXT_FEATURES, type TextFeatures } from './dialogue-features';

/** AlphaZero's arguments (CleanRL's `Args`): one doc line per field; defaults are ALGORITHMS.md §5's reference. */
export interface AlphaZeroArgs {
  /** The env to train on, e.g. `turngym/seller-commander-v1` (a discrete action space with `fork()`). */
  envId: string;
  /** Options of the training env (default: the env's own, for the seller its train split). */
  envOptions: Record<string, unknown>;
  /** Options of the evaluation env (default: `envOptions` with `split: 'test'` where the env has splits). */
  testEnvOptions?: Record<string, unknown>;
  /** Where run.json, metrics.jsonl and the checkpoint go; a run found there is resumed. */
  runDir: string;
  seed: number;
  /** Self-play → train iterations. */
  iterations: number;
  /** Self-play episodes per iteration. */
  episodesPerIteration: number;
  /** Train task ids self-play draws from (reset option `taskId`); unset: the env picks from each seed. */
  trainTasks?: number[];
  /** PUCT simulations per move (reference: 10). */
  simulations: number;
  /** c_base of PUCT's schedule c(N) = ln((N + c_base + 1)/c_base) + c_init (reference: 19652). */
  cBase: number;
  /** c_init (reference: 1.25). */
  cInit: number;
  /** α of the root's Dirichlet noise (reference: 0.3). */
  dirichletAlpha: number;
  /** Weight of that noise in self-play, (1 − w)·P + w·Dir(α) (reference: 0.25). */
  dirichletWeight: number;
  /** τ of self-play moves: 1 samples ∝ visits (reference), 0 takes the most visited. */
  selfPlayTemperature: number;
  /** Width of the network's two hidden layers. */
  hiddenSize: number;
  learningRate: number;
  /** States per optimiser step. */
  batchSize: number;
  /** Optimiser steps per iteration. */
  updatesPerIteration: number;
  /** Searched states the replay buffer keeps (oldest dropped first). */
  replayCapacity: number;
  /** c_H of the loss's −c_H·H(π_θ) (reference: 1e-4). */
  entropyCoefficient: number;
  /** `alphazero`: CE(π_MCTS) on visit counts; `mcts-dpo`: DPO on preference pairs from the search statistics. */
  objective: 'alphazero' | 'mcts-dpo';
  /** β of the DPO loss (`mcts-dpo`). */
  dpoBeta: number;
  /**
   * Weight of CE(π_MCTS, π_θ) added to the DPO loss under `mcts-dpo` (the anchor of iterative RPO's NLL term):
   * DPO alone moves only the chosen and rejected logits and collapses the head (README, detail 12). 0: DPO alone.
   */
  dpoAnchor: number;
  /** Evaluate every this many iterations (and after the last). */
  evalEvery: number;
  /** Evaluation episodes (raw policy head and MCTS without noise). */
  evalEpisodes: number;
  /** Test task ids to evaluate on (reset option `taskId`); unset: seeds 100000 + i. */
  evalTasks?: number[];
  /** Simulations of the evaluation's MCTS (default: `simulations`). */
  evalSimulations?: number;
  /**
   * How the encoder reads words (`DialogueEncoder`): `ascii`, the measured default, reads only a–z words;
   * `unicode` reads words of any script and numbers too (NFKC, so a dialogue in another language or with prices
   * is not lost). A run reads with what it was trained with.
   */
  textFeatures: TextFeatures;
  /**
   * tfjs backend. The network is small (~20k parameters): `cpu`, the default, is fast enough and exact across
   * processes, so a resume is bit-exact; another backend may round differently.
   */
  backend: BackendName;
  /** No progress lines. */
  quiet: boolean;
}

const taskList = { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1, nullable: true } as const;

export const alphaZeroArgsSchema: JSONSchemaType<AlphaZeroArgs> = {
  type: 'object',
  additionalProperties: false,
  required: ['envId', 'runDir'],
  properties: {
    envId: { type: 'string', minLength: 1 },
    envOptions: { type: 'object', required: [], additionalProperties: true, default: {} },
    testEnvOptions: { type: 'object', required: [], additionalProperties: true, nullable: true },
    runDir: { type: 'string', minLength: 1 },
    seed: { type: 'integer', default: 1 },
    iterations: { type: 'integer', minimum: 1, default: 20 },
    episodesPerIteration: { type: 'integer', minimum: 1, default: 32 },
    trainTasks: taskList,
    simulations: { type: 'integer', minimum: 1, default: 10 },
    cBase: { type: 'number', exclusiveMinimum: 0, default: 19652 },
    cInit: { type: 'number', minimum: 0, default: 1.25 },
    dirichletAlpha: { type: 'number', exclusiveMinimum: 0, default: 0.3 },
    dirichletWeight: { type: 'number', minimum: 0, maximum: 1, default: 0.25 },
    selfPlayTemperature: { type: 'number', minimum: 0, default: 1 },
    hiddenSize: { type: 'integer', minimum: 1, default: 64 },
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 0.003 },
    batchSize: { type: 'integer', minimum: 1, default: 64 },
    updatesPerIteration: { type: 'integer', minimum: 0, default: 32 },
    replayCapacity: { type: 'integer', minimum: 1, default: 4096 },
    entropyCoefficient: { type: 'number', minimum: 0, default: 0.0001 },
    objective: { type: 'string', enum: ['alphazero', 'mcts-dpo'], default: 'alphazero' },
    dpoBeta: { type: 'number', exclusiveMinimum: 0, default: 0.1 },
    dpoAnchor: { type: 'number', minimum: 0, default: 1 },
    evalEvery: { type: 'integer', minimum: 1, default: 5 },
    evalEpisodes: { type: 'integer', minimum: 0, default: 32 },
    evalTasks: taskList,
    evalSimulations: { type: 'integer', minimum: 1, nullable: true },
    textFeatures: { type: 'string', enum: [...TEXT_FEATURES], default: 'ascii' },
    backend: { type: 'string', enum: ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'], default: 'cpu' },
    quiet: { type: 'boolean', default: false },
  },
};

export const validateAlphaZeroArgs = defineOptions<AlphaZeroArgs>('alphazero arguments', alphaZeroArgsSchema);

/**
 * Each argument's default, for a resume of a run recorded before the argument existed: its run.json lacks it, and
 * it ran as the default (`textFeatures: 'ascii'`, `backend: 'cpu'`).
 */
export const ALPHAZERO_ARG_DEFAULTS: Readonly<Record<string, unknown>> = Object.fromEntries(
  Object.entries(alphaZeroArgsSchema.properties as Record<string, Record<string, unknown>>)
    .filter(([, property]) => 'default' in property)
    .map(([key, property]) => [key, property.default]),
);

/** Arguments a resume may change (run longer, evaluate differently, quieter; a run directory moved or copied). */
export const RESUMABLE_ALPHAZERO_ARGS = [
  'runDir',
  'iterations',
  'evalEvery',
  'evalEpisodes',
  'evalTasks',
  'evalSimulations',
  'quiet',
];
