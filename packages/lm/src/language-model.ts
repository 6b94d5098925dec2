import * as tf from '@tensorflow/tfjs';
import { InvalidOptionsError } from '@turngym/core';
import { ByteTokenizer } from './byte-tokenizer';
import { DecoderParameters } from './decoder-parameters';
import { languageModelHead, runDecoder } from './decoder';
import {
  generate,
  prefill,
  releaseFusedWeights,
  type Generation,
  type GenerationOptions,
  type GenerationRequest,
} from './generation';
import { initializeWeights } from './hf-weights';
import type { KvCache } from './kv-cache';
import { ropeFrequencies, ropeTables } from './internal/rope-tables';
import { AdapterNotFoundError, TokenizerMismatchError } from './lm-errors';
import type { TokenLogprob } from './top-logprobs';
import { DEFAULT_LORA_OPTIONS, LoraAdapter, type LoraOptions } from './lora-adapter';
import { parameterCount, type ModelConfig } from './model-config';
import type { NamedTensors } from './named-tensors';
import { prepareBatch, type TokenRow } from './token-batch';
import type { Tokenizer } from './tokenizer';
import { ValueHead } from './value-head';

export interface ForwardOptions {
  /** The LoRA adapter to apply; omitted or null = the base model (the reference policy). */
  readonly adapter?: string | null;
  /** Also return the value head's output at every position (needs `addValueHead`). */
  readonly values?: boolean;
  /** Also return the entropy of the predicting distribution at every scored token. */
  readonly entropy?: boolean;
}

/** Tensors from `forward`, all [B, T] over the right-padded batch; unscored entries are 0. */
export interface ForwardOutputs {
  /** log π(token t | what t's predictor sees). */
  readonly logprobs: tf.Tensor2D;
  /** 1 where a token is scored (has a predictor and is not padding), else 0. */
  readonly scored: tf.Tensor2D;
  /** The rows' loss weights where scored, else 0: the loss mask. */
  readonly weights: tf.Tensor2D;
  readonly values?: tf.Tensor2D;
  readonly entropy?: tf.Tensor2D;
}

/**
 * A Llama/Qwen2-family decoder LM on tfjs: the base weights, its tokenizer, named LoRA adapters and an
 * optional value head. `forward` is differentiable (for trainers); `score` reads logprobs out; generation
 * lives in `generate` (KV cache, batched sampling). Works on whatever backend `useBackend` chose.
 */
export class LanguageModel {
  private readonly adapters = new Map<string, LoraAdapter>();
  private head: ValueHead | null = null;
  readonly frequencies: Float64Array;
  private released = false;

  constructor(
    readonly config: ModelConfig,
    readonly parameters: DecoderParameters,
    readonly tokenizer: Tokenizer,
  ) {
    if (tokenizer.vocabSize > config.vocabSize) {
      throw new TokenizerMismatchError(
        `The tokenizer has ids up to ${tokenizer.vocabSize - 1} but config.json "vocab_size" is ${config.vocabSize}: ` +
          'they belong to different models.',
      );
    }
    this.frequencies = ropeFrequencies(config);
  }

  /** A model from HF tensors (checked: a missing or misshapen tensor is an error naming it). */
  static fromTensors(
    config: ModelConfig,
    tensors: NamedTensors,
    tokenizer: Tokenizer,
    options: { trainable?: boolean; source?: string } = {},
  ): LanguageModel {
    return new LanguageModel(config, DecoderParameters.fromTensors(config, tensors, options), tokenizer);
  }

  /** A freshly initialised model (seeded: the same seed gives the same weights on every backend). */
  static create(config: ModelConfig, options: { seed?: number; tokenizer?: Tokenizer } = {}): LanguageModel {
    return LanguageModel.fromTensors(
      config,
      initializeWeights(config, options.seed ?? 0),
      options.tokenizer ?? new ByteTokenizer(),
    );
  }

  get parameterCount(): number {
    return parameterCount(this.config);
  }

  // ---- adapters and heads -------------------------------------------------------------------------

  /** Adds a LoRA adapter (B = 0, so it changes nothing until trained). */
  addAdapter(name: string, options: Partial<LoraOptions> = {}): LoraAdapter {
    if (this.adapters.has(name)) throw new RangeError(`The model already has an adapter named "${name}".`);
    const adapter = new LoraAdapter(name, this.config, { ...DEFAULT_LORA_OPTIONS, ...options });
    this.adapters.set(name, adapter);
    return adapter;
  }

  adapter(name: string): LoraAdapter {
    const adapter = this.adapters.get(name);
    if (!adapter) throw new AdapterNotFoundError(name, [...this.adapters.keys()]);
    return adapter;
  }

  /** The adapter a call names, or undefined for the base model. */
  resolveAdapter(name: string | null | undefined): LoraAdapter | undefined {
    return name === null || name === undefined ? undefined : this.adapter(name);
  }

  adapterNames(): string[] {
    return [...this.adapters.keys()];
  }

  removeAdapter(name: string): void {
    this.adapter(name).dispose();
    releaseFusedWeights(this, name);
    this.adapters.delete(name);
  }

  addValueHead(seed = 0): ValueHead {
    this.head?.dispose();
    this.head = new ValueHead(this.config.hiddenSize, seed);
    return this.head;
  }

  get valueHead(): ValueHead | null {
    return this.head;
  }

  /**
   * The variables a trainer updates: an adapter's (and the value head's) for LoRA training, or the base
   * weights for full fine-tuning.
   */
  trainableVariables(options: { adapter?: string | null; valueHead?: boolean; base?: boolean } = {}): tf.Variable[] {
    const out: tf.Variable[] = [];
    if (options.base) out.push(...this.parameters.variables());
    if (options.adapter) out.push(...this.adapter(options.adapter).variables());
    if (options.valueHead) {
      if (!this.head) throw new RangeError('trainableVariables({ valueHead: true }) needs addValueHead() first.');
      out.push(...this.head.variables());
    }
    return out;
  }

  // ---- forward ------------------------------------------------------------------------------------

  /**
   * Log-probabilities (and optionally values and entropies) for a batch of rows with explicit positions
   * and attention patterns. Differentiable: trainers call it inside their loss function.
   */
  forward(rows: readonly TokenRow[], options: ForwardOptions = {}): ForwardOutputs {
    return this.forwardPass(rows, options, false);
  }

  /**
   * `forward`, where `release` frees each layer's intermediate tensors as the layer ends: for reading out
   * (`score`), never under a gradient, which needs them. It bounds a scoring's memory by one layer's
   * intermediates instead of all of them (~280 KB per token for tiny-1m), as generation does.
   */
  private forwardPass(
    rows: readonly TokenRow[],
    options: ForwardOptions,
    release: boolean,
    topCount = 0,
  ): ForwardOutputs & { top?: { values: tf.Tensor2D; indices: tf.Tensor2D } } {
    const batch = prepareBatch(rows, this.config.maxPositions, this.tokenizer.padTokenId, this.config.vocabSize);
    const { batchSize: B, length: T } = batch;
    if (options.values && !this.head) throw new RangeError('forward({ values: true }) needs addValueHead() first.');
    const adapter = this.resolveAdapter(options.adapter);
    return tf.tidy(() => {
      const tables = ropeTables(this.frequencies, batch.positions);
      const { hidden } = runDecoder(
        this.config,
        this.parameters,
        {
          tokens: tf.tensor2d(batch.tokens, [B, T], 'int32'),
          cos: tf.tensor2d(tables.cos, [B * T, this.config.headDim]),
          sin: tf.tensor2d(tables.sin, [B * T, this.config.headDim]),
          mask: tf.tensor4d(batch.mask, [B, 1, T, T]),
        },
        { ...(adapter ? { adapter } : {}), releaseLayers: release },
      );
      const scored = tf.tensor2d(batch.scored, [B, T]);
      const predictors = tf.gather(hidden, tf.tensor1d(batch.sources, 'int32'));
      const logSoftmax = tf.logSoftmax(languageModelHead(this.parameters, predictors));
      const V = this.config.vocabSize;
      const picked = new Int32Array(B * T);
      for (let n = 0; n < B * T; n++) picked[n] = n * V + (batch.tokens[n] as number);
      const logprobs = tf.mul(
        tf.reshape(tf.gather(tf.reshape(logSoftmax, [B * T * V]), tf.tensor1d(picked, 'int32')), [B, T]),
        scored,
      ) as tf.Tensor2D;
      const weights = tf.tensor2d(batch.weights, [B, T]);
      const out: {
        logprobs: tf.Tensor2D;
        scored: tf.Tensor2D;
        weights: tf.Tensor2D;
        values?: tf.Tensor2D;
        entropy?: tf.Tensor2D;
        top?: { values: tf.Tensor2D; indices: tf.Tensor2D };
      } = {
        logprobs,
        scored,
        weights,
      };
      if (options.values && this.head) out.values = tf.reshape(this.head.apply(hidden), [B, T]) as tf.Tensor2D;
      if (options.entropy) {
        const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logSoftmax), logSoftmax), -1));
        out.entropy = tf.mul(tf.reshape(entropy, [B, T]), scored) as tf.Tensor2D;
      }
      // [B·T, k], read from the same log-softmax as `logprobs`: a token among them has its logprob's very float.
      if (topCount > 0) out.top = tf.topk(logSoftmax, Math.min(topCount, V)) as typeof out.top;
      return out;
    });
  }

  /**
   * Per-token logprobs as numbers: `null` where a token is not scored (the first token of a row). With `topLogprobs`
   * N > 0, also the N likeliest tokens at each scored position (what an evaluator reads to tell whether a text is
   * the greedy continuation), likeliest first, ties by lower id; only those N per position leave the backend.
   */
  async score(
    rows: readonly TokenRow[],
    options: Omit<ForwardOptions, 'entropy'> & { readonly topLogprobs?: number } = {},
  ): Promise<{ logprobs: (number | null)[][]; values?: number[][]; topLogprobs?: (TokenLogprob[] | null)[][] }> {
    const { topLogprobs: topCount = 0, ...forwardOptions } = options;
    if (!Number.isInteger(topCount) || topCount < 0)
      throw new InvalidOptionsError('score', [`topLogprobs must be an integer >= 0 (got ${String(topCount)})`]);
    const outputs = this.forwardPass(rows, forwardOptions, true, topCount);
    try {
      const [logprobs, scored] = (await Promise.all([outputs.logprobs.array(), outputs.scored.array()])) as [
        number[][],
        number[][],
      ];
      const result: { logprobs: (number | null)[][]; values?: number[][]; topLogprobs?: (TokenLogprob[] | null)[][] } =
        {
          logprobs: rows.map((row, b) =>
            row.tokens.map((_, t) => (scored[b]![t] ? (logprobs[b]![t] as number) : null)),
          ),
        };
      if (outputs.top) {
        const [values, indices] = (await Promise.all([outputs.top.values.array(), outputs.top.indices.array()])) as [
          number[][],
          number[][],
        ];
        const T = scored[0]?.length ?? 0;
        result.topLogprobs = rows.map((row, b) =>
          row.tokens.map((_, t) =>
            scored[b]![t] ? indices[b * T + t]!.map((token, k) => ({ token, logprob: values[b * T + t]![k]! })) : null,
          ),
        );
      }
      if (outputs.values) {
        const values = (await outputs.values.array()) as number[][];
        result.values = rows.map((row, b) => values[b]!.slice(0, row.tokens.length));
      }
      return result;
    } finally {
      tf.dispose(outputs as unknown as tf.TensorContainer);
    }
  }

  /** Full logits [T][vocab] for one row (for checks against the reference; large for big vocabularies). */
  async logits(row: TokenRow, options: { adapter?: string | null } = {}): Promise<Float32Array[]> {
    const batch = prepareBatch([row], this.config.maxPositions, this.tokenizer.padTokenId, this.config.vocabSize);
    const T = batch.length;
    const adapter = this.resolveAdapter(options.adapter);
    const logits = tf.tidy(() => {
      const tables = ropeTables(this.frequencies, batch.positions);
      const { hidden } = runDecoder(
        this.config,
        this.parameters,
        {
          tokens: tf.tensor2d(batch.tokens, [1, T], 'int32'),
          cos: tf.tensor2d(tables.cos, [T, this.config.headDim]),
          sin: tf.tensor2d(tables.sin, [T, this.config.headDim]),
          mask: tf.tensor4d(batch.mask, [1, 1, T, T]),
        },
        adapter ? { adapter } : {},
      );
      return languageModelHead(this.parameters, hidden);
    });
    const data = (await logits.data()) as Float32Array;
    logits.dispose();
    const V = this.config.vocabSize;
    return Array.from({ length: T }, (_, t) => data.slice(t * V, (t + 1) * V));
  }

  /** Batched sampling with a KV cache (see `generate`). */
  generate(requests: readonly GenerationRequest[], options: Partial<GenerationOptions> = {}): Generation[] {
    return generate(this, requests, options);
  }

  /** The cache of `tokens` (after `from`, if given): a node to branch generation from. */
  prefill(tokens: readonly number[], options: { from?: KvCache; adapter?: string | null } = {}): KvCache {
    return prefill(this, tokens, options);
  }

  /** The base weights in HF names and layout. */
  toTensors(): Promise<NamedTensors> {
    return this.parameters.toTensors();
  }

  /** Whether `dispose` ran: generation then refuses (its tensors are gone, and tfjs would fail without saying why). */
  get disposed(): boolean {
    return this.released;
  }

  /** Frees every tensor of the model. Idempotent. */
  dispose(): void {
    if (this.released) return;
    this.released = true;
    releaseFusedWeights(this);
    this.parameters.dispose();
    for (const adapter of this.adapters.values()) adapter.dispose();
    this.adapters.clear();
    this.head?.dispose();
    this.head = null;
  }
}
