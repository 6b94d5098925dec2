import * as tf from '@tensorflow/tfjs';
import { defineOptions, InvalidOptionsError, mixSeed, SeededRng, type JSONSchemaType } from '@turngym/core';
import { tokenCrossEntropyLoss, Trainer, type LanguageModel, type LossFunction, type TokenRow } from '@turngym/lm';
import { sftBatches } from './internal/sft-batches';
import { lossMask, segmentSpans } from './loss-mask';
import { SftDataError } from './sft-errors';
import type { Trajectory } from './trajectory';

/** Behaviour cloning on trajectories: cross-entropy on the action tokens (and optionally the env's text). */
export interface SftOptions {
  /** Passes over the data. */
  epochs: number;
  /** Trajectories per optimiser step (the last batch of an epoch may be smaller). */
  batchSize: number;
  /** Adam's step size. */
  learningRate: number;
  /** Clip gradients to this global L2 norm; 0 = no clipping. */
  maxGradNorm: number;
  /** Seeds the order of the trajectories in each epoch. */
  seed: number;
  /** Train this LoRA adapter of the model (add it first with `model.addAdapter`). */
  adapter?: string;
  /** Train the base weights: full fine-tuning, e.g. of a tiny model trained from scratch. */
  base: boolean;
  /** Refuse trajectories longer than this many tokens (at most the model's context); omitted = the context. */
  maxTokens?: number;
  /**
   * Batch trajectories of similar length together (still in seeded random order): a batch is padded to its
   * longest row, so mixed lengths waste compute. Each run of `batchSize × 8` shuffled trajectories is
   * sorted by length and cut into batches, and the batches are shuffled (so an epoch may have a few more,
   * smaller batches).
   */
  groupByLength: boolean;
  /**
   * Loss weight of the tokens the policy did not write (prompt, observations), relative to its action
   * tokens' 1: language modelling of the env's text as an auxiliary loss. 0 (default) = behaviour cloning
   * alone. Why: where actions copy text from far back (a title from the question), the action tokens alone
   * teach copying slowly; observations often copy too (a page's title repeats the title just navigated to),
   * so they give copying more examples. On wiki it lowered the action-token loss faster, but did not by itself
   * make tiny-1m copy titles from far back (benchmarks/learning/NOTES.md). Below 1, so the action tokens stay
   * told apart by weight.
   */
  observationWeight: number;
}

export const sftOptionsSchema: JSONSchemaType<SftOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    epochs: { type: 'integer', minimum: 1, default: 1 },
    batchSize: { type: 'integer', minimum: 1, default: 8 },
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 1e-3 },
    maxGradNorm: { type: 'number', minimum: 0, default: 1 },
    seed: { type: 'integer', default: 0 },
    adapter: { type: 'string', minLength: 1, nullable: true },
    base: { type: 'boolean', default: false },
    maxTokens: { type: 'integer', minimum: 1, nullable: true },
    groupByLength: { type: 'boolean', default: false },
    observationWeight: { type: 'number', minimum: 0, exclusiveMaximum: 1, default: 0 },
  },
};

const validateOptions = defineOptions<SftOptions>('trainSft', sftOptionsSchema);

/** Progress after one optimiser step. */
export interface SftStep {
  /** 0-based epoch. */
  readonly epoch: number;
  /** Steps taken so far, this one included. */
  readonly step: number;
  /** This step's batch within its epoch (0-based) and the epoch's batch count. */
  readonly batch: number;
  readonly batches: number;
  /** Mean cross-entropy over the batch's action tokens (nats per token), whatever `observationWeight`. */
  readonly loss: number;
  /** Global gradient norm before clipping. */
  readonly gradNorm: number;
  readonly actionTokens: number;
  /** See `SftEpoch.accuracy`. */
  readonly accuracy: number;
}

/** One epoch's figures, measured on the fly during its steps (the weights change between batches). */
export interface SftEpoch {
  readonly epoch: number;
  /** Mean cross-entropy per action token over the epoch (nats). */
  readonly loss: number;
  /**
   * Share of action tokens the model gave probability above 1/2 when predicting them. Such a token is the
   * greedy choice, so this is a lower bound on greedy (temperature 0) token accuracy, read from the
   * training forward pass at no extra cost.
   */
  readonly accuracy: number;
  readonly actionTokens: number;
  readonly steps: number;
  readonly wallMs: number;
}

export interface SftResult {
  readonly epochs: SftEpoch[];
  readonly steps: number;
  /** Parameters the optimiser updated. */
  readonly trainedParameters: number;
}

/** `SftOptions` with the progress callbacks, which are not JSON and so not part of the schema. */
export type SftRequest = Partial<SftOptions> & {
  readonly onStep?: (step: SftStep) => void;
  /**
   * After each epoch, awaited before the next begins: a long run writes its metrics, saves a checkpoint
   * or evaluates the model here, so stopping it early loses at most the epoch in progress.
   */
  readonly onEpoch?: (epoch: SftEpoch) => void | Promise<void>;
};

const LOG_HALF = Math.log(0.5);

/**
 * Supervised fine-tuning (behaviour cloning) of `model` on trajectories — typically expert ones from
 * `collectExpertTrajectories`, which have the exact token layout of the rollouts the model will sample:
 * loss = −Σ mask·log π(token) / Σ mask with mask = `lossMask` (ALGORITHMS.md §0): only the tokens the policy
 * writes (its actions and their end of turn) are learnt; prompts and observations are context, unless
 * `observationWeight` gives them a weight of their own (the loss reported stays the action tokens' alone).
 * Trains either a LoRA adapter (`adapter`) or the base weights (`base`), with Adam and gradient clipping, in
 * seeded random order. Every trajectory is checked before the first step, so bad data fails at once, naming
 * the trajectory.
 */
export async function trainSft(
  model: LanguageModel,
  trajectories: readonly Trajectory[],
  request: SftRequest = {},
): Promise<SftResult> {
  const { onStep, onEpoch, ...rest } = request;
  const options = validateOptions(rest);
  if ((options.adapter === undefined) === !options.base) {
    throw new InvalidOptionsError('trainSft', [
      options.base
        ? 'set either adapter (train a LoRA adapter) or base (full fine-tuning), not both'
        : 'set adapter (the name of a LoRA adapter to train) or base: true (full fine-tuning)',
    ]);
  }
  const rows = sftRows(trajectories, model.config.maxPositions, options.maxTokens, options.observationWeight);

  const trainer = new Trainer(model, {
    learningRate: options.learningRate,
    maxGradNorm: options.maxGradNorm,
    base: options.base,
    ...(options.adapter !== undefined ? { adapter: options.adapter } : {}),
  });
  // The action tokens' summed cross-entropy and accuracy count are read from the same forward pass as the
  // loss; kept out of the loss's tidy scope. Action tokens are the ones weighted 1 (observationWeight < 1).
  let actionStats: tf.Tensor1D | undefined;
  const loss: LossFunction = (outputs, batch) => {
    actionStats = tf.keep(
      tf.tidy(() => {
        const action = tf.cast(tf.equal(outputs.weights, 1), 'float32');
        const confident = tf.sum(tf.mul(tf.cast(tf.greater(outputs.logprobs, LOG_HALF), 'float32'), action));
        const crossEntropy = tf.neg(tf.sum(tf.mul(outputs.logprobs, action)));
        return tf.stack([crossEntropy, confident]) as tf.Tensor1D;
      }),
    );
    return tokenCrossEntropyLoss(outputs, batch);
  };

  const epochs: SftEpoch[] = [];
  try {
    for (let epoch = 0; epoch < options.epochs; epoch++) {
      const started = performance.now();
      const epochBatches = sftBatches(
        rows,
        (row) => row.row.tokens.length,
        options.batchSize,
        options.groupByLength,
        new SeededRng(mixSeed(options.seed, epoch)),
      );
      const batches = epochBatches.length;
      let lossSum = 0;
      let correctSum = 0;
      let tokenSum = 0;
      for (let batch = 0; batch < batches; batch++) {
        const chunk = epochBatches[batch] as SftRow[];
        const result = await trainer.step(
          chunk.map((row) => row.row),
          loss,
        );
        const [crossEntropy = 0, correct = 0] = await actionStats!.data();
        actionStats!.dispose();
        actionStats = undefined;
        const actionTokens = chunk.reduce((sum, row) => sum + row.actionTokens, 0);
        lossSum += crossEntropy;
        correctSum += correct;
        tokenSum += actionTokens;
        onStep?.({
          epoch,
          step: trainer.stepCount,
          batch,
          batches,
          loss: crossEntropy / actionTokens,
          gradNorm: result.gradNorm,
          actionTokens,
          accuracy: correct / actionTokens,
        });
      }
      const summary: SftEpoch = {
        epoch,
        loss: lossSum / tokenSum,
        accuracy: correctSum / tokenSum,
        actionTokens: tokenSum,
        steps: epochBatches.length,
        wallMs: performance.now() - started,
      };
      epochs.push(summary);
      await onEpoch?.(summary);
    }
    return { epochs, steps: trainer.stepCount, trainedParameters: trainer.parameterCount };
  } finally {
    actionStats?.dispose();
    trainer.dispose();
  }
}

interface SftRow {
  readonly row: TokenRow;
  readonly actionTokens: number;
}

/** Each trajectory as a weighted token row, after checking it can be trained on. */
function sftRows(
  trajectories: readonly Trajectory[],
  context: number,
  maxTokens: number | undefined,
  observationWeight: number,
): SftRow[] {
  if (trajectories.length === 0) {
    throw new SftDataError('trainSft: no trajectories to train on (did the expert solve no episode?).');
  }
  const limit = Math.min(context, maxTokens ?? context);
  const limitName =
    limit === context ? `the model's context (maxPositions = ${context})` : `maxTokens = ${maxTokens as number}`;
  return trajectories.map((trajectory) => {
    const what = `trainSft: trajectory "${trajectory.episodeId}"`;
    let mask: Uint8Array;
    try {
      mask = lossMask(trajectory);
    } catch (error) {
      throw new SftDataError(`${what}: ${(error as Error).message}`);
    }
    if (mask.length !== trajectory.tokens.length) {
      throw new SftDataError(
        `${what}: its segments cover ${mask.length} tokens but it has ${trajectory.tokens.length}.`,
      );
    }
    const actionTokens = mask.reduce((sum, value) => sum + value, 0);
    if (actionTokens === 0) {
      throw new SftDataError(`${what} has no action tokens: nothing to learn from it.`);
    }
    if (trajectory.tokens.length > limit) {
      throw new SftDataError(
        `${what} has ${trajectory.tokens.length} tokens, more than ${limitName}. ` +
          'Drop it, shorten observations (maxObservationTokens), or leave out the instructions.',
      );
    }
    const weights = Array.from(mask, (bit) => (bit ? 1 : observationWeight));
    // A deliberately corrupted action is context to recover from, never text to imitate, at any weight.
    for (const span of segmentSpans(trajectory, 'disturbance')) weights.fill(0, span.start, span.end + 1);
    return { row: { tokens: trajectory.tokens, weights }, actionTokens };
  });
}
