import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { SeededRng } from '@turngym/core';
import { readSafetensors, writeSafetensors, type NamedTensors } from '@turngym/lm';
import {
  dpoLossTf,
  entropyBonusTf,
  policyCrossEntropyTf,
  ppoClipLossTf,
  valueLossTf,
  type CheckpointStore,
} from '@turngym/rl';
import { AlphaZeroError } from './alphazero-error';
import type { EncoderSettings } from './dialogue-features';

/** The shape of a network: saved with it, checked on load. */
export interface PolicyValueNetShape {
  readonly inputs: number;
  readonly actions: number;
  readonly hidden: number;
  /**
   * What its inputs mean (`DialogueEncoder.settings`: the turn limit, the text reading…), saved with it and checked
   * on load field by field where both the saved network and this one have it (networks saved before 2026-11-28
   * have none).
   */
  readonly features?: EncoderSettings;
}

/** A minibatch: one row per state. */
export interface PolicyValueBatch {
  readonly features: readonly Float32Array[];
  /** 0/1 per action; 1 on legal actions. */
  readonly legal: readonly (readonly number[])[];
  /** π_MCTS: the root's visit fractions over every action (0 on illegal ones). */
  readonly policy: readonly (readonly number[])[];
  /** z: the return from this state on. */
  readonly returns: readonly number[];
}

/** A DPO minibatch: states with a preferred and a dispreferred action, and the reference's log-probs of both. */
export interface PreferenceBatch extends PolicyValueBatch {
  readonly chosen: readonly number[];
  readonly rejected: readonly number[];
  readonly referenceChosenLogp: readonly number[];
  readonly referenceRejectedLogp: readonly number[];
}

/** A policy-gradient minibatch (the GRPO commander): states, the actions taken, their old log-probs, advantages. */
export interface PolicyGradientBatch {
  readonly features: readonly Float32Array[];
  readonly legal: readonly (readonly number[])[];
  readonly actions: readonly number[];
  /** log π_old(a|s) under the network that played the rollout. */
  readonly oldLogp: readonly number[];
  /** Each action's advantage: its episode's group-relative return. */
  readonly advantages: readonly number[];
}

export interface UpdateStats {
  readonly loss: number;
  readonly valueLoss: number;
  /** CE(π_MCTS, π_θ), or the DPO loss under `mcts-dpo`. */
  readonly policyLoss: number;
  readonly entropy: number;
}

/**
 * A variable made from `initial`, which it takes over: the variable shares the tensor's data, so the tensor left
 * undisposed would keep that data alive after `dispose()` (every network built, and every reset, leaked its size).
 */
function ownVariable(initial: tf.Tensor, trainable: boolean): tf.Variable {
  const variable = tf.variable(initial, trainable);
  initial.dispose();
  return variable;
}

/** Adam's constants (Kingma & Ba 2015), the lm Trainer's defaults. */
const BETA1 = 0.9;
const BETA2 = 0.999;
const EPSILON = 1e-8;
const FILES = { shape: 'network.json', weights: 'network.safetensors', adam: 'adam.safetensors' } as const;

/**
 * AlphaZero's policy-value network (ALGORITHMS.md §5: history embedding → MLP → policy head + value head),
 * here over `DialogueEncoder`'s features: two ReLU layers, a policy head of one logit per action (softmax over
 * the legal ones) and a linear value head. It carries its own Adam, so that the network and its optimiser are
 * one `CheckpointStore`: saved and restored together, bit-exact (the bias corrections are recomputed from the
 * step count in float64, not kept as running products).
 */
export class PolicyValueNet implements CheckpointStore {
  private readonly variables: Map<string, tf.Variable>;
  private moments = new Map<string, { m: tf.Variable; v: tf.Variable }>();
  private steps = 0;

  constructor(
    readonly shape: PolicyValueNetShape,
    seed: number,
    private readonly learningRate: number,
  ) {
    const rng = new SeededRng(seed);
    const { inputs, hidden, actions } = shape;
    // Glorot-uniform weights from the run's seed; zero biases.
    const glorot = (rows: number, columns: number): tf.Variable => {
      const limit = Math.sqrt(6 / (rows + columns));
      const data = Float32Array.from({ length: rows * columns }, () => (2 * rng.next() - 1) * limit);
      return ownVariable(tf.tensor2d(data, [rows, columns]), true);
    };
    const zeros = (size: number): tf.Variable => ownVariable(tf.zeros([size]), true);
    this.variables = new Map<string, tf.Variable>([
      ['w1', glorot(inputs, hidden)],
      ['b1', zeros(hidden)],
      ['w2', glorot(hidden, hidden)],
      ['b2', zeros(hidden)],
      ['policy_w', glorot(hidden, actions)],
      ['policy_b', zeros(actions)],
      ['value_w', glorot(hidden, 1)],
      ['value_b', zeros(1)],
    ]);
    this.resetMoments();
  }

  /** Optimiser steps taken. */
  get stepCount(): number {
    return this.steps;
  }

  private variable(name: 'w1' | 'b1' | 'w2' | 'b2' | 'policy_w' | 'policy_b' | 'value_w' | 'value_b'): tf.Variable {
    return this.variables.get(name) as tf.Variable;
  }

  /** logits [B, n] and values [B] of a batch of feature rows. */
  forward(features: tf.Tensor2D): { logits: tf.Tensor2D; values: tf.Tensor1D } {
    return tf.tidy(() => {
      const h1 = tf.relu(tf.add(tf.matMul(features, this.variable('w1')), this.variable('b1')));
      const h2 = tf.relu(tf.add(tf.matMul(h1, this.variable('w2')), this.variable('b2')));
      const logits = tf.add(tf.matMul(h2, this.variable('policy_w')), this.variable('policy_b')) as tf.Tensor2D;
      const values = tf.reshape(
        tf.add(tf.matMul(h2, this.variable('value_w')), this.variable('value_b')),
        [-1],
      ) as tf.Tensor1D;
      return { logits, values };
    });
  }

  /** P(s, ·) over every action (0 on illegal ones: softmax over the legal logits) and V(s), for one state. */
  evaluate(features: Float32Array, legal: readonly number[]): { priors: number[]; value: number } {
    // The input is disposed too: a search evaluates every new leaf, thousands an iteration at 50 simulations, and
    // each input left behind stayed in tfjs's memory for the life of the process.
    const input = tf.tensor2d(features, [1, features.length]);
    const { logits, values } = this.forward(input);
    const raw = logits.dataSync();
    const value = values.dataSync()[0] as number;
    input.dispose();
    logits.dispose();
    values.dispose();
    let top = Number.NEGATIVE_INFINITY;
    legal.forEach((on, action) => {
      if (on === 1) top = Math.max(top, raw[action] as number);
    });
    const exps = legal.map((on, action) => (on === 1 ? Math.exp((raw[action] as number) - top) : 0));
    const sum = exps.reduce((total, each) => total + each, 0);
    return { priors: exps.map((each) => each / sum), value };
  }

  /**
   * One Adam step on AlphaZero's loss (ALGORITHMS.md §5), the kit's loss terms:
   *   L = MSE(v, z) + CE(π_MCTS, π_θ) − c_H·H(π_θ).
   */
  train(batch: PolicyValueBatch, entropyCoefficient: number): UpdateStats {
    return this.step(batch, entropyCoefficient, (logits, tensors) =>
      policyCrossEntropyTf({ logits, targets: tensors.policy, legal: tensors.legal }),
    );
  }

  /**
   * One Adam step of the MCTS-DPO option: the value head keeps MSE(v, z); the policy head is trained on
   * preference pairs from the search (chosen: the root child with the best mean return, rejected: the worst),
   * with the kit's DPO loss against the network that ran the search (its log-probs, stored with the pair),
   * plus `anchor`·CE(π_MCTS, π_θ). The anchor is needed: for one categorical choice log π(c) − log π(r) is
   * logit_c − logit_r (the softmax's normaliser cancels), so DPO alone moves only those two logits, without
   * bound until β·margin saturates the sigmoid, and an action often chosen and seldom rejected takes all the
   * mass (measured: the seller head played "empathize" at 85% of its moves, entropy 0.04 nats).
   */
  trainPreferences(batch: PreferenceBatch, beta: number, entropyCoefficient: number, anchor = 0): UpdateStats {
    return this.step(batch, entropyCoefficient, (logits, tensors) => {
      const pick = (actions: readonly number[]): tf.Tensor1D => this.logProbabilities(logits, tensors.legal, actions);
      const dpo = dpoLossTf(
        {
          chosenLogp: pick(batch.chosen),
          rejectedLogp: pick(batch.rejected),
          referenceChosenLogp: tf.tensor1d([...batch.referenceChosenLogp]),
          referenceRejectedLogp: tf.tensor1d([...batch.referenceRejectedLogp]),
        },
        { beta },
      );
      if (anchor === 0) return dpo;
      const crossEntropy = policyCrossEntropyTf({ logits, targets: tensors.policy, legal: tensors.legal });
      return tf.add(dpo, tf.mul(crossEntropy, anchor)) as tf.Scalar;
    });
  }

  /**
   * One Adam step of the GRPO commander (the comparison of issue 27): the kit's PPO-clip loss over the batch's
   * actions, each action one "token" with its episode's group advantage, − c_H·H(π_θ). No value term: GRPO is
   * critic-free, and the value head is left as it is.
   */
  trainPolicyGradient(batch: PolicyGradientBatch, clipEpsilon: number, entropyCoefficient: number): UpdateStats {
    const rows = batch.features.length;
    return this.step(
      { ...batch, policy: batch.legal, returns: new Array<number>(rows).fill(0) },
      entropyCoefficient,
      (logits, tensors) =>
        ppoClipLossTf(
          {
            logp: this.logProbabilities(logits, tensors.legal, batch.actions),
            oldLogp: tf.tensor1d([...batch.oldLogp]),
            advantages: tf.tensor1d([...batch.advantages]),
            mask: tf.ones([rows]),
          },
          { clipEpsilon },
        ),
      0,
    );
  }

  /** log π(a|s) of one action per row, the softmax over the legal actions only. */
  private logProbabilities(logits: tf.Tensor2D, legal: tf.Tensor2D, actions: readonly number[]): tf.Tensor1D {
    const logp = tf.sub(logits, tf.mul(tf.sub(1, legal), 1e9)).logSoftmax() as tf.Tensor2D;
    return tf.sum(tf.mul(logp, tf.oneHot(tf.tensor1d([...actions], 'int32'), this.shape.actions)), 1) as tf.Tensor1D;
  }

  /** One Adam step on valueWeight·MSE(v, z) + policyTerm − c_H·H(π_θ). */
  private step(
    batch: PolicyValueBatch,
    entropyCoefficient: number,
    policyTerm: (logits: tf.Tensor2D, tensors: { legal: tf.Tensor2D; policy: tf.Tensor2D }) => tf.Scalar,
    valueWeight = 1,
  ): UpdateStats {
    const rows = batch.features.length;
    const width = this.shape.inputs;
    const flat = new Float32Array(rows * width);
    batch.features.forEach((row, index) => flat.set(row, index * width));
    let stats: UpdateStats | undefined;
    tf.tidy(() => {
      const features = tf.tensor2d(flat, [rows, width]);
      const tensors = {
        legal: tf.tensor2d(batch.legal.map((row) => [...row])),
        policy: tf.tensor2d(batch.policy.map((row) => [...row])),
        returns: tf.tensor1d([...batch.returns]),
        ones: tf.ones([rows]) as tf.Tensor1D,
      };
      const names = [...this.variables.keys()];
      let parts: { valueLoss: tf.Scalar; policyLoss: tf.Scalar; entropy: tf.Scalar } | undefined;
      const { value, grads } = tf.variableGrads(
        () => {
          const { logits, values } = this.forward(features);
          const valueLoss = valueLossTf({ values, returns: tensors.returns, mask: tensors.ones });
          const policyLoss = policyTerm(logits, tensors);
          const entropy = entropyBonusTf({ logits, mask: tensors.ones, legal: tensors.legal });
          parts = { valueLoss: tf.keep(valueLoss), policyLoss: tf.keep(policyLoss), entropy: tf.keep(entropy) };
          return tf.sub(
            tf.add(tf.mul(valueLoss, valueWeight), policyLoss),
            tf.mul(entropy, entropyCoefficient),
          ) as tf.Scalar;
        },
        names.map((name) => this.variables.get(name) as tf.Variable),
      );
      this.adam(names, grads);
      stats = {
        loss: value.dataSync()[0] as number,
        valueLoss: parts!.valueLoss.dataSync()[0] as number,
        policyLoss: parts!.policyLoss.dataSync()[0] as number,
        entropy: parts!.entropy.dataSync()[0] as number,
      };
      // Kept out of variableGrads' scope to be read here, so no tidy frees them: three tensors an Adam step.
      tf.dispose([parts!.valueLoss, parts!.policyLoss, parts!.entropy]);
    });
    return stats as UpdateStats;
  }

  /** Adam: m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g², w ← w − lr·m̂/(√v̂ + ε), with m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ). */
  private adam(names: readonly string[], grads: tf.NamedTensorMap): void {
    this.steps += 1;
    const correction1 = 1 - BETA1 ** this.steps;
    const correction2 = 1 - BETA2 ** this.steps;
    for (const name of names) {
      const variable = this.variables.get(name) as tf.Variable;
      const gradient = grads[variable.name] as tf.Tensor;
      const moment = this.moments.get(name)!;
      moment.m.assign(tf.add(tf.mul(moment.m, BETA1), tf.mul(gradient, 1 - BETA1)));
      moment.v.assign(tf.add(tf.mul(moment.v, BETA2), tf.mul(tf.square(gradient), 1 - BETA2)));
      const update = tf.div(tf.div(moment.m, correction1), tf.add(tf.sqrt(tf.div(moment.v, correction2)), EPSILON));
      variable.assign(tf.sub(variable, tf.mul(update, this.learningRate)));
    }
  }

  private resetMoments(): void {
    for (const moment of this.moments.values()) {
      moment.m.dispose();
      moment.v.dispose();
    }
    this.moments = new Map(
      [...this.variables].map(([name, variable]) => [
        name,
        { m: ownVariable(tf.zerosLike(variable), false), v: ownVariable(tf.zerosLike(variable), false) },
      ]),
    );
    this.steps = 0;
  }

  /** The weights (and, with `adam`, the moments) as named float tensors. */
  private tensors(which: 'weights' | 'adam'): NamedTensors {
    const tensors: NamedTensors = new Map();
    for (const [name, variable] of this.variables) {
      if (which === 'weights') {
        tensors.set(name, { shape: [...variable.shape], data: Float32Array.from(variable.dataSync() as Float32Array) });
      } else {
        const moment = this.moments.get(name)!;
        tensors.set(`${name}.m`, {
          shape: [...variable.shape],
          data: Float32Array.from(moment.m.dataSync() as Float32Array),
        });
        tensors.set(`${name}.v`, {
          shape: [...variable.shape],
          data: Float32Array.from(moment.v.dataSync() as Float32Array),
        });
      }
    }
    return tensors;
  }

  /** The weights as bytes: two networks with equal bytes decide alike (the resume test compares them). */
  weightBytes(): Uint8Array {
    return writeSafetensors(this.tensors('weights'));
  }

  async save(dir: string): Promise<void> {
    await writeFile(join(dir, FILES.shape), `${JSON.stringify({ ...this.shape, steps: this.steps })}\n`);
    await writeFile(join(dir, FILES.weights), writeSafetensors(this.tensors('weights')));
    await writeFile(join(dir, FILES.adam), writeSafetensors(this.tensors('adam')));
  }

  async load(dir: string): Promise<void> {
    let saved: PolicyValueNetShape & { steps: number };
    let weights: NamedTensors;
    let adam: NamedTensors;
    try {
      saved = JSON.parse(await readFile(join(dir, FILES.shape), 'utf8')) as PolicyValueNetShape & { steps: number };
      weights = readSafetensors(await readFile(join(dir, FILES.weights)), FILES.weights).tensors;
      adam = readSafetensors(await readFile(join(dir, FILES.adam)), FILES.adam).tensors;
    } catch (error) {
      throw new AlphaZeroError(
        'ALPHAZERO_CHECKPOINT',
        `the network in ${dir} cannot be read: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    for (const key of ['inputs', 'actions', 'hidden'] as const) {
      if (saved[key] !== this.shape[key]) {
        throw new AlphaZeroError(
          'ALPHAZERO_CHECKPOINT',
          `${join(dir, FILES.shape)}: ${key} is ${saved[key]}, this run's network has ${this.shape[key]}.`,
        );
      }
    }
    // Same length, other meaning: a turn limit of 8 read as 12 moves every turn feature, and the network's
    // decisions change with no error anywhere.
    const [before, now] = [saved.features, this.shape.features];
    for (const key of before && now ? Object.keys({ ...before, ...now }).sort() : []) {
      if (before?.[key] !== now?.[key]) {
        throw new AlphaZeroError(
          'ALPHAZERO_CHECKPOINT',
          `${join(dir, FILES.shape)}: the network was trained on features with ${key} ${JSON.stringify(before?.[key])}, ` +
            `these features have ${key} ${JSON.stringify(now?.[key])}.`,
        );
      }
    }
    const tensorOf = (tensors: NamedTensors, name: string): tf.Tensor => {
      const tensor = tensors.get(name);
      if (!tensor) throw new AlphaZeroError('ALPHAZERO_CHECKPOINT', `${dir}: tensor ${name} is missing.`);
      return tf.tensor(tensor.data, [...tensor.shape]);
    };
    for (const [name, variable] of this.variables) {
      tf.tidy(() => {
        variable.assign(tensorOf(weights, name));
        this.moments.get(name)!.m.assign(tensorOf(adam, `${name}.m`));
        this.moments.get(name)!.v.assign(tensorOf(adam, `${name}.v`));
      });
    }
    this.steps = saved.steps;
  }

  /** A run that starts over has just built this network from its seed: only the optimiser starts over too. */
  async reset(): Promise<void> {
    this.resetMoments();
  }

  dispose(): void {
    for (const variable of this.variables.values()) variable.dispose();
    for (const moment of this.moments.values()) {
      moment.m.dispose();
      moment.v.dispose();
    }
  }
}
