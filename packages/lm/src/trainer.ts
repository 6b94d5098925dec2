import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { defineOptions, InvalidOptionsError, type JSONSchemaType } from '@turngym/core';
import type { ForwardOptions, ForwardOutputs, LanguageModel } from './language-model';
import { CheckpointError } from './lm-errors';
import type { NamedTensors } from './named-tensors';
import { readSafetensors, writeSafetensors } from './safetensors';
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

export const TRAINER_STATE_FORMAT = 'turngym.trainer-state/v1';

/** The JSON half of a trainer's state (the tensors are Adam's moments). */
export interface TrainerStateJson {
  readonly format: typeof TRAINER_STATE_FORMAT;
  /** Optimiser steps taken (Adam's t). */
  readonly steps: number;
  /** The options the trainer ran with; a resumed trainer must have the same ones. */
  readonly options: TrainerOptions;
  /** Shape of each trained variable, in `LanguageModel.trainableVariables` order. */
  readonly variableShapes: readonly (readonly number[])[];
}

/**
 * Everything a trainer holds beyond the model's weights: Adam's first and second moments (tensors
 * `adam.m.<i>` / `adam.v.<i>`, i indexing the trained variables), its β₁ᵗ/β₂ᵗ accumulators
 * (`adam.acc_beta1`, `adam.acc_beta2`), the step count and the options.
 */
export interface TrainerState {
  readonly tensors: NamedTensors;
  readonly json: TrainerStateJson;
}

/** Files `saveState` writes into its directory. */
export const TRAINER_STATE_FILES = { json: 'trainer_state.json', tensors: 'optimizer.safetensors' } as const;

/**
 * tfjs keeps β₁ᵗ and β₂ᵗ in private variables. `setWeights` rebuilds them as pow(β, t + 1), which can
 * differ in the last bit from the running product a live optimiser has, so a bit-exact resume reads and
 * writes them directly (tfjs is pinned at 4.22; the state tests fail if these fields move).
 */
interface AdamInternals {
  accBeta1?: tf.Variable;
  accBeta2?: tf.Variable;
}

/** The option names whose values differ (an absent adapter counts as null). */
function differingOptions(a: TrainerOptions, b: TrainerOptions): (keyof TrainerOptions)[] {
  const keys = Object.keys(trainerOptionsSchema.properties) as (keyof TrainerOptions)[];
  return keys.filter((key) => (a[key] ?? null) !== (b[key] ?? null));
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
  /** The value head's variables among `variables` (its parameter group). */
  private readonly headVariables: tf.Variable[];
  /** The value head's step size when set apart from `learningRate` (`setValueLearningRate`); null = the same. */
  private valueRate: number | null = null;
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
    this.headVariables = this.options.valueHead ? model.trainableVariables({ valueHead: true }) : [];
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

  /** The value head's Adam step size: `setValueLearningRate`'s, or `learningRate` when none is set. */
  get valueLearningRate(): number {
    return this.valueRate ?? this.options.learningRate;
  }

  /**
   * A second parameter group: the value head steps with its own learning rate (a critic can need a larger
   * step than a LoRA actor), the rest with `learningRate`; null goes back to one rate. Adam's step is
   * lr·m̂/(√v̂ + ε), linear in lr, so the head's step is the shared optimiser's scaled by rate/learningRate:
   * the moments, β-powers and saved state are the same as with one group (nothing new is checkpointed; like
   * a schedule, the caller sets the rate again after a resume). Clipping still sees the global norm.
   */
  setValueLearningRate(rate: number | null): void {
    if (rate !== null && !(Number.isFinite(rate) && rate > 0)) {
      throw new InvalidOptionsError('Trainer.setValueLearningRate', [
        `rate must be a finite number > 0 or null, got ${rate}`,
      ]);
    }
    if (rate !== null && this.headVariables.length === 0) {
      throw new InvalidOptionsError('Trainer.setValueLearningRate', [
        'this trainer trains no value head (valueHead: true)',
      ]);
    }
    this.valueRate = rate;
  }

  /** Trainable parameters (for bytes-per-parameter accounting). */
  get parameterCount(): number {
    return this.variables.reduce((sum, variable) => sum + variable.size, 0);
  }

  /** One optimiser step on one batch: forward with the trained adapter, the caller's loss, backward, Adam. */
  async step(
    rows: readonly TokenRow[],
    loss: LossFunction,
    forward: Omit<ForwardOptions, 'adapter'> = {},
  ): Promise<TrainStepResult> {
    return this.stepAccumulated([{ rows, loss }], forward);
  }

  /**
   * One optimiser step whose gradient is summed over several forward passes (gradient accumulation): a big
   * minibatch in pieces that each fit in memory. The step's loss is the sum of the parts' losses, so a caller
   * that wants a mean over the whole minibatch weights each part's loss by its share. Clipping sees the
   * summed gradient; one part is exactly `step`.
   */
  async stepAccumulated(
    parts: readonly { readonly rows: readonly TokenRow[]; readonly loss: LossFunction }[],
    forward: Omit<ForwardOptions, 'adapter'> = {},
  ): Promise<TrainStepResult> {
    if (parts.length === 0) throw new RangeError('Trainer.stepAccumulated: no parts to take a step on.');
    const forwardOptions: ForwardOptions = {
      ...forward,
      adapter: this.options.adapter ?? null,
      ...(this.options.valueHead ? { values: true } : {}),
    };
    let lossTotal = 0;
    let summed: tf.NamedTensorMap | null = null;
    try {
      for (const part of parts) {
        const { value, grads } = tf.variableGrads(
          () => part.loss(this.model.forward(part.rows, forwardOptions), part.rows),
          this.variables,
        );
        lossTotal += (await value.data())[0] as number;
        value.dispose();
        if (summed === null) {
          summed = grads;
          continue;
        }
        for (const [name, grad] of Object.entries(grads)) {
          const before = summed[name];
          summed[name] = before ? tf.add(before, grad) : grad;
          if (before) tf.dispose([before, grad]);
        }
      }
    } catch (error) {
      // A part that failed (a row too long, a loss that threw) takes no step and leaks no gradient.
      if (summed) tf.dispose(Object.values(summed));
      throw error;
    }
    const grads = summed!;
    // Summed in the trained variables' own order, not the gradient map's (which follows tfjs's per-process
    // variable names), so a model rebuilt in another order clips, and so resumes, bit for bit.
    const ordered = this.variables
      .map((variable) => grads[variable.name])
      .filter((grad): grad is tf.Tensor => grad != null);
    const norm = tf.tidy(() => tf.sqrt(tf.addN(ordered.map((grad) => tf.sum(tf.square(grad))))));
    const gradNorm = (await norm.data())[0] as number;
    const max = this.options.maxGradNorm;
    const scale = max > 0 && gradNorm > max ? max / gradNorm : 1;
    // Against the optimiser's step size as it is now (a caller may schedule tfjs's `learningRate`).
    const rate = (this.optimizer as unknown as { learningRate: number }).learningRate;
    const headScale = this.valueRate === null ? 1 : this.valueRate / rate;
    tf.tidy(() => {
      const applied =
        scale === 1
          ? grads
          : Object.fromEntries(Object.entries(grads).map(([name, grad]) => [name, tf.mul(grad, scale)]));
      const before = headScale === 1 ? [] : this.headVariables.map((variable) => tf.clone(variable));
      this.optimizer.applyGradients(applied as unknown as Parameters<tf.AdamOptimizer['applyGradients']>[0]);
      // The head's parameter group: its Adam step, taken at learningRate, rescaled to the head's own rate.
      before.forEach((old, i) => {
        const variable = this.headVariables[i]!;
        variable.assign(tf.add(old, tf.mul(tf.sub(variable, old), headScale)));
      });
    });
    tf.dispose([norm, ...Object.values(grads)]);
    this.steps += 1;
    return { loss: lossTotal, gradNorm };
  }

  /**
   * The optimiser's state (Adam's moments and β-powers, the step count, the options), copied out of tfjs.
   * With the model's trained weights it is all a trainer needs to continue bit for bit (`importState`).
   */
  async exportState(): Promise<TrainerState> {
    const [iterations, ...moments] = await this.optimizer.getWeights();
    iterations?.tensor.dispose();
    const indexByName = new Map(this.variables.map((variable, index) => [variable.name, index]));
    const tensors: NamedTensors = new Map();
    for (const { name, tensor } of moments) {
      // tfjs names each moment `<variable name>/m` or `/v`; variable names are per-process counters, so
      // the file names the variable by its position among the trained ones instead.
      const match = /^(.*)\/([mv])$/.exec(name);
      const index = match ? indexByName.get(match[1] as string) : undefined;
      if (!match || index === undefined) {
        throw new CheckpointError(`Trainer.exportState: Adam holds a moment "${name}" for no trained variable.`);
      }
      tensors.set(`adam.${match[2]}.${index}`, {
        shape: [...tensor.shape],
        data: Float32Array.from((await tensor.data()) as Float32Array),
      });
    }
    const internals = this.optimizer as unknown as AdamInternals;
    for (const [key, variable] of [
      ['adam.acc_beta1', internals.accBeta1],
      ['adam.acc_beta2', internals.accBeta2],
    ] as const) {
      if (variable) tensors.set(key, { shape: [1], data: Float32Array.from((await variable.data()) as Float32Array) });
    }
    return {
      tensors,
      json: {
        format: TRAINER_STATE_FORMAT,
        steps: this.steps,
        options: { ...this.options, adapter: this.options.adapter ?? null },
        variableShapes: this.variables.map((variable) => [...variable.shape]),
      },
    };
  }

  /**
   * Puts a state from `exportState` into this trainer, replacing its own. The trainer must train the same
   * variables with the same options; load the model's weights (adapter, value head, base) separately.
   */
  async importState(state: TrainerState, source = 'trainer state'): Promise<void> {
    const { json, tensors } = state;
    if (json.format !== TRAINER_STATE_FORMAT) {
      throw new CheckpointError(`${source}: format "${String(json.format)}" is not ${TRAINER_STATE_FORMAT}.`);
    }
    if (!Number.isInteger(json.steps) || json.steps < 0) {
      throw new CheckpointError(`${source}: steps must be a non-negative integer, got ${String(json.steps)}.`);
    }
    if (typeof json.options !== 'object' || json.options === null || !Array.isArray(json.variableShapes)) {
      throw new CheckpointError(`${source}: options or variableShapes is missing.`);
    }
    const differing = differingOptions(this.options, json.options);
    if (differing.length > 0) {
      throw new CheckpointError(
        `${source}: the trainer was saved with different options (${differing
          .map(
            (key) =>
              `${key}: saved ${JSON.stringify(json.options[key] ?? null)}, now ${JSON.stringify(this.options[key] ?? null)}`,
          )
          .join('; ')}); a resumed trainer must use the options it was saved with.`,
      );
    }
    const shapes = json.variableShapes;
    if (
      shapes.length !== this.variables.length ||
      shapes.some((shape, i) => shape.join(',') !== (this.variables[i] as tf.Variable).shape.join(','))
    ) {
      throw new CheckpointError(
        `${source}: the saved trainer trained ${shapes.length} variables of other shapes than the ${this.variables.length} ` +
          'this one trains (a different model config, LoRA rank or target modules?).',
      );
    }
    const slots: number[] = [];
    for (let index = 0; index < this.variables.length; index++) {
      const first = tensors.get(`adam.m.${index}`);
      const second = tensors.get(`adam.v.${index}`);
      if (!first !== !second) {
        throw new CheckpointError(`${source}: tensor "adam.${first ? 'v' : 'm'}.${index}" is missing.`);
      }
      if (!first || !second) continue;
      for (const [name, tensor] of [
        [`adam.m.${index}`, first],
        [`adam.v.${index}`, second],
      ] as const) {
        if (tensor.shape.join(',') !== (shapes[index] as readonly number[]).join(',')) {
          throw new CheckpointError(
            `${source}: tensor "${name}" has shape [${tensor.shape.join(', ')}], expected [${shapes[index]!.join(', ')}].`,
          );
        }
      }
      slots.push(index);
    }
    // Adam keeps moments by slot: the i-th key of the gradient map it is given. `tf.variableGrads` keys that
    // map by variable name, and names are integer strings, which JavaScript orders numerically; so order the
    // slots the same way here, under the names the variables have in this process.
    const byName = Object.fromEntries(slots.map((index) => [(this.variables[index] as tf.Variable).name, index]));
    const ordered = Object.keys(byName).map((name) => byName[name] as number);
    const moment = (kind: 'm' | 'v') =>
      ordered.map((index) => {
        const tensor = tensors.get(`adam.${kind}.${index}`)!;
        return { name: `${this.variables[index]!.name}/${kind}`, tensor: tf.tensor(tensor.data, [...tensor.shape]) };
      });
    const weights = [
      { name: 'iter', tensor: tf.scalar(json.steps, 'int32') as tf.Tensor },
      ...moment('m'),
      ...moment('v'),
    ];
    const current = await this.optimizer.getWeights();
    tf.dispose(current.map((weight) => weight.tensor));
    await this.optimizer.setWeights(weights);
    // The optimiser's variables share the tensors' data (reference-counted), so these copies can go.
    tf.dispose(weights.map((weight) => weight.tensor));
    const internals = this.optimizer as unknown as AdamInternals;
    for (const [key, variable] of [
      ['adam.acc_beta1', internals.accBeta1],
      ['adam.acc_beta2', internals.accBeta2],
    ] as const) {
      const saved = tensors.get(key);
      if (saved && variable) tf.tidy(() => variable.assign(tf.scalar(saved.data[0] as number)));
    }
    this.steps = json.steps;
  }

  /** Writes `exportState` to `dir` (trainer_state.json + optimizer.safetensors), creating it. */
  async saveState(dir: string): Promise<void> {
    const state = await this.exportState();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, TRAINER_STATE_FILES.tensors), writeSafetensors(state.tensors));
    writeFileSync(join(dir, TRAINER_STATE_FILES.json), `${JSON.stringify(state.json, null, 2)}\n`);
  }

  /** Reads a state `saveState` wrote and imports it. */
  async loadState(dir: string): Promise<void> {
    const jsonPath = join(dir, TRAINER_STATE_FILES.json);
    const tensorPath = join(dir, TRAINER_STATE_FILES.tensors);
    let json: TrainerStateJson;
    let bytes: Uint8Array;
    try {
      json = JSON.parse(readFileSync(jsonPath, 'utf8')) as TrainerStateJson;
      bytes = readFileSync(tensorPath);
    } catch (error) {
      throw new CheckpointError(`Cannot read the trainer state in ${dir}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    await this.importState({ json, tensors: readSafetensors(bytes, tensorPath).tensors }, jsonPath);
  }

  /** Frees the optimiser's moment estimates (the model's variables stay). */
  dispose(): void {
    this.optimizer.dispose();
  }
}
