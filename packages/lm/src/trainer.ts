import * as tf from '@tensorflow/tfjs';
import { defineOptions, type JSONSchemaType } from '@turngym/core';
import type { ForwardOptions, ForwardOutputs, LanguageModel } from './language-model';
import type { TokenRow } from './token-batch';

export interface TrainerOptions {
  /** Adam's step size. */
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  /** Clip gradients to this global L2 norm; 0 = no clipping. */
  maxGradNorm: number;
  /** Train this LoRA adapter (forward passes use it); null = no adapter. */
  adapter?: string | null;
  /** Train the value head (forward passes return values). */
  valueHead: boolean;
  /** Train the base weights too (full fine-tuning). */
  base: boolean;
}

export const trainerOptionsSchema: JSONSchemaType<TrainerOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    learningRate: { type: 'number', exclusiveMinimum: 0, default: 1e-3 },
    beta1: { type: 'number', minimum: 0, exclusiveMaximum: 1, default: 0.9 },
    beta2: { type: 'number', minimum: 0, exclusiveMaximum: 1, default: 0.999 },
    epsilon: { type: 'number', exclusiveMinimum: 0, default: 1e-8 },
    maxGradNorm: { type: 'number', minimum: 0, default: 1 },
    adapter: { type: 'string', nullable: true },
    valueHead: { type: 'boolean', default: false },
    base: { type: 'boolean', default: false },
  },
};

const validateOptions = defineOptions<TrainerOptions>('Trainer', trainerOptionsSchema);

/** A loss over the forward outputs of a batch of token records; must return a scalar tensor. */
export type LossFunction = (outputs: ForwardOutputs, rows: readonly TokenRow[]) => tf.Scalar;

export interface TrainStepResult {
  readonly loss: number;
  /** Global gradient norm before clipping. */
  readonly gradNorm: number;
}

/** −Σ weight·logπ / Σ weight: supervised fine-tuning on the tokens the rows weight (their loss mask). */
export const tokenCrossEntropyLoss: LossFunction = (outputs) =>
  tf.tidy(
    () =>
      tf.div(
        tf.neg(tf.sum(tf.mul(outputs.logprobs, outputs.weights))),
        tf.maximum(tf.sum(outputs.weights), 1e-9),
      ) as tf.Scalar,
  );

/**
 * One optimiser over the variables a policy trains: a LoRA adapter, the value head, and/or the base
 * weights. `step` runs forward (with that adapter), the caller's loss, backward, clipping and Adam.
 */
export class Trainer {
  readonly options: TrainerOptions;
  private readonly optimizer: tf.AdamOptimizer;
  private readonly variables: tf.Variable[];
  private steps = 0;

  constructor(
    readonly model: LanguageModel,
    options: Partial<TrainerOptions> = {},
  ) {
    this.options = validateOptions(options);
    this.variables = model.trainableVariables({
      ...(this.options.adapter ? { adapter: this.options.adapter } : {}),
      valueHead: this.options.valueHead,
      base: this.options.base,
    });
    if (this.variables.length === 0) {
      throw new RangeError('Trainer: nothing to train — name an adapter, or set valueHead or base.');
    }
    this.optimizer = tf.train.adam(
      this.options.learningRate,
      this.options.beta1,
      this.options.beta2,
      this.options.epsilon,
    );
  }

  get stepCount(): number {
    return this.steps;
  }

  /** Trainable parameters (for bytes-per-parameter accounting). */
  get parameterCount(): number {
    return this.variables.reduce((sum, variable) => sum + variable.size, 0);
  }

  async step(
    rows: readonly TokenRow[],
    loss: LossFunction,
    forward: Omit<ForwardOptions, 'adapter'> = {},
  ): Promise<TrainStepResult> {
    const forwardOptions: ForwardOptions = {
      ...forward,
      adapter: this.options.adapter ?? null,
      ...(this.options.valueHead ? { values: true } : {}),
    };
    const { value, grads } = tf.variableGrads(
      () => loss(this.model.forward(rows, forwardOptions), rows),
      this.variables,
    );
    const norm = tf.tidy(() => tf.sqrt(tf.addN(Object.values(grads).map((grad) => tf.sum(tf.square(grad))))));
    const [lossValue, gradNorm] = await Promise.all([value.data(), norm.data()]);
    const max = this.options.maxGradNorm;
    const scale = max > 0 && (gradNorm[0] as number) > max ? max / (gradNorm[0] as number) : 1;
    tf.tidy(() => {
      const applied =
        scale === 1
          ? grads
          : Object.fromEntries(Object.entries(grads).map(([name, grad]) => [name, tf.mul(grad, scale)]));
      this.optimizer.applyGradients(applied as unknown as Parameters<tf.AdamOptimizer['applyGradients']>[0]);
    });
    tf.dispose([value, norm, ...Object.values(grads)]);
    this.steps += 1;
    return { loss: lossValue[0] as number, gradNorm: gradNorm[0] as number };
  }

  /** Frees the optimiser's moment estimates (the model's variables stay). */
  dispose(): void {
    this.optimizer.dispose();
  }
}
